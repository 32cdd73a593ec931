/*
 * discovery.h - the provider's state: one lock guards everything; every
 * exported entry point takes it, so the library is safe to call from any
 * goroutine thread. Nothing runs at load time; VirtualGPUInit/AccelInit
 * (re)build the state, so a second init starts clean.
 */
#ifndef HIPWIRE_PROVIDER_DISCOVERY_H
#define HIPWIRE_PROVIDER_DISCOVERY_H

#include <pthread.h>

#include "amdgpu.h"
#include "provider.h"

#define PROVIDER_MAX_ASSIGNMENTS (AMDGPU_MAX_GPUS * AMDGPU_MAX_PARTITIONS)

typedef struct assignment {
    char partition_uuid[AMDGPU_UUID_LEN];
    char gpu_uuid[AMDGPU_UUID_LEN];
    char template_id[32];
} assignment_t;

typedef struct provider {
    pthread_mutex_t lock;
    int initialized;
    amdgpu_system_t *sys;    /* last successful discovery, or NULL */
    size_t assignment_count; /* owned by partition.c */
    assignment_t assignments[PROVIDER_MAX_ASSIGNMENTS];
} provider_t;

extern provider_t g_provider;

/* With the lock held: make sure g_provider.sys is loaded (discovering when
 * refresh is set or nothing is loaded). Returns 0, or -1 when KFD cannot be
 * read and nothing was loaded before. */
int provider_discover(int refresh);

#endif
