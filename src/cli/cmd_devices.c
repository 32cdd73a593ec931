/*
 * cmd_devices.c - `hipwire devices`: the AMD provider's view of this node
 * (one row per physical GPU, its partitions, live metrics), from the same
 * hipwire_amdgpu reader libaccelerator_amd.so uses.
 *
 *   hipwire devices [--json] [--watch [SECONDS]]
 */
#include "amdgpu.h"
#include "commands.h"
#include "json_writer.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hipwire devices [--json] [--watch [SECONDS]]\n"
               "  Lists the AMD GPUs of this node as the hipwire provider "
               "reports them.\n"
               "  --json     machine-readable output\n"
               "  --watch N  repeat the metrics every N seconds (default 2); with --json,\n"
               "             one JSON document per line (NDJSON)\n"
               "  HIPWIRE_HOST_ROOT prefixes every /sys path.\n");
}

#define GIB 1073741824.0 /* every size the CLI prints is in GiB */

/* no libm: the CLI links none */
static long long rounded(double v)
{
    return v < 0 ? -(long long)(-v + 0.5) : (long long)(v + 0.5);
}

static void print_json(const amdgpu_system_t *sys, int ndjson)
{
    json_writer w;
    char hive[24];

    if (ndjson)
        jw_init_compact(&w, stdout);
    else
        jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_key(&w, "driver_version");
    jw_string(&w, sys->driver_version);
    jw_key(&w, "gpus");
    jw_array_begin(&w);
    for (uint32_t i = 0; i < sys->gpu_count; i++) {
        const amdgpu_gpu_t *g = &sys->gpus[i];
        amdgpu_metrics_t m;
        int have = amdgpu_metrics_read(g, &m, NULL, 0) == 0;

        jw_object_begin(&w);
        jw_key(&w, "index");
        jw_uint(&w, g->index);
        jw_key(&w, "uuid");
        jw_string(&w, g->uuid);
        jw_key(&w, "bdf");
        jw_string(&w, g->bdf);
        jw_key(&w, "model");
        jw_string(&w, g->model);
        jw_key(&w, "gfx_target");
        jw_string(&w, g->gfx_target);
        jw_key(&w, "compute_units");
        jw_uint(&w, g->compute_units);
        jw_key(&w, "vram_bytes");
        jw_uint(&w, g->vram_bytes);
        jw_key(&w, "numa_node");
        jw_int(&w, g->numa_node);
        jw_key(&w, "pcie_gen");
        jw_uint(&w, g->pcie_gen);
        jw_key(&w, "pcie_width");
        jw_uint(&w, g->pcie_width);
        jw_key(&w, "max_tflops_fp16");
        jw_uint(&w, (unsigned long long)rounded(amdgpu_peak_tflops(
                        g->gfx_target_version, g->compute_units, g->max_engine_clk_mhz)));
        jw_key(&w, "compute_partition");
        jw_string(&w, g->compute_partition);
        jw_key(&w, "memory_partition");
        jw_string(&w, g->memory_partition);
        /* 64-bit ids are strings: JSON numbers lose bits past 2^53 */
        snprintf(hive, sizeof(hive), "0x%016" PRIx64, g->hive_id);
        jw_key(&w, "xgmi_hive_id");
        g->hive_id ? jw_string(&w, hive) : jw_null(&w);
        jw_key(&w, "partitions");
        jw_array_begin(&w);
        for (uint32_t p = 0; p < g->partition_count; p++) {
            const amdgpu_partition_t *part = &g->partitions[p];
            jw_object_begin(&w);
            jw_key(&w, "uuid");
            jw_string(&w, part->uuid);
            jw_key(&w, "kfd_node");
            jw_uint(&w, part->kfd_node);
            jw_key(&w, "render_minor");
            jw_int(&w, part->render_minor);
            jw_key(&w, "compute_units");
            jw_uint(&w, part->compute_units);
            jw_key(&w, "vram_bytes");
            jw_uint(&w, part->vram_bytes);
            jw_object_end(&w);
        }
        jw_array_end(&w);
        jw_key(&w, "metrics");
        if (!have) {
            jw_null(&w);
        } else {
            jw_object_begin(&w);
            jw_key(&w, "power_watts");
            m.have_power ? jw_int(&w, rounded(m.power_watts)) : jw_null(&w);
            jw_key(&w, "temperature_junction_c");
            m.have_temp_junction ? jw_int(&w, rounded(m.temp_junction_c)) : jw_null(&w);
            jw_key(&w, "temperature_edge_c");
            m.have_temp_edge ? jw_int(&w, rounded(m.temp_edge_c)) : jw_null(&w);
            jw_key(&w, "busy_percent");
            jw_uint(&w, m.busy_percent);
            jw_key(&w, "vram_used_bytes");
            jw_uint(&w, m.vram_used_bytes);
            jw_object_end(&w);
        }
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_object_end(&w);
    jw_finish(&w);
}

static void print_table(const amdgpu_system_t *sys)
{
    printf("%-3s %-25s %-13s %-8s %5s %8s %4s %-9s %6s %6s %5s %9s\n", "GPU", "UUID", "BDF",
           "MODEL", "CUS", "VRAM_GIB", "NUMA", "PARTITION", "PARTS", "POWER", "TEMP", "USED_GIB");
    for (uint32_t i = 0; i < sys->gpu_count; i++) {
        const amdgpu_gpu_t *g = &sys->gpus[i];
        amdgpu_metrics_t m;
        char mode[20], power[16] = "-", temp[16] = "-", used[16] = "-";

        if (amdgpu_metrics_read(g, &m, NULL, 0) == 0) {
            if (m.have_power)
                snprintf(power, sizeof(power), "%.0fW", m.power_watts);
            if (m.have_temp_edge || m.have_temp_junction)
                snprintf(temp, sizeof(temp), "%.0fC",
                         m.have_temp_edge ? m.temp_edge_c : m.temp_junction_c);
            if (m.have_vram)
                snprintf(used, sizeof(used), "%.1f", (double)m.vram_used_bytes / GIB);
        }
        snprintf(mode, sizeof(mode), "%s%s%s", g->compute_partition[0] ? g->compute_partition : "-",
                 g->memory_partition[0] ? "/" : "", g->memory_partition);
        printf("%-3" PRIu32 " %-25s %-13s %-8s %5" PRIu32 " %8.1f %4d %-9s "
               "%6" PRIu32 " %6s %5s %9s\n",
               g->index, g->uuid, g->bdf, g->model, g->compute_units, (double)g->vram_bytes / GIB,
               g->numa_node, mode, g->partition_count, power, temp, used);
    }
    if (sys->gpu_count == 0)
        printf("(no AMD GPUs)\n");
}

int cli_devices(int argc, char **argv)
{
    int json = 0, watch = 0;
    long interval = 2;
    char err[AMDGPU_ERR_LEN];
    amdgpu_system_t *sys = NULL;

    static const struct option opts[] = {
        { "json", no_argument, NULL, 'j' },
        { "watch", optional_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'w': {
            /* "--watch 5" as well as "--watch=5" */
            const char *v = optarg;
            if (v == NULL && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
                v = argv[optind++];
            watch = 1;
            if (v) {
                char *end;
                interval = strtol(v, &end, 10);
                if (*end != '\0' || interval < 1 || interval > 3600) {
                    fprintf(stderr, "hipwire devices: --watch wants 1..3600 seconds, got '%s'\n",
                            v);
                    return CLI_EXIT_USAGE;
                }
            }
            break;
        }
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hipwire devices: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (amdgpu_system_load(&sys, err, sizeof(err)) != 0) {
        fprintf(stderr, "hipwire devices: %s\n", err);
        return CLI_EXIT_FAILURE;
    }
    for (;;) {
        if (json)
            print_json(sys, watch);
        else
            print_table(sys);
        if (!watch)
            break;
        fflush(stdout);
        sleep((unsigned)interval);
        if (!json)
            printf("\n");
    }
    amdgpu_system_free(sys);
    return CLI_EXIT_OK;
}
