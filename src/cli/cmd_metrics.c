/*
 * cmd_metrics.c - `hipwire metrics`: the provider's GPU metrics under
 * TensorFusion's names (measurement tf_gpu_usage, tags uuid/node/pool, the
 * fields its hypervisor writes), as Prometheus text or InfluxDB line
 * protocol, from the same hipwire_amdgpu reader libaccelerator_amd.so uses.
 *
 *   hipwire metrics [--format prometheus|influx] [--node NAME] [--pool NAME]
 */
#include "amdgpu.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hipwire metrics [--format prometheus|influx] [--node NAME] [--pool NAME]\n"
               "  This node's AMD GPU metrics with TensorFusion's names (tf_gpu_usage).\n"
               "  --format F  prometheus (default) or influx (line protocol)\n"
               "  --node N    the node tag (default: the host name)\n"
               "  --pool P    the pool tag (default: none)\n"
               "  PCIe rx/tx are left out where the host cannot measure them.\n"
               "  HIPWIRE_HOST_ROOT prefixes every /sys path.\n");
}

typedef struct field {
    const char *name;
    double value;
    int integer;
} field;

/* Fields in TensorFusion's order; returns how many are known. */
static size_t gpu_fields(const amdgpu_gpu_t *g, const amdgpu_metrics_t *m, field *out)
{
    size_t n = 0;
    double tflops =
        amdgpu_peak_tflops(g->gfx_target_version, g->compute_units, g->max_engine_clk_mhz);

    /* rx/tx: pcie_bw blocks 1 s in the kernel, so they are unknown here -
     * left out rather than reported as 0 */
    if (m->have_temp_edge || m->have_temp_junction)
        out[n++] =
            (field){ "temperature", m->have_temp_edge ? m->temp_edge_c : m->temp_junction_c, 0 };
    if (m->have_vram) {
        out[n++] = (field){ "memory_bytes", (double)m->vram_used_bytes, 1 };
        if (m->vram_total_bytes)
            out[n++] =
                (field){ "memory_percentage",
                         100.0 * (double)m->vram_used_bytes / (double)m->vram_total_bytes, 0 };
    }
    if (m->have_busy) {
        out[n++] = (field){ "compute_percentage", m->busy_percent, 0 };
        out[n++] = (field){ "compute_tflops", tflops * m->busy_percent / 100.0, 0 };
    }
    if (m->have_power)
        out[n++] = (field){ "power_usage", m->power_watts, 0 };
    if (m->sclk_mhz > 0)
        out[n++] = (field){ "graphics_clock_mhz", m->sclk_mhz, 0 };
    if (m->mclk_mhz > 0)
        out[n++] = (field){ "memory_clock_mhz", m->mclk_mhz, 0 };
    return n;
}

/* Line protocol tag values escape commas, spaces and equals signs. */
static void influx_tag(const char *key, const char *v)
{
    if (v == NULL || v[0] == '\0')
        return;
    printf(",%s=", key);
    for (; *v; v++) {
        if (*v == ',' || *v == ' ' || *v == '=')
            putchar('\\');
        putchar(*v);
    }
}

/* Prometheus label values escape backslashes, quotes and newlines. */
static void prom_label(const char *key, const char *v, int first)
{
    printf("%s%s=\"", first ? "" : ",", key);
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            putchar('\\');
        if (*v == '\n')
            fputs("\\n", stdout);
        else
            putchar(*v);
    }
    putchar('"');
}

int cli_metrics(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "node", required_argument, NULL, 'n' },
        { "pool", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *node = NULL, *pool = "";
    char host[256];
    int influx = 0, c;
    char err[AMDGPU_ERR_LEN];
    amdgpu_system_t *sys = NULL;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "influx") == 0) {
                influx = 1;
            } else if (strcmp(optarg, "prometheus") != 0) {
                fprintf(stderr, "hipwire metrics: --format is prometheus or influx, not '%s'\n",
                        optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case 'n': node = optarg; break;
        case 'p': pool = optarg; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hipwire metrics: unexpected argument '%s'\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (node == NULL) {
        if (gethostname(host, sizeof host) != 0)
            host[0] = '\0';
        host[sizeof host - 1] = '\0';
        node = host;
    }
    if (amdgpu_system_load(&sys, err, sizeof(err)) != 0) {
        fprintf(stderr, "hipwire metrics: %s\n", err);
        return CLI_EXIT_FAILURE;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long ts = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
    field f[16];
    /* Prometheus: one family per field, each with its HELP/TYPE once */
    static const char *const names[] = {
        "temperature",    "memory_bytes", "memory_percentage",  "compute_percentage",
        "compute_tflops", "power_usage",  "graphics_clock_mhz", "memory_clock_mhz",
    };
    if (influx) {
        for (uint32_t i = 0; i < sys->gpu_count; i++) {
            amdgpu_metrics_t m;
            if (amdgpu_metrics_read(&sys->gpus[i], &m, NULL, 0) != 0)
                continue;
            size_t n = gpu_fields(&sys->gpus[i], &m, f);
            if (n == 0)
                continue;
            printf("tf_gpu_usage");
            influx_tag("node", node);
            influx_tag("pool", pool);
            influx_tag("uuid", sys->gpus[i].uuid);
            for (size_t k = 0; k < n; k++) {
                if (f[k].integer)
                    printf("%c%s=%lldi", k ? ',' : ' ', f[k].name, (long long)f[k].value);
                else
                    printf("%c%s=%.6g", k ? ',' : ' ', f[k].name, f[k].value);
            }
            printf(" %lld\n", ts);
        }
    } else {
        for (size_t nm = 0; nm < sizeof names / sizeof *names; nm++) {
            int header = 0;
            for (uint32_t i = 0; i < sys->gpu_count; i++) {
                amdgpu_metrics_t m;
                if (amdgpu_metrics_read(&sys->gpus[i], &m, NULL, 0) != 0)
                    continue;
                size_t n = gpu_fields(&sys->gpus[i], &m, f);
                for (size_t k = 0; k < n; k++) {
                    if (strcmp(f[k].name, names[nm]) != 0)
                        continue;
                    if (!header)
                        printf("# TYPE tf_gpu_usage_%s gauge\n", names[nm]);
                    header = 1;
                    printf("tf_gpu_usage_%s{", names[nm]);
                    prom_label("uuid", sys->gpus[i].uuid, 1);
                    prom_label("node", node, 0);
                    prom_label("pool", pool, 0);
                    if (f[k].integer)
                        printf("} %lld\n", (long long)f[k].value);
                    else
                        printf("} %.6g\n", f[k].value);
                }
            }
        }
    }
    amdgpu_system_free(sys);
    return CLI_EXIT_OK;
}
