/*
 * cuda_backend.c - the "cuda" backend: HIP work on NVIDIA GPUs through the
 * CUDA driver API (docs/backend-cuda.md).
 *
 * Threads: every slot runs on the session's dispatch thread, which keeps the
 * device's primary context current. Completions come from the driver's
 * callback thread (cb_trampoline), which never calls CUDA. A watchdog thread
 * probes the contexts while completions are pending, so that a context lost
 * to a fault fails them instead of leaving a reply unsent for ever.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw_alloc.h"
#include "cuda_internal.h"
#include "cuda_rtc.h"
#include "hw_log.h"

#define SMALL_SLAB  (64u * 1024)  /* copies up to this size use one small slab */
#define SMALL_SLABS 256u          /* 16 MiB of small slabs at most */
#define BIG_SLAB    (256u * 1024) /* larger copies go in chunks of this size */
#define BIG_BYTES   (128u << 20)  /* 128 MiB of large slabs in flight at most */
#define WATCHDOG_MS 100

/* Queues r's completion behind the work already on s (of device d, whose
 * context is current). On failure r is neither listed nor freed: the caller
 * still owns it. */
static int rec_enqueue(struct hw_backend *be, struct cu_dev *d, CUstream s, struct cb_rec *r)
{
    pthread_mutex_lock(&be->lock);
    hwcu_pending_add(be, r);
    pthread_mutex_unlock(&be->lock);
    int rc = HW_OK;
    if (be->poll)
        rc = hwcu_poll_enqueue(be, d, s, r);
    else if (be->use_host_func)
        rc = hwcu_check(be, be->api.cuLaunchHostFunc(s, hwcu_cb_host, r));
    else
        rc = hwcu_check(be, be->api.cuStreamAddCallback(s, hwcu_cb_stream, r, 0));
    if (rc != HW_OK) {
        pthread_mutex_lock(&be->lock);
        hwcu_pending_del(be, r);
        pthread_mutex_unlock(&be->lock);
        return rc;
    }
    pthread_cond_signal(&be->wd_cond);
    return HW_OK;
}

/* ---- pinned staging ---------------------------------------------------------- */

static void deadline_in(struct timespec *ts, long ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_nsec += (ms % 1000) * 1000000L;
    ts->tv_sec += ms / 1000 + ts->tv_nsec / 1000000000L;
    ts->tv_nsec %= 1000000000L;
}

/*
 * A free slab, allocating one while the pool is below its cap. When all are
 * in flight this waits for a copy to finish: the same back-pressure as the
 * session's staging budget, bounded by DMA time, and cut short if the
 * context is lost (the watchdog fails the copies holding the slabs).
 */
static int slab_get(struct hw_backend *be, struct slab_pool *pool, struct hw_bstage **out)
{
    pthread_mutex_lock(&be->lock);
    while (!pool->free) {
        int dead = HWCU_DEAD(be);
        if (dead) {
            pthread_mutex_unlock(&be->lock);
            return dead;
        }
        if (pool->count < pool->max) {
            pool->count++;
            pthread_mutex_unlock(&be->lock);
            struct hw_bstage *sl = hw_calloc(1, sizeof *sl);
            CUresult r =
                sl ? be->api.cuMemHostAlloc(&sl->p, pool->slab_size, HWCU_MEMHOSTALLOC_PORTABLE)
                   : HWCU_ERROR_OUT_OF_MEMORY;
            if (r != HWCU_SUCCESS) {
                free(sl);
                pthread_mutex_lock(&be->lock);
                pool->count--;
                pthread_mutex_unlock(&be->lock);
                return hwcu_check(be, r);
            }
            sl->pool = pool;
            *out = sl;
            return HW_OK;
        }
        struct timespec ts;
        deadline_in(&ts, 50);
        pthread_cond_timedwait(&be->slab_cond, &be->lock, &ts);
    }
    *out = pool->free;
    pool->free = pool->free->next;
    pthread_mutex_unlock(&be->lock);
    return HW_OK;
}

static void slab_put(struct hw_backend *be, struct slab_pool *pool, struct hw_bstage *sl)
{
    pthread_mutex_lock(&be->lock);
    hwcu_slab_put_locked(be, pool, sl);
    pthread_mutex_unlock(&be->lock);
}

static void pool_free(struct hw_backend *be, struct slab_pool *pool)
{
    while (pool->free) {
        struct hw_bstage *sl = pool->free;
        pool->free = sl->next;
        if (sl->ev && hwcu_use(be, sl->ev_dev) == HW_OK)
            be->api.cuEventDestroy(sl->ev);
        be->api.cuMemFreeHost(sl->p);
        free(sl);
    }
}

/* ---- watchdog ------------------------------------------------------------------ */

/* While completions are pending, asks each context whether it still lives:
 * a lost context answers any call with its sticky error. */
