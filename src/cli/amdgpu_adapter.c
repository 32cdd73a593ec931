#include "amdgpu_adapter.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool amd_device_is_vf(uint32_t device_id)
{
    /* The VF entries of amdgpu's model table (src/amdgpu/models.c). */
    static const uint32_t vf_ids[] = { 0x7410, 0x74b5, 0x74b9, 0x75b0, 0x75b3 };
    for (size_t i = 0; i < sizeof(vf_ids) / sizeof(vf_ids[0]); i++)
        if (vf_ids[i] == device_id)
            return true;
    return false;
}

const char *amd_model_or_unknown(uint32_t device_id)
{
    const char *m = amdgpu_model_name(device_id);
    return m ? m : "unknown";
}

const char *amd_family_name(uint32_t gfx_target_version)
{
    switch (gfx_target_version / 10000) {
    case 8: return "VI";
    case 9:
        /* The Raven APUs (gfx902, gfx909, gfx90c); every other gfx9 is AI. */
        if (gfx_target_version == 90002 || gfx_target_version == 90009 ||
            gfx_target_version == 90012)
            return "RV";
        return "AI";
    case 10: return "NV";
    case 11: return "GC_11_0_0";
    case 12: return "GC_12_0_0";
    default: return NULL;
    }
}

int amd_rocr_index(const amdgpu_system_t *sys, uint32_t kfd_node)
{
    int rank = 0;
    bool found = false;
    for (uint32_t g = 0; g < sys->gpu_count; g++) {
        const amdgpu_gpu_t *gpu = &sys->gpus[g];
        for (uint32_t p = 0; p < gpu->partition_count; p++) {
            if (gpu->partitions[p].kfd_node < kfd_node)
                rank++;
            if (gpu->partitions[p].kfd_node == kfd_node)
                found = true;
        }
    }
    return found ? rank : -1;
}

uint32_t amd_gpu_xcc_count(const amdgpu_gpu_t *gpu)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < gpu->partition_count; p++)
        n += gpu->partitions[p].num_xcc ? gpu->partitions[p].num_xcc : 1;
    return n ? n : 1;
}

static bool is_pid(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

int amd_busy_gpus(const amdgpu_system_t *sys, bool busy[AMDGPU_MAX_GPUS], char *err,
                  size_t err_size)
{
    amdgpu_process_t procs[512];
    size_t count = 0;
    if (amdgpu_processes_read(sys, procs, sizeof(procs) / sizeof(procs[0]), &count, err,
                              err_size) != 0)
        return -1;
    bool mark[AMDGPU_MAX_GPUS] = { false };
    for (size_t i = 0; i < count; i++)
        if (procs[i].gpu_index < AMDGPU_MAX_GPUS)
            mark[procs[i].gpu_index] = true;

    /* Processes amdgpu_processes_read could not map still hold the device. */
    char dir[AMDGPU_PATH_LEN];
    int pids = 0;
    bool unmapped = false;
    if (amdgpu_host_path(dir, sizeof(dir), "/sys/class/kfd/kfd/proc") == 0) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (!is_pid(e->d_name))
                continue;
            pids++;
            bool mapped = false;
            for (size_t i = 0; i < count && !mapped; i++)
                mapped = procs[i].pid == (pid_t)atol(e->d_name);
            if (!mapped)
                unmapped = true;
        }
        if (d)
            closedir(d);
    }
    for (uint32_t g = 0; g < AMDGPU_MAX_GPUS; g++)
        busy[g] = mark[g] || (unmapped && g < sys->gpu_count);
    return pids;
}
