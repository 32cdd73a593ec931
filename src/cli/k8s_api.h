/* The Kubernetes API from inside a pod (in-cluster config): the API server
 * from KUBERNETES_SERVICE_HOST/PORT, the pod's service-account token and the
 * cluster CA from /var/run/secrets/kubernetes.io/serviceaccount, over HTTPS
 * with libcurl. HIPWIRE_K8S_SA_DIR replaces that directory (tests point it at
 * a test CA and token). */
#ifndef HIPWIRE_CLI_K8S_API_H
#define HIPWIRE_CLI_K8S_API_H

#include <stdbool.h>
#include <stddef.h>

#define K8S_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

typedef struct k8s_incluster {
    char server[300]; /* https://host:port, an IPv6 host in brackets */
    char token_path[4096];
    char ca_path[4096];
} k8s_incluster;

/* True when KUBERNETES_SERVICE_HOST is set: this process runs in a pod. */
bool k8s_in_cluster(void);

/* Fills cfg from the environment. 0, or -1 with the reason in err (cfg
 * untouched). */
int k8s_incluster_load(k8s_incluster *cfg, char *err, size_t err_size);

/* PATCHes /api/v1/nodes/NAME with a JSON merge patch setting these labels
 * (keys and values already valid label text). The token is read on each call:
 * projected tokens are rotated. 0, or -1 with the reason (the HTTP status and
 * the API server's message when it answered) in err. */
int k8s_patch_node_labels(const k8s_incluster *cfg, const char *node, const char *const *keys,
                          const char *const *values, size_t count, char *err, size_t err_size);

#endif
