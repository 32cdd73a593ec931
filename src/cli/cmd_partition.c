/* `hipwire partition show|set|reset`: MI300-class compute (SPX..CPX) and
 * memory (NPS1..) partition modes through the driver's sysfs files.
 *
 * Every request is validated for every target GPU before the first write,
 * so a refused request leaves all GPUs as they were. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amdgpu_adapter.h"
#include "commands.h"
#include "ext_command.h"
#include "host_fs.h"
#include "json_writer.h"
#include "partition_rules.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: hipwire partition show [--json]\n"
                 "       hipwire partition set --compute SPX|DPX|QPX|CPX [--memory NPS1|NPS4]\n"
                 "                             [--gpu N|BDF|all] [--force] [--reload-driver]\n"
                 "       hipwire partition reset [--gpu N|BDF|all] [--force] [--reload-driver]\n"
                 "set/reset need root and an idle GPU (--force skips the busy check).\n"
                 "A memory-mode change takes effect when amdgpu is reloaded (--reload-driver).\n");
}

static void format_gib(uint64_t bytes, char *out, size_t size)
{
    if (!bytes)
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%.1fG", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

static int show(const amdgpu_system_t *sys, bool json)
{
    json_writer w;
    if (json) {
        jw_init(&w, stdout);
        jw_object_begin(&w);
        jw_key(&w, "gpus");
        jw_array_begin(&w);
    }
    for (uint32_t g = 0; g < sys->gpu_count; g++) {
        const amdgpu_gpu_t *gpu = &sys->gpus[g];
        const char *cm = gpu->compute_partition[0] ? gpu->compute_partition : "-";
        const char *mm = gpu->memory_partition[0] ? gpu->memory_partition : "-";
        if (json) {
            jw_object_begin(&w);
            jw_key(&w, "index");
            jw_uint(&w, g);
            jw_key(&w, "bdf");
            jw_string(&w, gpu->bdf);
            jw_key(&w, "model");
            jw_string(&w, amd_model_or_unknown(gpu->device_id));
            jw_key(&w, "compute_partition");
            jw_string(&w, gpu->compute_partition[0] ? cm : NULL);
            jw_key(&w, "memory_partition");
            jw_string(&w, gpu->memory_partition[0] ? mm : NULL);
            jw_key(&w, "available_compute_partitions");
            jw_string(&w, gpu->available_compute_partitions);
            jw_key(&w, "available_memory_partitions");
            jw_string(&w, gpu->available_memory_partitions);
            jw_key(&w, "logical_devices");
            jw_array_begin(&w);
        } else {
            printf("GPU %u  %s  %s  compute %s (available: %s)  memory %s (available: %s)\n", g,
                   gpu->bdf, amd_model_or_unknown(gpu->device_id), cm,
                   gpu->available_compute_partitions[0] ? gpu->available_compute_partitions : "-",
                   mm,
                   gpu->available_memory_partitions[0] ? gpu->available_memory_partitions : "-");
            printf("  %-4s %-22s %-5s %-8s %s\n", "dev", "ROCR_VISIBLE_DEVICES", "CUs", "memory",
                   "render node");
        }
        for (uint32_t p = 0; p < gpu->partition_count; p++) {
            const amdgpu_partition_t *part = &gpu->partitions[p];
            int rocr = amd_rocr_index(sys, part->kfd_node);
            char mem[32], render[48];
            format_gib(part->vram_bytes, mem, sizeof(mem));
            if (part->render_minor >= 0)
                snprintf(render, sizeof(render), "/dev/dri/renderD%d", part->render_minor);
            else
                snprintf(render, sizeof(render), "-");
            if (json) {
                jw_object_begin(&w);
                jw_key(&w, "index");
                jw_uint(&w, part->index);
                jw_key(&w, "rocr_visible_devices");
                jw_int(&w, rocr);
                jw_key(&w, "compute_units");
                jw_uint(&w, part->compute_units);
                jw_key(&w, "vram_bytes");
                jw_uint(&w, part->vram_bytes);
                jw_key(&w, "render_node");
                jw_string(&w, part->render_minor >= 0 ? render : NULL);
                jw_key(&w, "kfd_node");
                jw_uint(&w, part->kfd_node);
                jw_object_end(&w);
            } else {
                printf("  %-4u %-22d %-5u %-8s %s\n", part->index, rocr, part->compute_units, mem,
                       render);
            }
        }
        if (json) {
            jw_array_end(&w);
            jw_object_end(&w);
        }
    }
    if (json) {
        jw_array_end(&w);
        jw_object_end(&w);
        jw_finish(&w);
    } else if (sys->gpu_count == 0) {
        printf("no AMD GPU in the KFD topology\n");
    }
    return CLI_EXIT_OK;
}

typedef struct set_request {
    char compute[8];
    char memory[8];  /* "" = keep */
    const char *gpu; /* NULL or "all" = every GPU */
    bool force, reload;
} set_request;