static void *watchdog(void *arg)
{
    struct hw_backend *be = arg;
    pthread_mutex_lock(&be->lock);
    while (!be->wd_stop) {
        struct timespec ts;
        deadline_in(&ts, WATCHDOG_MS);
        int rc = pthread_cond_timedwait(&be->wd_cond, &be->lock, &ts);
        if (be->wd_stop)
            break;
        if (rc != ETIMEDOUT || be->npending == 0 || HWCU_DEAD(be))
            continue;
        pthread_mutex_unlock(&be->lock);
        for (int i = 0; i < be->ndev && !HWCU_DEAD(be); i++) {
            struct cu_dev *d = &be->devs[i];
            CUresult r = be->api.cuCtxSetCurrent(d->ctx);
            if (r == HWCU_SUCCESS)
                r = be->api.cuStreamQuery(d->evq[0]);
            if (hwcu_is_sticky(r))
                hwcu_fail(be, r);
        }
        pthread_mutex_lock(&be->lock);
    }
    pthread_mutex_unlock(&be->lock);
    return NULL;
}

/* ---- lifetime ------------------------------------------------------------------ */

static void release_devices(struct hw_backend *be)
{
    for (int i = 0; i < be->ndev; i++) {
        struct cu_dev *d = &be->devs[i];
        if (!d->ctx)
            continue;
        if (be->api.cuCtxSetCurrent(d->ctx) == HWCU_SUCCESS)
            for (int q = 0; q < HWCU_EVQ_STREAMS; q++)
                if (d->evq[q])
                    be->api.cuStreamDestroy(d->evq[q]);
        be->api.cuDevicePrimaryCtxRelease(d->dev);
    }
    hwcu_forget_current();
    be->api.cuCtxSetCurrent(NULL);
}

static int cuda_open(const struct hw_backend_config *cfg, struct hw_backend **out)
{
    const char *why = NULL;
    int rc;
    struct hw_backend *be = hw_calloc(1, sizeof *be);
    if (!be)
        return HW_ENOMEM;
    be->cfg = *cfg;
    rc = hwcu_api_load(&be->api, &why);
    if (rc != HW_OK) {
        hw_debug("cuda backend unavailable: %s", why);
        free(be);
        return rc;
    }
    const char *hf = getenv("HIPWIRE_CUDA_HOST_FUNC");
    be->use_host_func =
        !be->api.cuStreamAddCallback || (be->api.cuLaunchHostFunc && hf && hf[0] == '1');
    const char *cm = getenv("HIPWIRE_CUDA_COMPLETIONS");
    be->poll = !(cm && strcmp(cm, "callback") == 0);
    be->api.cuDriverGetVersion(&be->driver_version);
    int n = 0;
    if ((rc = hwcu_status(be->api.cuDeviceGetCount(&n))) != HW_OK)
        goto fail;
    if (n > HIPR_CAP_DEVICES)
        n = HIPR_CAP_DEVICES;
    be->devs = hw_calloc((size_t)n, sizeof *be->devs);
    if (!be->devs) {
        rc = HW_ENOMEM;
        goto fail;
    }
    for (int i = 0; i < n; i++) {
        struct cu_dev *d = &be->devs[i];
        CUresult r;
        d->index = i;
        d->def.d = d;
        d->def.s = HWCU_STREAM_LEGACY;
        d->def.is_default = 1;
        if ((r = be->api.cuDeviceGet(&d->dev, i)) != HWCU_SUCCESS)
            goto cu_fail;
        if ((r = be->api.cuDevicePrimaryCtxRetain(&d->ctx, d->dev)) != HWCU_SUCCESS) {
            d->ctx = NULL;
            goto cu_fail;
        }
        be->ndev = i + 1;
        if ((r = be->api.cuCtxSetCurrent(d->ctx)) != HWCU_SUCCESS ||
            (r = be->api.cuCtxGetStreamPriorityRange(&d->prio_least, &d->prio_greatest)) !=
                HWCU_SUCCESS)
            goto cu_fail;
        for (int q = 0; q < HWCU_EVQ_STREAMS; q++)
            if ((r = be->api.cuStreamCreateWithPriority(&d->evq[q], HWCU_STREAM_NON_BLOCKING, 0)) !=
                HWCU_SUCCESS)
                goto cu_fail;
        continue;
    cu_fail:
        hw_warn("cuda: device %d: %s (%d)", i, hwcu_err_name(be, r), (int)r);
        rc = hwcu_status(r);
        goto fail;
    }
    hwcu_forget_current();
    be->small = (struct slab_pool){ .slab_size = SMALL_SLAB, .max = SMALL_SLABS };
    /* The chunk size trades per-chunk overhead against how long the wire
     * waits for the first chunk's DMA; HIPWIRE_CUDA_CHUNK_KIB tunes it. */
    size_t big = BIG_SLAB;
    const char *ck = getenv("HIPWIRE_CUDA_CHUNK_KIB");
    if (ck && atol(ck) >= 64 && atol(ck) <= 65536)
        big = (size_t)atol(ck) << 10;
    be->big = (struct slab_pool){ .slab_size = big, .max = (unsigned)(BIG_BYTES / big) };
    be->pending.next = be->pending.prev = &be->pending;
    pthread_mutex_init(&be->lock, NULL);
    pthread_cond_init(&be->slab_cond, NULL);
    pthread_cond_init(&be->wd_cond, NULL);
    if (pthread_create(&be->wd, NULL, watchdog, be) != 0) {
        pthread_mutex_destroy(&be->lock);
        pthread_cond_destroy(&be->slab_cond);
        pthread_cond_destroy(&be->wd_cond);
        rc = HW_EOS;
        goto fail;
    }
    be->wd_started = 1;
    if (be->poll && (rc = hwcu_poll_start(be)) != HW_OK) {
        be->poll = 0;
        hw_warn("cuda: no poller thread; completions by driver callbacks");
    }
    *out = be;
    return HW_OK;
fail:
    release_devices(be);
    free(be->devs);
    free(be);
    return rc;
}

