/*
 * discovery.c - the bottom of the provider: the one lock, the devices found
 * by the last amdgpu discovery, and discovering them again. Everything
 * above (assignments, device records, metrics, lifecycle) reads them here.
 */
#include "discovery.h"

#include <inttypes.h>

provider_t g_provider = { .lock = PTHREAD_MUTEX_INITIALIZER };

int provider_discover(int refresh)
{
    amdgpu_system_t *sys;
    char err[AMDGPU_ERR_LEN];

    if (g_provider.sys != NULL && !refresh)
        return 0;
    if (amdgpu_system_load(&sys, err, sizeof(err)) != 0) {
        provider_log("ERROR", "AMD GPU discovery failed: %s", err);
        return g_provider.sys != NULL ? 0 : -1;
    }
    for (uint32_t i = 0; i < sys->gpu_count; i++) {
        const amdgpu_gpu_t *g = &sys->gpus[i];
        if (g->mode_partition_count > g->partition_count)
            provider_log("WARN",
                         "GPU %s (%s): %s mode implies %" PRIu32 " partitions but only %" PRIu32
                         " are visible "
                         "(out of DRM minors?); only those can be assigned",
                         g->bdf, g->uuid, g->compute_partition, g->mode_partition_count,
                         g->partition_count);
        if (g->device_dir[0] == '\0')
            provider_log("WARN",
                         "GPU %s: no DRM device directory; metrics "
                         "will be zero",
                         g->bdf);
    }
    amdgpu_system_free(g_provider.sys);
    g_provider.sys = sys;
    return 0;
}
