/*
 * process.c - per-process device memory from /sys/class/kfd/kfd/proc.
 *
 * kfd_process.c creates proc/<pid>/vram_<gpu_id> (bytes) for every process
 * that opened /dev/kfd, with host-namespace pids, and on newer kernels
 * proc/<pid>/stats_<gpu_id>/cu_occupancy.
 */
#include "amdgpu.h"
#include "parse.h"
#include "sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lookup_gpu_id(const amdgpu_system_t *sys, uint32_t gpu_id, uint32_t *gpu_index,
                         uint32_t *partition_index)
{
    if (gpu_id == 0)
        return -1;
    for (uint32_t i = 0; i < sys->gpu_count; i++)
        for (uint32_t p = 0; p < sys->gpus[i].partition_count; p++)
            if (sys->gpus[i].partitions[p].gpu_id == gpu_id) {
                *gpu_index = i;
                *partition_index = p;
                return 0;
            }
    return -1;
}

static int parse_pid(const char *s, pid_t *out)
{
    uint64_t v;
    if (parse_u64(s, strlen(s), &v) != 0 || v == 0 || v > INT32_MAX)
        return -1;
    *out = (pid_t)v;
    return 0;
}

/* Add the entries of one proc/<pid> directory. */
static void read_pid_dir(const amdgpu_system_t *sys, const char *dir, pid_t pid,
                         amdgpu_process_t *procs, size_t max, size_t *n)
{
    struct dirent *de;
    DIR *d = opendir(dir);

    if (d == NULL)
        return; /* the process exited meanwhile */
    while ((de = readdir(d)) != NULL && *n < max) {
        amdgpu_process_t e;
        uint64_t id, bytes, occ;
        char stats[96];

        if (strncmp(de->d_name, "vram_", 5) != 0)
            continue;
        if (parse_u64(de->d_name + 5, strlen(de->d_name + 5), &id) != 0 || id > UINT32_MAX)
            continue;
        memset(&e, 0, sizeof(e));
        e.pid = pid;
        e.gpu_id = (uint32_t)id;
        if (lookup_gpu_id(sys, e.gpu_id, &e.gpu_index, &e.partition_index))
            continue;
        if (sysfs_read_u64(dir, de->d_name, &bytes) != 0)
            continue;
        e.vram_bytes = bytes;
        e.cu_occupancy = -1;
        snprintf(stats, sizeof(stats), "stats_%" PRIu32 "/cu_occupancy", e.gpu_id);
        if (sysfs_read_u64(dir, stats, &occ) == 0 && occ <= INT32_MAX)
            e.cu_occupancy = (int32_t)occ;
        procs[(*n)++] = e;
    }
    closedir(d);
}

int amdgpu_processes_read(const amdgpu_system_t *sys, amdgpu_process_t *procs, size_t max,
                          size_t *count, char *err, size_t errlen)
{
    char root[AMDGPU_PATH_LEN];
    struct dirent *de;
    size_t n = 0;
    DIR *d;

    if (sys == NULL || count == NULL || (procs == NULL && max > 0)) {
        sysfs_set_error(err, errlen, "amdgpu_processes_read: NULL argument");
        return -1;
    }
    if (amdgpu_host_path(root, sizeof(root), "/sys/class/kfd/kfd/proc") != 0) {
        sysfs_set_error(err, errlen, "HIPWIRE_HOST_ROOT is too long");
        return -1;
    }
    d = opendir(root);
    if (d == NULL) {
        if (errno == ENOENT) {
            *count = 0;
            return 0;
        }
        sysfs_set_error(err, errlen, "%s: %s", root, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL && n < max) {
        char dir[AMDGPU_PATH_LEN + 32];
        pid_t pid;
        if (parse_pid(de->d_name, &pid) != 0)
            continue;
        if (sysfs_join(dir, sizeof(dir), root, de->d_name) != 0)
            continue;
        read_pid_dir(sys, dir, pid, procs, max, &n);
    }
    closedir(d);
    *count = n;
    return 0;
}