static void cuda_close(struct hw_backend *be)
{
    for (int i = 0; i < be->ndev; i++)
        if (!HWCU_DEAD(be) && hwcu_use(be, &be->devs[i]) == HW_OK)
            hwcu_check(be, be->api.cuCtxSynchronize());
    hwcu_poll_stop(be);
    hwcu_values_stop(be);
    for (int i = 0; i < be->ndev; i++)
        if (hwcu_use(be, &be->devs[i]) == HW_OK)
            hwcu_poll_free_events(be, &be->devs[i]);
    pthread_mutex_lock(&be->lock);
    be->wd_stop = 1;
    pthread_cond_signal(&be->wd_cond);
    pthread_mutex_unlock(&be->lock);
    if (be->wd_started)
        pthread_join(be->wd, NULL);
    if (HWCU_DEAD(be))
        hwcu_flush_pending(be, HWCU_DEAD(be));
    pthread_mutex_lock(&be->lock);
    /* Records the driver never called back (lost context only) are left
     * allocated: the driver may still hold their addresses. */
    unsigned left = be->npending;
    pool_free(be, &be->small);
    pool_free(be, &be->big);
    pthread_mutex_unlock(&be->lock);
    if (left)
        hw_warn("cuda: closing with %u completion(s) the driver never reported", left);
    release_devices(be);
    if (!left) {
        pthread_mutex_destroy(&be->lock);
        pthread_cond_destroy(&be->slab_cond);
        pthread_cond_destroy(&be->wd_cond);
        free(be->devs);
        free(be);
    }
}

/* ---- devices ------------------------------------------------------------------- */

static int cuda_device_count(struct hw_backend *be, int *count)
{
    *count = be->ndev;
    return HW_OK;
}

static int attr(struct hw_backend *be, struct cu_dev *d, int a)
{
    int v = 0;
    /* Attributes a driver has dropped (clock rates in CUDA 13) read as 0. */
    if (be->api.cuDeviceGetAttribute(&v, a, d->dev) != HWCU_SUCCESS)
        v = 0;
    return v;
}

