/*
 * provider.h - shared state of libaccelerator_amd.so (internal).
 *
 * One lock guards everything; every exported entry point takes it, so the
 * library is safe to call from any goroutine thread. Nothing runs at load
 * time; VirtualGPUInit/AccelInit (re)build the state, so a second init
 * starts clean.
 */
#ifndef HIPWIRE_PROVIDER_H
#define HIPWIRE_PROVIDER_H

#include "accelerator.h"
#include "amdgpu.h"

#include <pthread.h>

#define PROVIDER_API __attribute__((visibility("default")))
#define PROVIDER_MAX_ASSIGNMENTS (AMDGPU_MAX_GPUS * AMDGPU_MAX_PARTITIONS)

typedef struct assignment {
    char partition_uuid[AMDGPU_UUID_LEN];
    char gpu_uuid[AMDGPU_UUID_LEN];
    char template_id[32];
} assignment_t;

typedef struct provider {
    pthread_mutex_t lock;
    int initialized;
    amdgpu_system_t *sys;          /* last successful discovery, or NULL */
    size_t assignment_count;
    assignment_t assignments[PROVIDER_MAX_ASSIGNMENTS];
} provider_t;

extern provider_t g_provider;

/* Logging through the registered callback; never "FATAL". */
void provider_log(const char *level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void provider_set_log_callback(LogCallbackFunc cb);

/* With the lock held: make sure g_provider.sys is loaded (discovering when
 * refresh is set or nothing is loaded). Returns 0, or -1 when KFD cannot be
 * read and nothing was loaded before. */
int provider_discover(int refresh);

/* With the lock held. */
void provider_init_locked(void);
void provider_shutdown_locked(void);

/* Fill one #511 device record for sys->gpus[i]. */
void provider_fill_device(const amdgpu_system_t *sys, uint32_t i,
                          ExtendedDeviceInfo *out);

/* Assignments (partition.c), lock held. */
const assignment_t *provider_find_assignment(const char *partition_uuid);
void provider_state_load(void);
int provider_assign(const char *template_id, const char *gpu_uuid,
                    char partition_uuid[64], EnvVar *envs, size_t *env_count,
                    char render_node[64]);
int provider_remove(const char *partition_uuid);

/* Mounts (mounts.c). */
size_t provider_mounts(Mount *out, size_t max);

/* snprintf into a fixed field, truncating silently. */
void provider_copy(char *dst, size_t dstlen, const char *src);

#endif /* HIPWIRE_PROVIDER_H */
