/* `hipwire node labels`: the Kubernetes labels of this node, named as AMD's
 * node labeller names them (amd.com/gpu.<property>), plus the NFD label the
 * AMD GPU operator selects on, the plain gpu=true / amd.com/gpu=true, and
 * amdgpu.com/gpu.present=true, which hipwire's Helm chart selects its worker
 * nodes by (deploy/helm/hipwire).
 *
 * Per-GPU properties (product-name, device-id, family, vram) count physical
 * GPUs; cu-count and simd-count describe one logical device, which is what a
 * pod that asks for amd.com/gpu gets. A property with several values on one
 * node becomes amd.com/gpu.<property>.<value>=<count>, as the labeller does. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "amdgpu_adapter.h"
#include "commands.h"
#include "ext_command.h"
#include "json_writer.h"
#include "k8s_api.h"
#include "k8s_label.h"
#include "node.h"
#include "pci_scan.h"

#define MAX_LABELS 128
#define MAX_VALUES 16

typedef struct label {
    char key[128];
    char value[K8S_LABEL_VALUE_MAX + 1];
} label;

typedef struct label_set {
    label items[MAX_LABELS];
    size_t count;
} label_set;

/* Distinct values of one property with their counts. */
typedef struct value_tally {
    char values[MAX_VALUES][K8S_LABEL_VALUE_MAX + 1];
    unsigned counts[MAX_VALUES];
    size_t count;
} value_tally;

static int add_label(label_set *s, const char *key, const char *raw_value)
{
    char value[K8S_LABEL_VALUE_MAX + 1];
    k8s_label_value_sanitize(raw_value, value, sizeof(value));
    if (s->count >= MAX_LABELS || strlen(key) >= sizeof(s->items[0].key) ||
        !k8s_label_key_valid(key) || !k8s_label_value_valid(value)) {
        fprintf(stderr, "hipwire: cannot make a valid label of %s=%s\n", key, raw_value);
        return -1;
    }
    snprintf(s->items[s->count].key, sizeof(s->items[0].key), "%s", key);
    snprintf(s->items[s->count].value, sizeof(s->items[0].value), "%s", value);
    s->count++;
    return 0;
}

static void tally(value_tally *t, const char *raw)
{
    char v[K8S_LABEL_VALUE_MAX + 1];
    k8s_label_value_sanitize(raw, v, sizeof(v));
    for (size_t i = 0; i < t->count; i++) {
        if (strcmp(t->values[i], v) == 0) {
            t->counts[i]++;
            return;
        }
    }
    if (t->count == MAX_VALUES)
        return;
    snprintf(t->values[t->count], sizeof(t->values[0]), "%s", v);
    t->counts[t->count++] = 1;
}

static int emit_tally(label_set *s, const char *property, const value_tally *t)
{
    char key[160], count[16];
    if (t->count == 1) {
        snprintf(key, sizeof(key), "amd.com/gpu.%s", property);
        return add_label(s, key, t->values[0]);
    }
    for (size_t i = 0; i < t->count; i++) {
        /* The value becomes part of the key's name, which has the same
         * 63-character limit: cut it to what is left after "gpu.<property>.". */
        char cut[K8S_LABEL_VALUE_MAX + 1];
        size_t room = K8S_LABEL_VALUE_MAX - strlen("gpu.") - strlen(property) - 1;
        snprintf(cut, sizeof(cut), "%.*s", (int)room, t->values[i]);
        k8s_label_value_sanitize(cut, cut, sizeof(cut));
        snprintf(key, sizeof(key), "amd.com/gpu.%s.%s", property, cut);
        snprintf(count, sizeof(count), "%u", t->counts[i]);
        if (add_label(s, key, count) < 0)
            return -1;
    }
    return 0;
}

/* "192G": VRAM rounded to whole GiB, as the labeller prints it. */
static void format_vram(uint64_t bytes, char *out, size_t size)
{
    const uint64_t gib = 1024ull * 1024 * 1024;
    snprintf(out, size, "%lluG", (unsigned long long)((bytes + gib / 2) / gib));
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp(((const label *)a)->key, ((const label *)b)->key);
}

