/* In-cluster Kubernetes API calls through libcurl (k8s_api.h). */
#include "k8s_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "json_writer.h"

bool k8s_in_cluster(void)
{
    const char *h = getenv("KUBERNETES_SERVICE_HOST");
    return h && *h;
}

int k8s_incluster_load(k8s_incluster *cfg, char *err, size_t err_size)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    const char *dir = getenv("HIPWIRE_K8S_SA_DIR");
    if (!host || !*host) {
        snprintf(err, err_size, "KUBERNETES_SERVICE_HOST is not set: not running in a pod");
        return -1;
    }
    if (!port || !*port)
        port = "443";
    if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5) {
        snprintf(err, err_size, "KUBERNETES_SERVICE_PORT '%s' is not a port", port);
        return -1;
    }
    if (!dir || !*dir)
        dir = K8S_SA_DIR;
    k8s_incluster c;
    bool v6 = strchr(host, ':') != NULL;
    int n1 = snprintf(c.server, sizeof(c.server), "https://%s%s%s:%s", v6 ? "[" : "", host,
                      v6 ? "]" : "", port);
    int n2 = snprintf(c.token_path, sizeof(c.token_path), "%s/token", dir);
    int n3 = snprintf(c.ca_path, sizeof(c.ca_path), "%s/ca.crt", dir);
    if (n1 < 0 || (size_t)n1 >= sizeof(c.server) || n2 < 0 || (size_t)n2 >= sizeof(c.token_path) ||
        n3 < 0 || (size_t)n3 >= sizeof(c.ca_path)) {
        snprintf(err, err_size, "API server address or service-account path too long");
        return -1;
    }
    *cfg = c;
    return 0;
}

#ifdef HIPWIRE_HAVE_CURL
#include <curl/curl.h>

/* Reads the token file, without surrounding whitespace. */
static char *read_token(const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "service-account token %s: cannot open", path);
        return NULL;
    }
    char *tok = hw_calloc(1, 16384);
    size_t n = tok ? fread(tok, 1, 16383, f) : 0;
    fclose(f);
    if (!tok)
        return NULL;
    while (n && (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' '))
        tok[--n] = '\0';
    if (n == 0 || strpbrk(tok, "\r\n")) {
        snprintf(err, err_size, "service-account token %s is empty or malformed", path);
        free(tok);
        return NULL;
    }
    return tok;
}

/* The response body, kept short: only its message goes into an error. */
struct body {
    char buf[2048];
    size_t len;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
    struct body *b = user;
    size_t n = size * nmemb, room = sizeof(b->buf) - 1 - b->len;
    memcpy(b->buf + b->len, data, n < room ? n : room);
    b->len += n < room ? n : room;
    b->buf[b->len] = '\0';
    return n;
}

/* The "message" of a Kubernetes Status object, or the body's start. */
static void status_message(const char *body, char *out, size_t size)
{
    const char *m = strstr(body, "\"message\":");
    if (m) {
        m += strlen("\"message\":");
        while (*m == ' ')
            m++;
        if (*m == '"') {
            /* A JSON string: copy it, undoing the simple escapes. */
            size_t n = 0;
            for (m++; *m && *m != '"' && n + 1 < size; m++) {
                if (*m == '\\' && m[1])
                    m++;
                out[n++] = *m;
            }
            out[n] = '\0';
            return;
        }
    }
    snprintf(out, size, "%.200s", body);
}

int k8s_patch_node_labels(const k8s_incluster *cfg, const char *node, const char *const *keys,
                          const char *const *values, size_t count, char *err, size_t err_size)
{
    int rc = -1;
    char *token = NULL, *patch = NULL, *auth = NULL;
    size_t patch_len = 0;
    CURL *curl = NULL;
    bool global = false;
    struct curl_slist *headers = NULL;
    struct body *resp = hw_calloc(1, sizeof(*resp));
    char url[700];

    if (!resp) {
        snprintf(err, err_size, "out of memory");
        goto out;
    }
    token = read_token(cfg->token_path, err, err_size);
    if (!token)
        goto out;
    /* {"metadata":{"labels":{...}}}: a JSON merge patch touches these keys only. */
    FILE *mem = open_memstream(&patch, &patch_len);
    if (!mem) {
        snprintf(err, err_size, "out of memory");
        goto out;
    }
    json_writer w;
    jw_init(&w, mem);
    jw_object_begin(&w);
    jw_key(&w, "metadata");
    jw_object_begin(&w);
    jw_key(&w, "labels");
    jw_object_begin(&w);
    for (size_t i = 0; i < count; i++) {
        jw_key(&w, keys[i]);
        jw_string(&w, values[i]);
    }
    jw_object_end(&w);
    jw_object_end(&w);
    jw_object_end(&w);
    jw_finish(&w);
    if (fclose(mem) != 0 || !patch) {
        snprintf(err, err_size, "out of memory");
        goto out;
    }
    snprintf(url, sizeof(url), "%s/api/v1/nodes/%s", cfg->server, node);
    size_t alen = strlen(token) + sizeof("Authorization: Bearer ");
    auth = hw_malloc(alen);
    if (!auth) {
        snprintf(err, err_size, "out of memory");
        goto out;
    }
    snprintf(auth, alen, "Authorization: Bearer %s", token);

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, err_size, "libcurl failed to initialise");
        goto out;
    }
    global = true;
    if (!(curl = curl_easy_init())) {
        snprintf(err, err_size, "libcurl failed to initialise");
        goto out;
    }
    struct curl_slist *h = curl_slist_append(NULL, auth);
    if (h) {
        headers = h;
        h = curl_slist_append(headers, "Content-Type: application/merge-patch+json");
    }
    if (h)
        h = curl_slist_append(headers, "Accept: application/json");
    if (!h) {
        snprintf(err, err_size, "out of memory");
        goto out;
    }
    char curl_err[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PATCH");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, patch);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)patch_len);
    curl_easy_setopt(curl, CURLOPT_CAINFO, cfg->ca_path);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_err);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, resp);
    CURLcode cc = curl_easy_perform(curl);
    if (cc != CURLE_OK) {
        snprintf(err, err_size, "PATCH %s: %s", url,
                 curl_err[0] ? curl_err : curl_easy_strerror(cc));
        goto out;
    }
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        char msg[300];
        status_message(resp->buf, msg, sizeof(msg));
        snprintf(err, err_size, "PATCH %s: HTTP %ld: %s%s", url, status, msg,
                 status == 401 || status == 403
                     ? " (the pod's service account needs get and patch on nodes: the chart's "
                       "ClusterRole)"
                     : "");
        goto out;
    }
    rc = 0;
out:
    if (curl)
        curl_easy_cleanup(curl);
    curl_slist_free_all(headers);
    if (global)
        curl_global_cleanup();
    free(auth);
    free(patch);
    if (token) {
        memset(token, 0, strlen(token));
        free(token);
    }
    free(resp);
    return rc;
}
#else
int k8s_patch_node_labels(const k8s_incluster *cfg, const char *node, const char *const *keys,
                          const char *const *values, size_t count, char *err, size_t err_size)
{
    snprintf(err, err_size,
             "hipwire was built without libcurl: no Kubernetes API calls "
             "(install libcurl4-openssl-dev and rebuild, or use --kubectl)");
    return -1;
}
#endif