static int cuda_device_info(struct hw_backend *be, int dev, struct hipr_devinfo *p)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct cu_dev *d = &be->devs[dev];
    struct hipr_devinfo di;
    size_t total = 0;
    CUresult r;
    memset(&di, 0, sizeof di);
    if ((r = be->api.cuDeviceGetName(di.name, (int)sizeof di.name - 1, d->dev)) != HWCU_SUCCESS ||
        (r = be->api.cuDeviceTotalMem(&total, d->dev)) != HWCU_SUCCESS)
        return hwcu_check(be, r);
    if (be->api.cuDeviceGetUuid) {
        CUuuid u;
        if (be->api.cuDeviceGetUuid(&u, d->dev) == HWCU_SUCCESS)
            memcpy(di.uuid, u.bytes, sizeof di.uuid);
    }
    di.major = attr(be, d, HWCU_DA_COMPUTE_CAPABILITY_MAJOR);
    di.minor = attr(be, d, HWCU_DA_COMPUTE_CAPABILITY_MINOR);
    snprintf(di.arch_name, sizeof di.arch_name, "sm_%d%d", di.major, di.minor);
    /* gcnArch is AMD's integer arch id; the nearest honest value is the
     * compute capability in the same style (sm_90 -> 900). */
    di.gcn_arch = di.major * 100 + di.minor * 10;
    di.total_global_mem = total;
    di.shared_mem_per_block = (uint64_t)attr(be, d, HWCU_DA_MAX_SHARED_MEMORY_PER_BLOCK);
    di.shared_mem_per_block_optin =
        (uint64_t)attr(be, d, HWCU_DA_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    di.shared_mem_per_multiprocessor =
        (uint64_t)attr(be, d, HWCU_DA_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    di.total_const_mem = (uint64_t)attr(be, d, HWCU_DA_TOTAL_CONSTANT_MEMORY);
    di.mem_pitch = (uint64_t)attr(be, d, HWCU_DA_MAX_PITCH);
    di.texture_alignment = (uint64_t)attr(be, d, HWCU_DA_TEXTURE_ALIGNMENT);
    di.regs_per_block = attr(be, d, HWCU_DA_MAX_REGISTERS_PER_BLOCK);
    di.regs_per_multiprocessor = attr(be, d, HWCU_DA_MAX_REGISTERS_PER_MULTIPROCESSOR);
    di.warp_size = attr(be, d, HWCU_DA_WARP_SIZE);
    di.max_threads_per_block = attr(be, d, HWCU_DA_MAX_THREADS_PER_BLOCK);
    di.max_threads_dim_x = attr(be, d, HWCU_DA_MAX_BLOCK_DIM_X);
    di.max_threads_dim_y = attr(be, d, HWCU_DA_MAX_BLOCK_DIM_Y);
    di.max_threads_dim_z = attr(be, d, HWCU_DA_MAX_BLOCK_DIM_Z);
    di.max_grid_size_x = attr(be, d, HWCU_DA_MAX_GRID_DIM_X);
    di.max_grid_size_y = attr(be, d, HWCU_DA_MAX_GRID_DIM_Y);
    di.max_grid_size_z = attr(be, d, HWCU_DA_MAX_GRID_DIM_Z);
    di.clock_rate_khz = attr(be, d, HWCU_DA_CLOCK_RATE);
    di.memory_clock_rate_khz = attr(be, d, HWCU_DA_MEMORY_CLOCK_RATE);
    di.memory_bus_width = attr(be, d, HWCU_DA_GLOBAL_MEMORY_BUS_WIDTH);
    di.multiprocessor_count = attr(be, d, HWCU_DA_MULTIPROCESSOR_COUNT);
    di.l2_cache_size = attr(be, d, HWCU_DA_L2_CACHE_SIZE);
    di.max_threads_per_multiprocessor = attr(be, d, HWCU_DA_MAX_THREADS_PER_MULTIPROCESSOR);
    di.compute_mode = attr(be, d, HWCU_DA_COMPUTE_MODE);
    di.concurrent_kernels = attr(be, d, HWCU_DA_CONCURRENT_KERNELS);
    di.pci_domain_id = attr(be, d, HWCU_DA_PCI_DOMAIN_ID);
    di.pci_bus_id = attr(be, d, HWCU_DA_PCI_BUS_ID);
    di.pci_device_id = attr(be, d, HWCU_DA_PCI_DEVICE_ID);
    di.integrated = attr(be, d, HWCU_DA_INTEGRATED);
    di.can_map_host_memory = attr(be, d, HWCU_DA_CAN_MAP_HOST_MEMORY);
    di.ecc_enabled = attr(be, d, HWCU_DA_ECC_ENABLED);
    di.async_engine_count = attr(be, d, HWCU_DA_ASYNC_ENGINE_COUNT);
    di.unified_addressing = attr(be, d, HWCU_DA_UNIFIED_ADDRESSING);
    di.managed_memory = attr(be, d, HWCU_DA_MANAGED_MEMORY);
    di.cooperative_launch = attr(be, d, HWCU_DA_COOPERATIVE_LAUNCH);
    di.is_multi_gpu_board = attr(be, d, HWCU_DA_MULTI_GPU_BOARD);
    di.stream_priority_low = d->prio_least;
    di.stream_priority_high = d->prio_greatest;
    *p = di;
    return HW_OK;
}

/* The driver's own answers; HIP's single-int attributes for a 2D or 3D
 * limit take its first extent (the width). */
static int cuda_device_attributes(struct hw_backend *be, int dev, struct hipr_devattr *a)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct cu_dev *d = &be->devs[dev];
    a->max_texture_1d = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE1D_WIDTH);
    a->max_texture_1d_linear = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE1D_LINEAR_WIDTH);
    a->max_texture_1d_mipmap = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH);
    a->max_texture_1d_layered = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE1D_LAYERED_WIDTH);
    a->max_texture_2d_width = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE2D_WIDTH);
    a->max_texture_2d_height = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE2D_HEIGHT);
    a->max_texture_2d_gather = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE2D_GATHER_WIDTH);
    a->max_texture_2d_layered = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE2D_LAYERED_WIDTH);
    a->max_texture_2d_linear = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE2D_LINEAR_WIDTH);
    a->max_texture_2d_mipmap = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH);
    a->max_texture_3d_width = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE3D_WIDTH);
    a->max_texture_3d_height = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE3D_HEIGHT);
    a->max_texture_3d_depth = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE3D_DEPTH);
    a->max_texture_3d_alt = attr(be, d, HWCU_DA_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE);
    a->max_texture_cubemap = attr(be, d, HWCU_DA_MAXIMUM_TEXTURECUBEMAP_WIDTH);
    a->max_texture_cubemap_layered = attr(be, d, HWCU_DA_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH);
    a->max_surface_1d = attr(be, d, HWCU_DA_MAXIMUM_SURFACE1D_WIDTH);
    a->max_surface_1d_layered = attr(be, d, HWCU_DA_MAXIMUM_SURFACE1D_LAYERED_WIDTH);
    a->max_surface_2d = attr(be, d, HWCU_DA_MAXIMUM_SURFACE2D_WIDTH);
    a->max_surface_2d_layered = attr(be, d, HWCU_DA_MAXIMUM_SURFACE2D_LAYERED_WIDTH);
    a->max_surface_3d = attr(be, d, HWCU_DA_MAXIMUM_SURFACE3D_WIDTH);
    a->max_surface_cubemap = attr(be, d, HWCU_DA_MAXIMUM_SURFACECUBEMAP_WIDTH);
    a->max_surface_cubemap_layered = attr(be, d, HWCU_DA_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH);
    a->surface_alignment = attr(be, d, HWCU_DA_SURFACE_ALIGNMENT);
    a->texture_pitch_alignment = attr(be, d, HWCU_DA_TEXTURE_PITCH_ALIGNMENT);
    a->access_policy_max_window_size = attr(be, d, HWCU_DA_MAX_ACCESS_POLICY_WINDOW_SIZE);
    a->compute_preemption_supported = attr(be, d, HWCU_DA_COMPUTE_PREEMPTION_SUPPORTED);
    a->global_l1_cache_supported = attr(be, d, HWCU_DA_GLOBAL_L1_CACHE_SUPPORTED);
    a->local_l1_cache_supported = attr(be, d, HWCU_DA_LOCAL_L1_CACHE_SUPPORTED);
    a->kernel_exec_timeout = attr(be, d, HWCU_DA_KERNEL_EXEC_TIMEOUT);
    a->max_blocks_per_multiprocessor = attr(be, d, HWCU_DA_MAX_BLOCKS_PER_MULTIPROCESSOR);
    a->multi_gpu_board_group_id = attr(be, d, HWCU_DA_MULTI_GPU_BOARD_GROUP_ID);
    a->persisting_l2_cache_max_size = attr(be, d, HWCU_DA_MAX_PERSISTING_L2_CACHE_SIZE);
    a->reserved_shared_mem_per_block = attr(be, d, HWCU_DA_RESERVED_SHARED_MEMORY_PER_BLOCK);
    a->single_to_double_precision_perf_ratio =
        attr(be, d, HWCU_DA_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO);
    a->tcc_driver = attr(be, d, HWCU_DA_TCC_DRIVER);
    /* What HIP source compiled for the GPU gets; HIP has no surfaces or
     * dynamic parallelism. */
    a->arch = HIPR_ARCH_GLOBAL_INT32_ATOMICS | HIPR_ARCH_GLOBAL_FLOAT_ATOMIC_EXCH |
              HIPR_ARCH_SHARED_INT32_ATOMICS | HIPR_ARCH_SHARED_FLOAT_ATOMIC_EXCH |
              HIPR_ARCH_FLOAT_ATOMIC_ADD | HIPR_ARCH_GLOBAL_INT64_ATOMICS |
              HIPR_ARCH_SHARED_INT64_ATOMICS | HIPR_ARCH_DOUBLES | HIPR_ARCH_WARP_VOTE |
              HIPR_ARCH_WARP_BALLOT | HIPR_ARCH_WARP_SHUFFLE | HIPR_ARCH_FUNNEL_SHIFT |
              HIPR_ARCH_THREAD_FENCE_SYSTEM | HIPR_ARCH_SYNC_THREADS_EXT | HIPR_ARCH_3D_GRID;
    return HW_OK;
}