static int build_labels(const amdgpu_system_t *sys, const pci_function *pci, size_t pci_count,
                        label_set *s)
{
    value_tally product = { 0 }, device = { 0 }, family = { 0 }, vram = { 0 }, cu = { 0 },
                simd = { 0 };
    char buf[128];
    bool all_compute = true, all_memory = true, same_modes = true, any_pf = false, any_vf = false;
    const char *cmode = NULL, *mmode = NULL;

    for (uint32_t g = 0; g < sys->gpu_count; g++) {
        const amdgpu_gpu_t *gpu = &sys->gpus[g];
        tally(&product,
              gpu->product_name[0] ? gpu->product_name : amd_model_or_unknown(gpu->device_id));
        snprintf(buf, sizeof(buf), "%04x", gpu->device_id);
        tally(&device, buf);
        const char *fam = amd_family_name(gpu->gfx_target_version);
        if (fam)
            tally(&family, fam);
        if (gpu->vram_bytes) {
            format_vram(gpu->vram_bytes, buf, sizeof(buf));
            tally(&vram, buf);
        }
        for (uint32_t p = 0; p < gpu->partition_count; p++) {
            snprintf(buf, sizeof(buf), "%u", gpu->partitions[p].compute_units);
            tally(&cu, buf);
            snprintf(buf, sizeof(buf), "%u", gpu->partitions[p].simd_count);
            tally(&simd, buf);
        }
        /* "SPX, DPX" lists more than one mode: the GPU can be repartitioned. */
        all_compute = all_compute && strchr(gpu->available_compute_partitions, ',') != NULL;
        all_memory = all_memory && strchr(gpu->available_memory_partitions, ',') != NULL;
        if (!gpu->compute_partition[0] || !gpu->memory_partition[0]) {
            same_modes = false;
        } else if (!cmode) {
            cmode = gpu->compute_partition;
            mmode = gpu->memory_partition;
        } else if (strcmp(cmode, gpu->compute_partition) || strcmp(mmode, gpu->memory_partition)) {
            same_modes = false;
        }
    }
    for (size_t i = 0; i < pci_count; i++) {
        if (pci[i].vendor_id != PCI_VENDOR_AMD || strcmp(pci[i].driver, "amdgpu") != 0)
            continue;
        if (pci[i].is_vf || amd_device_is_vf(pci[i].device_id))
            any_vf = true;
        else
            any_pf = true;
    }
    if (!any_pf && !any_vf)
        any_pf = true; /* KFD has GPUs the PCI scan could not read */

    char driver[64];
    if (emit_tally(s, "product-name", &product) < 0 || emit_tally(s, "device-id", &device) < 0 ||
        (family.count && emit_tally(s, "family", &family) < 0) ||
        (vram.count && emit_tally(s, "vram", &vram) < 0) || emit_tally(s, "cu-count", &cu) < 0 ||
        emit_tally(s, "simd-count", &simd) < 0)
        return -1;
    if (amdgpu_driver_version(driver, sizeof(driver)) == 0 && driver[0] &&
        add_label(s, "amd.com/gpu.driver-version", driver) < 0)
        return -1;
    if (same_modes && cmode) {
        snprintf(buf, sizeof(buf), "%s_%s", cmode, mmode);
        for (char *p = buf; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        if (add_label(s, "amd.com/gpu.compute-memory-partition", buf) < 0)
            return -1;
    }
    if (add_label(s, "amd.com/gpu.compute-partitioning-supported", all_compute ? "true" : "false") <
            0 ||
        add_label(s, "amd.com/gpu.memory-partitioning-supported", all_memory ? "true" : "false") <
            0 ||
        (any_pf && add_label(s, "feature.node.kubernetes.io/amd-gpu", "true") < 0) ||
        (any_vf && add_label(s, "feature.node.kubernetes.io/amd-vgpu", "true") < 0) ||
        add_label(s, "gpu", "true") < 0 || add_label(s, "amd.com/gpu", "true") < 0 ||
        add_label(s, "amdgpu.com/gpu.present", "true") < 0)
        return -1;
    qsort(s->items, s->count, sizeof(s->items[0]), cmp_label);
    return 0;
}

/* --apply in a pod: one PATCH of the Node's labels (k8s_api.h). */
static int apply_in_cluster(const char *node, const label_set *labels)
{
    k8s_incluster cfg;
    char err[1024];
    const char *keys[MAX_LABELS], *values[MAX_LABELS];
    for (size_t i = 0; i < labels->count; i++) {
        keys[i] = labels->items[i].key;
        values[i] = labels->items[i].value;
    }
    if (k8s_incluster_load(&cfg, err, sizeof(err)) < 0 ||
        k8s_patch_node_labels(&cfg, node, keys, values, labels->count, err, sizeof(err)) < 0) {
        fprintf(stderr, "hipwire: node labels --apply: %s\n", err);
        return CLI_EXIT_FAILURE;
    }
    printf("node %s: %zu labels set through %s\n", node, labels->count, cfg.server);
    return CLI_EXIT_OK;
}

/* Kubernetes node names are DNS subdomains. */
static bool node_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
            return false;
    }
    return name[0] != '-' && name[0] != '.' && name[n - 1] != '-' && name[n - 1] != '.';
}

static void usage(FILE *out)
{
    fprintf(out, "usage: hipwire node labels [--json | --kubectl | --apply] [--node NAME]\n"
                 "Prints key=value lines by default; --kubectl prints the kubectl command.\n"
                 "--apply sets the labels: in a pod (KUBERNETES_SERVICE_HOST set) it PATCHes\n"
                 "the Node through the API server with the pod's service account; elsewhere\n"
                 "it runs the kubectl command. NAME defaults to the host name.\n");
}