static int select_targets(const amdgpu_system_t *sys, const char *which,
                          bool targets[AMDGPU_MAX_GPUS])
{
    memset(targets, 0, AMDGPU_MAX_GPUS * sizeof(bool));
    if (!which || strcmp(which, "all") == 0) {
        for (uint32_t g = 0; g < sys->gpu_count; g++)
            targets[g] = true;
        return sys->gpu_count ? 0 : -1;
    }
    for (uint32_t g = 0; g < sys->gpu_count; g++) {
        if (strcasecmp(sys->gpus[g].bdf, which) == 0) {
            targets[g] = true;
            return 0;
        }
    }
    char *end;
    errno = 0;
    unsigned long idx = strtoul(which, &end, 10);
    if (errno || end == which || *end || idx >= sys->gpu_count)
        return -1;
    targets[idx] = true;
    return 0;
}

/* Validates one GPU; fills err. */
static int validate_gpu(const amdgpu_gpu_t *gpu, const set_request *rq, bool busy, char *err,
                        size_t size)
{
    char path[AMDGPU_PATH_LEN + 64];
    if (amd_device_is_vf(gpu->device_id)) {
        snprintf(err, size, "an SR-IOV VF: its partition mode is set on the host (GIM)");
        return -1;
    }
    if (!gpu->compute_partition[0] ||
        amdgpu_partition_file_path(gpu, AMDGPU_CURRENT_COMPUTE_PARTITION, path, sizeof(path)) !=
            0) {
        snprintf(err, size, "no compute partition support");
        return -1;
    }
    const char *memory = rq->memory[0] ? rq->memory : gpu->memory_partition;
    if (rq->memory[0] && !gpu->memory_partition[0]) {
        snprintf(err, size, "no memory partition support");
        return -1;
    }
    if (partition_check_combination(rq->compute, memory, gpu->available_compute_partitions,
                                    gpu->available_memory_partitions, gpu->gfx_target_version,
                                    amd_gpu_xcc_count(gpu), err, size) != 0)
        return -1;
    if (busy && !rq->force) {
        snprintf(err, size, "in use by KFD processes (stop them, or --force)");
        return -1;
    }
    /* Not root, or read-only sysfs: refuse before any GPU is touched. */
    if (access(path, W_OK) != 0) {
        snprintf(err, size, "cannot write %s: %s%s", path, strerror(errno),
                 errno == EACCES || errno == EPERM || errno == EROFS ? " (run as root)" : "");
        return -1;
    }
    if (rq->memory[0] && strcmp(rq->memory, gpu->memory_partition) != 0) {
        if (amdgpu_partition_file_path(gpu, AMDGPU_CURRENT_MEMORY_PARTITION, path, sizeof(path)) !=
                0 ||
            access(path, W_OK) != 0) {
            snprintf(err, size, "cannot write the memory partition file (run as root)");
            return -1;
        }
    }
    return 0;
}

static int write_mode(const amdgpu_gpu_t *gpu, amdgpu_partition_file_t which, const char *mode)
{
    char path[AMDGPU_PATH_LEN + 64];
    if (amdgpu_partition_file_path(gpu, which, path, sizeof(path)) != 0)
        return -1;
    if (write_attribute(path, mode) != 0) {
        fprintf(stderr, "hipwire: GPU %s: writing %s to %s: %s\n", gpu->bdf, mode, path,
                strerror(errno));
        return -1;
    }
    printf("GPU %u %s: wrote %s to %s\n", gpu->index, gpu->bdf, mode, path);
    return 0;
}