static void cuda_versions(struct hw_backend *be, int *runtime, int *driver)
{
    /* No CUDA runtime is involved: both are the driver's CUDA version
     * (e.g. 13000), in CUDA's encoding. */
    *runtime = be->driver_version;
    *driver = be->driver_version;
}

static int cuda_mem_info(struct hw_backend *be, int dev, uint64_t *free_out, uint64_t *total_out)
{
    size_t f = 0, t = 0;
    int rc;
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    if ((rc = hwcu_use(be, &be->devs[dev])) != HW_OK)
        return rc;
    if ((rc = hwcu_check(be, be->api.cuMemGetInfo(&f, &t))) != HW_OK)
        return rc;
    *free_out = f;
    *total_out = t;
    return HW_OK;
}

/* ---- memory -------------------------------------------------------------------- */

static int cuda_mem_alloc(struct hw_backend *be, int dev, uint64_t size, uint64_t *dptr_out)
{
    CUdeviceptr p = 0;
    int rc;
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    if (size > SIZE_MAX)
        return HW_ENOMEM;
    if ((rc = hwcu_use(be, &be->devs[dev])) != HW_OK)
        return rc;
    if ((rc = hwcu_check(be, be->api.cuMemAlloc(&p, (size_t)size))) != HW_OK)
        return rc;
    *dptr_out = p;
    return HW_OK;
}

static int cuda_mem_free(struct hw_backend *be, int dev, uint64_t dptr, uint64_t size)
{
    int rc;
    (void)size;
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    if ((rc = hwcu_use(be, &be->devs[dev])) != HW_OK)
        return rc;
    return hwcu_check(be, be->api.cuMemFree((CUdeviceptr)dptr));
}

/* ---- streams ------------------------------------------------------------------- */

static int cuda_stream_default(struct hw_backend *be, int dev, struct hw_bstream **out)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    *out = &be->devs[dev].def;
    return HW_OK;
}

