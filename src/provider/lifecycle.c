/*
 * lifecycle.c - VirtualGPUInit and the (re)initialisation behind it and
 * AccelInit/AccelShutdown: discovery first, then the saved assignments.
 */
#include "lifecycle.h"

#include <inttypes.h>

#include "discovery.h"
#include "partition.h"

void provider_init_locked(void)
{
    amdgpu_system_free(g_provider.sys);
    g_provider.sys = NULL;
    g_provider.assignment_count = 0;
    g_provider.initialized = 1;
    if (provider_discover(1) == 0)
        provider_log("INFO",
                     "hipwire AMD provider: %" PRIu32 " GPU(s), "
                     "amdgpu driver %s",
                     g_provider.sys->gpu_count,
                     g_provider.sys->driver_version[0] ? g_provider.sys->driver_version
                                                       : "(in-tree)");
    provider_state_load();
}

void provider_shutdown_locked(void)
{
    amdgpu_system_free(g_provider.sys);
    g_provider.sys = NULL;
    g_provider.assignment_count = 0;
    g_provider.initialized = 0;
}

PROVIDER_API Result VirtualGPUInit(void)
{
    pthread_mutex_lock(&g_provider.lock);
    /* a host without GPUs still loads: discovery is retried on every
     * GetDeviceCount, and the reason was logged */
    provider_init_locked();
    pthread_mutex_unlock(&g_provider.lock);
    return RESULT_SUCCESS;
}