static int reload_driver(void)
{
    static const char *const unload[] = { "modprobe", "-r", "amdgpu", NULL };
    static const char *const load[] = { "modprobe", "amdgpu", NULL };
    fputs("reloading amdgpu: ", stdout);
    ext_command_print(stdout, unload);
    if (ext_command_run(unload) != 0)
        return -1;
    fputs("reloading amdgpu: ", stdout);
    ext_command_print(stdout, load);
    return ext_command_run(load) == 0 ? 0 : -1;
}

static int set_modes(amdgpu_system_t *sys, const set_request *rq)
{
    bool targets[AMDGPU_MAX_GPUS], busy[AMDGPU_MAX_GPUS];
    char err[1024];
    if (select_targets(sys, rq->gpu, targets) < 0) {
        fprintf(stderr, "hipwire: no GPU '%s' (have %u; use an index, a BDF or all)\n",
                rq->gpu ? rq->gpu : "all", sys->gpu_count);
        return CLI_EXIT_USAGE;
    }
    if (host_root_is_real() && geteuid() != 0) {
        fprintf(stderr, "hipwire: changing partition modes needs root\n");
        return CLI_EXIT_FAILURE;
    }
    if (amd_busy_gpus(sys, busy, err, sizeof(err)) < 0) {
        fprintf(stderr, "hipwire: cannot list KFD processes: %s\n", err);
        return CLI_EXIT_FAILURE;
    }
    int refused = 0;
    for (uint32_t g = 0; g < sys->gpu_count; g++) {
        if (!targets[g])
            continue;
        if (validate_gpu(&sys->gpus[g], rq, busy[g], err, sizeof(err)) != 0) {
            fprintf(stderr, "hipwire: GPU %u %s: %s\n", g, sys->gpus[g].bdf, err);
            refused++;
        }
    }
    if (refused) {
        fprintf(stderr, "hipwire: nothing was changed\n");
        return CLI_EXIT_FAILURE;
    }

    bool memory_changed = false, deferred = false;
    for (uint32_t g = 0; g < sys->gpu_count; g++) {
        amdgpu_gpu_t *gpu = &sys->gpus[g];
        if (!targets[g])
            continue;
        if (rq->memory[0] && strcmp(rq->memory, gpu->memory_partition) != 0) {
            if (write_mode(gpu, AMDGPU_CURRENT_MEMORY_PARTITION, rq->memory) != 0)
                return CLI_EXIT_FAILURE;
            memory_changed = true;
        }
        if (strcmp(rq->compute, gpu->compute_partition) == 0) {
            printf("GPU %u %s: compute already %s\n", g, gpu->bdf, rq->compute);
            continue;
        }
        /* The driver rejects a compute mode the active memory mode cannot
         * hold (SPX under NPS4); it has to wait for the reload. */
        if (partition_memory_count(gpu->memory_partition) >
            partition_compute_count(rq->compute, amd_gpu_xcc_count(gpu))) {
            deferred = true;
            continue;
        }
        if (write_mode(gpu, AMDGPU_CURRENT_COMPUTE_PARTITION, rq->compute) != 0)
            return CLI_EXIT_FAILURE;
    }
    if (memory_changed && !rq->reload) {
        printf("memory mode %s takes effect when amdgpu is reloaded: stop GPU processes, then run\n"
               "  modprobe -r amdgpu && modprobe amdgpu\n(or rerun with --reload-driver)\n",
               rq->memory);
        if (deferred)
            printf(
                "then run 'hipwire partition set --compute %s' again: it cannot be set under the "
                "current memory mode\n",
                rq->compute);
        return CLI_EXIT_OK;
    }
    if (memory_changed && rq->reload) {
        if (reload_driver() != 0) {
            fprintf(stderr, "hipwire: reloading amdgpu failed; check dmesg\n");
            return CLI_EXIT_FAILURE;
        }
        for (uint32_t g = 0; g < sys->gpu_count; g++) {
            amdgpu_gpu_t *gpu = &sys->gpus[g];
            if (!targets[g])
                continue;
            char cm[8], mm[8];
            if (amdgpu_partition_modes_read(gpu, cm, mm, err, sizeof(err)) != 0) {
                fprintf(stderr, "hipwire: GPU %u after reload: %s\n", g, err);
                return CLI_EXIT_FAILURE;
            }
            if (strcmp(cm, rq->compute) != 0 &&
                write_mode(gpu, AMDGPU_CURRENT_COMPUTE_PARTITION, rq->compute) != 0)
                return CLI_EXIT_FAILURE;
        }
    }
    for (uint32_t g = 0; g < sys->gpu_count; g++) {
        char cm[8], mm[8];
        if (!targets[g])
            continue;
        if (amdgpu_partition_modes_read(&sys->gpus[g], cm, mm, err, sizeof(err)) == 0)
            printf("GPU %u %s: now %s/%s\n", g, sys->gpus[g].bdf, cm[0] ? cm : "-",
                   mm[0] ? mm : "-");
    }
    return CLI_EXIT_OK;
}