static int cuda_stream_create(struct hw_backend *be, int dev, uint32_t flags, int priority,
                              struct hw_bstream **out)
{
    int rc;
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct cu_dev *d = &be->devs[dev];
    if ((rc = hwcu_use(be, d)) != HW_OK)
        return rc;
    /* HIP and CUDA agree: lower is more urgent; out-of-range values clamp. */
    if (priority > d->prio_least)
        priority = d->prio_least;
    if (priority < d->prio_greatest)
        priority = d->prio_greatest;
    struct hw_bstream *s = hw_calloc(1, sizeof *s);
    if (!s)
        return HW_ENOMEM;
    /* hipStreamNonBlocking and CU_STREAM_NON_BLOCKING are both 0x1. */
    rc = hwcu_check(
        be, be->api.cuStreamCreateWithPriority(&s->s, flags & HWCU_STREAM_NON_BLOCKING, priority));
    if (rc != HW_OK) {
        free(s);
        return rc;
    }
    s->d = d;
    *out = s;
    return HW_OK;
}

static void cuda_stream_destroy(struct hw_backend *be, struct hw_bstream *s)
{
    if (s->is_default)
        return;
    /* The driver defers the release until the stream's work is done. */
    if (hwcu_use(be, s->d) == HW_OK)
        hwcu_check(be, be->api.cuStreamDestroy(s->s));
    free(s);
}

static int cuda_stream_query(struct hw_backend *be, struct hw_bstream *s)
{
    int rc;
    if ((rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    CUresult r = be->api.cuStreamQuery(s->s);
    return r == HWCU_ERROR_NOT_READY ? HW_ENOTREADY : hwcu_check(be, r);
}

static int cuda_stream_callback(struct hw_backend *be, struct hw_bstream *s, hw_done_fn fn,
                                void *arg)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    struct cb_rec *r = hwcu_rec_new(be, fn, arg);
    if (!r)
        return HW_ENOMEM;
    if ((rc = rec_enqueue(be, s->d, s->s, r)) != HW_OK)
        free(r);
    return rc;
}

/* ---- copies and fills ----------------------------------------------------------- */

static struct slab_pool *pool_for(struct hw_backend *be, uint64_t n)
{
    return n <= SMALL_SLAB ? &be->small : &be->big;
}

/* Queues one staged chunk: the copy, then the completion that returns its
 * slab (and for D2H moves the data on to dst). */
static int staged_chunk(struct hw_backend *be, struct hw_bstream *s, struct slab_pool *pool,
                        struct hw_bstage *sl, CUresult copy_result, void *d2h_dst, size_t len)
{
    if (copy_result != HWCU_SUCCESS) {
        slab_put(be, pool, sl);
        return hwcu_check(be, copy_result);
    }
    struct cb_rec *r = hwcu_rec_new(be, NULL, NULL);
    int rc = r ? HW_OK : HW_ENOMEM;
    if (r) {
        r->slab = sl;
        r->pool = pool;
        r->d2h_dst = d2h_dst;
        r->d2h_len = len;
        rc = rec_enqueue(be, s->d, s->s, r);
        if (rc != HW_OK)
            free(r);
    }
    /* Without its completion the slab may still be read by the queued
     * copy, so it is given up rather than reused. */
    return rc;
}

static int cuda_memcpy_h2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst,
                           const void *src, uint64_t n, hw_done_fn release, void *release_arg)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    struct slab_pool *pool = pool_for(be, n);
    /* The data is copied into pinned slabs so the DMA is truly asynchronous
     * (a pageable source would make the driver wait for the stream); src
     * is not needed after that, so it is released before returning. */
    for (uint64_t off = 0; off < n;) {
        size_t len = (size_t)(n - off < pool->slab_size ? n - off : pool->slab_size);
        struct hw_bstage *sl;
        if ((rc = slab_get(be, pool, &sl)) != HW_OK)
            return rc;
        memcpy(sl->p, (const uint8_t *)src + off, len);
        CUresult r = be->api.cuMemcpyHtoDAsync((CUdeviceptr)(dst + off), sl->p, len, s->s);
        if ((rc = staged_chunk(be, s, pool, sl, r, NULL, len)) != HW_OK)
            return rc;
        off += len;
    }
    if (release)
        release(release_arg, HW_OK);
    return HW_OK;
}

static int cuda_memcpy_d2h(struct hw_backend *be, struct hw_bstream *s, void *dst, uint64_t src,
                           uint64_t n)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    struct slab_pool *pool = pool_for(be, n);
    /* Into pinned slabs (a pageable destination would make the driver
     * block until the copy is done); the completion moves each chunk to dst,
     * ahead of any later stream_callback on s. */
    for (uint64_t off = 0; off < n;) {
        size_t len = (size_t)(n - off < pool->slab_size ? n - off : pool->slab_size);
        struct hw_bstage *sl;
        if ((rc = slab_get(be, pool, &sl)) != HW_OK)
            return rc;
        CUresult r = be->api.cuMemcpyDtoHAsync(sl->p, (CUdeviceptr)(src + off), len, s->s);
        if ((rc = staged_chunk(be, s, pool, sl, r, (uint8_t *)dst + off, len)) != HW_OK)
            return rc;
        off += len;
    }
    return HW_OK;
}

/* ---- host regions: client memory the worker maps (ops_region.c) ------------------- */

/* Pinned for every device's context, so the copies below are DMA straight
 * from and into the shared mapping. */