int node_labels(int argc, char **argv)
{
    enum { OUT_LINES, OUT_JSON, OUT_KUBECTL, OUT_APPLY } mode = OUT_LINES;
    const char *node = NULL;
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },  { "kubectl", no_argument, NULL, 'k' },
        { "apply", no_argument, NULL, 'a' }, { "node", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },  { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': mode = OUT_JSON; break;
        case 'k': mode = OUT_KUBECTL; break;
        case 'a': mode = OUT_APPLY; break;
        case 'n': node = optarg; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hipwire: node labels: unexpected argument '%s'\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    char hostname[256];
    if (!node) {
        if (gethostname(hostname, sizeof(hostname)) < 0)
            hostname[0] = '\0';
        hostname[sizeof(hostname) - 1] = '\0';
        for (char *p = hostname; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        node = hostname;
    }
    if ((mode == OUT_KUBECTL || mode == OUT_APPLY || mode == OUT_JSON) && !node_name_valid(node)) {
        fprintf(stderr, "hipwire: '%s' is not a valid Kubernetes node name (use --node)\n", node);
        return CLI_EXIT_USAGE;
    }
    if (mode == OUT_APPLY && !k8s_in_cluster() && !ext_command_available("kubectl")) {
        fprintf(stderr,
                "hipwire: kubectl not found: use --kubectl and run the command where kubectl is\n");
        return CLI_EXIT_FAILURE;
    }

    int rc = CLI_EXIT_FAILURE;
    char err[AMDGPU_ERR_LEN], perr[256];
    amdgpu_system_t *sys = NULL;
    pci_function *pci = NULL;
    size_t pci_count = 0;
    label_set *labels = hw_calloc(1, sizeof(*labels));
    const char **argvk = NULL;
    if (!labels)
        goto out;
    if (amdgpu_system_load(&sys, err, sizeof(err)) != 0) {
        fprintf(stderr, "hipwire: %s\n", err);
        goto out;
    }
    if (sys->gpu_count == 0) {
        fprintf(stderr, "hipwire: no AMD GPU in the KFD topology: no labels\n");
        goto out;
    }
    if (pci_scan_gpus(&pci, &pci_count, perr, sizeof(perr)) < 0)
        pci_count = 0; /* VF hint only */
    if (build_labels(sys, pci, pci_count, labels) < 0)
        goto out;

    switch (mode) {
    case OUT_LINES:
        for (size_t i = 0; i < labels->count; i++)
            printf("%s=%s\n", labels->items[i].key, labels->items[i].value);
        rc = CLI_EXIT_OK;
        break;
    case OUT_JSON: {
        json_writer w;
        jw_init(&w, stdout);
        jw_object_begin(&w);
        jw_key(&w, "node");
        jw_string(&w, node);
        jw_key(&w, "labels");
        jw_object_begin(&w);
        for (size_t i = 0; i < labels->count; i++) {
            jw_key(&w, labels->items[i].key);
            jw_string(&w, labels->items[i].value);
        }
        jw_object_end(&w);
        jw_object_end(&w);
        jw_finish(&w);
        rc = CLI_EXIT_OK;
        break;
    }
    case OUT_KUBECTL:
    case OUT_APPLY: {
        if (mode == OUT_APPLY && k8s_in_cluster()) {
            rc = apply_in_cluster(node, labels);
            break;
        }
        char(*pairs)[200] = hw_calloc(labels->count, sizeof(*pairs));
        argvk = hw_calloc(labels->count + 6, sizeof(*argvk));
        if (!pairs || !argvk) {
            free(pairs);
            goto out;
        }
        size_t n = 0;
        argvk[n++] = "kubectl";
        argvk[n++] = "label";
        argvk[n++] = "node";
        argvk[n++] = node;
        argvk[n++] = "--overwrite";
        for (size_t i = 0; i < labels->count; i++) {
            snprintf(pairs[i], sizeof(pairs[i]), "%s=%s", labels->items[i].key,
                     labels->items[i].value);
            argvk[n++] = pairs[i];
        }
        argvk[n] = NULL;
        ext_command_print(stdout, argvk);
        rc = CLI_EXIT_OK;
        if (mode == OUT_APPLY) {
            int st = ext_command_run(argvk);
            if (st != 0) {
                fprintf(stderr, "hipwire: kubectl label failed (status %d)\n", st);
                rc = CLI_EXIT_FAILURE;
            }
        }
        free(pairs);
        break;
    }
    }
out:
    free(argvk);
    free(pci);
    free(labels);
    amdgpu_system_free(sys);
    return rc;
}