static int parse_set(int argc, char **argv, bool reset, set_request *rq)
{
    static const struct option longopts[] = {
        { "compute", required_argument, NULL, 'c' },
        { "memory", required_argument, NULL, 'm' },
        { "gpu", required_argument, NULL, 'g' },
        { "force", no_argument, NULL, 'f' },
        { "reload-driver", no_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (reset || partition_compute_mode_parse(optarg, rq->compute) != 0) {
                fprintf(stderr, "hipwire: --compute takes SPX, DPX, TPX, QPX or CPX%s\n",
                        reset ? " (and not with reset)" : "");
                return -1;
            }
            break;
        case 'm':
            if (reset || partition_memory_mode_parse(optarg, rq->memory) != 0) {
                fprintf(stderr, "hipwire: --memory takes NPS1, NPS2, NPS4 or NPS8%s\n",
                        reset ? " (and not with reset)" : "");
                return -1;
            }
            break;
        case 'g': rq->gpu = optarg; break;
        case 'f': rq->force = true; break;
        case 'r': rq->reload = true; break;
        case 'h': usage(stdout); exit(CLI_EXIT_OK);
        default: return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hipwire: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (!reset && !rq->compute[0]) {
        fprintf(stderr, "hipwire: partition set needs --compute\n");
        return -1;
    }
    return 0;
}

int cli_partition(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    bool is_show = strcmp(sub, "show") == 0, is_set = strcmp(sub, "set") == 0,
         is_reset = strcmp(sub, "reset") == 0;
    if (!is_show && !is_set && !is_reset) {
        fprintf(stderr, "hipwire: partition: unknown subcommand '%s'\n", sub);
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    set_request rq;
    memset(&rq, 0, sizeof(rq));
    bool json = false;
    if (is_show) {
        static const struct option showopts[] = {
            { "json", no_argument, NULL, 'j' },
            { "help", no_argument, NULL, 'h' },
            { NULL, 0, NULL, 0 },
        };
        int c;
        optind = 0;
        while ((c = getopt_long(argc - 1, argv + 1, "h", showopts, NULL)) != -1) {
            if (c == 'j') {
                json = true;
            } else if (c == 'h') {
                usage(stdout);
                return CLI_EXIT_OK;
            } else {
                usage(stderr);
                return CLI_EXIT_USAGE;
            }
        }
        if (optind < argc - 1) {
            usage(stderr);
            return CLI_EXIT_USAGE;
        }
    } else if (parse_set(argc - 1, argv + 1, is_reset, &rq) != 0) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }

    char err[AMDGPU_ERR_LEN];
    amdgpu_system_t *sys = NULL;
    if (amdgpu_system_load(&sys, err, sizeof(err)) != 0) {
        fprintf(stderr, "hipwire: %s\n", err);
        return CLI_EXIT_FAILURE;
    }
    int rc;
    if (is_show) {
        rc = show(sys, json);
    } else {
        if (is_reset) {
            memcpy(rq.compute, "SPX", 4);
            /* NPS1 only where the GPU has memory modes at all. */
            bool any_memory = false;
            for (uint32_t g = 0; g < sys->gpu_count; g++)
                any_memory |= sys->gpus[g].memory_partition[0] != '\0';
            if (any_memory)
                memcpy(rq.memory, "NPS1", 5);
        }
        rc = set_modes(sys, &rq);
    }
    amdgpu_system_free(sys);
    return rc;
}