static int cuda_host_register(struct hw_backend *be, void *p, uint64_t n)
{
    int rc;
    if (!be->api.cuMemHostRegister || !be->api.cuMemHostUnregister)
        return HW_ENOTSUP;
    if ((rc = HWCU_DEAD(be)) != 0 || be->ndev < 1 || (rc = hwcu_use(be, &be->devs[0])) != HW_OK)
        return rc;
    return hwcu_check(be, be->api.cuMemHostRegister(p, (size_t)n, HWCU_MEMHOSTREGISTER_PORTABLE));
}

static void cuda_host_unregister(struct hw_backend *be, void *p)
{
    if (HWCU_DEAD(be) || !be->api.cuMemHostUnregister || be->ndev < 1 ||
        hwcu_use(be, &be->devs[0]) != HW_OK)
        return;
    hwcu_check(be, be->api.cuMemHostUnregister(p));
}

static int cuda_memcpy_h2d_registered(struct hw_backend *be, struct hw_bstream *s, uint64_t dst,
                                      const void *src, uint64_t n)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    return hwcu_check(be, be->api.cuMemcpyHtoDAsync((CUdeviceptr)dst, src, (size_t)n, s->s));
}

static int cuda_memcpy_d2h_registered(struct hw_backend *be, struct hw_bstream *s, void *dst,
                                      uint64_t src, uint64_t n)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    return hwcu_check(be, be->api.cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, (size_t)n, s->s));
}

static int cuda_memcpy_d2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, uint64_t src,
                           uint64_t n)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    return hwcu_check(
        be, be->api.cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, (size_t)n, s->s));
}

static int cuda_memset(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, uint32_t value,
                       uint32_t elem_size, uint64_t count)
{
    int rc;
    CUresult r;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    switch (elem_size) {
    case 1: r = be->api.cuMemsetD8Async(dst, (unsigned char)value, (size_t)count, s->s); break;
    case 2: r = be->api.cuMemsetD16Async(dst, (unsigned short)value, (size_t)count, s->s); break;
    case 4: r = be->api.cuMemsetD32Async(dst, value, (size_t)count, s->s); break;
    default: return HW_EINVAL;
    }
    return hwcu_check(be, r);
}

/* ---- staged copies (backend.h, stage_*) ---------------------------------------- */

static int cuda_stage_get(struct hw_backend *be, uint64_t want, struct hw_bstage **out,
                          void **buf_out, size_t *len_out)
{
    struct slab_pool *pool = pool_for(be, want);
    struct hw_bstage *sl;
    int rc;
    if (want == 0)
        return HW_EINVAL;
    if ((rc = slab_get(be, pool, &sl)) != HW_OK)
        return rc;
    *out = sl;
    *buf_out = sl->p;
    *len_out = want < pool->slab_size ? (size_t)want : pool->slab_size;
    return HW_OK;
}

static void cuda_stage_put(struct hw_backend *be, struct hw_bstage *st)
{
    slab_put(be, st->pool, st);
}

static int cuda_stage_h2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst,
                          struct hw_bstage *st, size_t n)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK) {
        slab_put(be, st->pool, st);
        return rc;
    }
    CUresult r = be->api.cuMemcpyHtoDAsync((CUdeviceptr)dst, st->p, n, s->s);
    return staged_chunk(be, s, st->pool, st, r, NULL, n);
}

/* The copy is followed by an event, so stage_wait blocks on the GPU alone,
 * never on the driver's callback thread (which may be waiting to send a
 * reply while the caller holds the send lock). */
static int cuda_stage_d2h(struct hw_backend *be, struct hw_bstream *s, struct hw_bstage *st,
                          uint64_t src, size_t n)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    if (st->ev_dev != s->d) {
        /* Events belong to a context: a slab moving to another device
         * gets a new one. */
        CUevent ev;
        if ((rc = hwcu_check(be, be->api.cuEventCreate(&ev, HWCU_EVENT_DISABLE_TIMING))) != HW_OK)
            return rc;
        if (st->ev && hwcu_use(be, st->ev_dev) == HW_OK)
            be->api.cuEventDestroy(st->ev);
        st->ev = ev;
        st->ev_dev = s->d;
        if ((rc = hwcu_use(be, s->d)) != HW_OK)
            return rc;
    }
    if ((rc = hwcu_check(be, be->api.cuMemcpyDtoHAsync(st->p, (CUdeviceptr)src, n, s->s))) != HW_OK)
        return rc;
    return hwcu_check(be, be->api.cuEventRecord(st->ev, s->s));
}

static int cuda_stage_wait(struct hw_backend *be, struct hw_bstage *st)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, st->ev_dev)) != HW_OK)
        return rc;
    return hwcu_check(be, be->api.cuEventSynchronize(st->ev));
}

/* ---- events -------------------------------------------------------------------- */

static int cuda_event_create(struct hw_backend *be, int dev, uint32_t flags, struct hw_bevent **out)
{
    int rc;
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    if ((rc = hwcu_use(be, &be->devs[dev])) != HW_OK)
        return rc;
    struct hw_bevent *e = hw_calloc(1, sizeof *e);
    if (!e)
        return HW_ENOMEM;
    /* hipEventBlockingSync/DisableTiming/Interprocess (1/2/4) are CUDA's
     * values; HIP-only bits (release-to-device/system) have no meaning here. */
    rc = hwcu_check(be, be->api.cuEventCreate(&e->e, flags & 0x7u));
    if (rc != HW_OK) {
        free(e);
        return rc;
    }
    e->d = &be->devs[dev];
    *out = e;
    return HW_OK;
}

static void cuda_event_destroy(struct hw_backend *be, struct hw_bevent *e)
{
    if (hwcu_use(be, e->d) == HW_OK)
        hwcu_check(be, be->api.cuEventDestroy(e->e));
    free(e);
}

static int cuda_event_record(struct hw_backend *be, struct hw_bevent *e, struct hw_bstream *s)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    return hwcu_check(be, be->api.cuEventRecord(e->e, s->s));
}

static int cuda_event_query(struct hw_backend *be, struct hw_bevent *e)
{
    int rc;
    if ((rc = hwcu_use(be, e->d)) != HW_OK)
        return rc;
    CUresult r = be->api.cuEventQuery(e->e);
    return r == HWCU_ERROR_NOT_READY ? HW_ENOTREADY : hwcu_check(be, r);
}

/* The completion waits on an internal stream for the event, so the
 * dispatch thread never waits and the event's own stream is not touched. */
static int cuda_event_callback(struct hw_backend *be, struct hw_bevent *e, hw_done_fn fn, void *arg)
{
    int rc;
    struct cu_dev *d = e->d;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, d)) != HW_OK)
        return rc;
    CUstream q = d->evq[d->evq_next++ % HWCU_EVQ_STREAMS];
    if ((rc = hwcu_check(be, be->api.cuStreamWaitEvent(q, e->e, 0))) != HW_OK)
        return rc;
    struct cb_rec *r = hwcu_rec_new(be, fn, arg);
    if (!r)
        return HW_ENOMEM;
    if ((rc = rec_enqueue(be, d, q, r)) != HW_OK)
        free(r);
    return rc;
}

static int cuda_event_elapsed(struct hw_backend *be, struct hw_bevent *start,
                              struct hw_bevent *stop, float *ms_out)
{
    int rc;
    float ms = 0;
    if ((rc = hwcu_use(be, stop->d)) != HW_OK)
        return rc;
    CUresult r = be->api.cuEventElapsedTime(&ms, start->e, stop->e);
    if (r == HWCU_ERROR_NOT_READY)
        return HW_ENOTREADY;
    if ((rc = hwcu_check(be, r)) != HW_OK)
        return rc;
    *ms_out = ms;
    return HW_OK;
}

static int cuda_stream_wait_event(struct hw_backend *be, struct hw_bstream *s, struct hw_bevent *e)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    return hwcu_check(be, be->api.cuStreamWaitEvent(s->s, e->e, 0));
}

/* HIP source to PTX for this device's compute capability, by NVRTC
 * (cuda_rtc.c); needs no context. */
static int cuda_rtc_compile(struct hw_backend *be, int dev, const struct hw_rtc_input *in,
                            struct hw_rtc_output *out)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct cu_dev *d = &be->devs[dev];
    return hw_cuda_rtc_compile(attr(be, d, HWCU_DA_COMPUTE_CAPABILITY_MAJOR),
                               attr(be, d, HWCU_DA_COMPUTE_CAPABILITY_MINOR), in, out);
}

const struct hw_backend_ops hw_cuda_backend_ops = {
    .size = sizeof(struct hw_backend_ops),
    .abi_version = HW_BACKEND_ABI_VERSION,
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
    .versions = cuda_versions,
    .mem_info = cuda_mem_info,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .host_ptr = NULL, /* device memory is not host-addressable */
    .stream_default = cuda_stream_default,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_query = cuda_stream_query,
    .stream_callback = cuda_stream_callback,
    .memcpy_h2d = cuda_memcpy_h2d,
    .memcpy_d2h = cuda_memcpy_d2h,
    .memcpy_d2d = cuda_memcpy_d2d,
    .memset = cuda_memset,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_query = cuda_event_query,
    .event_callback = cuda_event_callback,
    .event_elapsed = cuda_event_elapsed,
    .stream_wait_event = cuda_stream_wait_event,
    .module_load = hwcu_module_load,
    .module_unload = hwcu_module_unload,
    .module_function = hwcu_module_function,
    .module_global = hwcu_module_global,
    .launch = hwcu_launch,
    .stage_get = cuda_stage_get,
    .stage_h2d = cuda_stage_h2d,
    .stage_d2h = cuda_stage_d2h,
    .stage_wait = cuda_stage_wait,
    .stage_put = cuda_stage_put,
    .stream_write_value = hwcu_stream_write_value,
    .stream_wait_value = hwcu_stream_wait_value,
    .device_attributes = cuda_device_attributes,
    .rtc_compile = cuda_rtc_compile,
    .host_register = cuda_host_register,
    .host_unregister = cuda_host_unregister,
    .memcpy_h2d_registered = cuda_memcpy_h2d_registered,
    .memcpy_d2h_registered = cuda_memcpy_d2h_registered,
};
