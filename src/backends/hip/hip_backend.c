/*
 * hip_backend.c - the "hip" backend: runs a session's work on AMD GPUs
 * through the HIP runtime, loaded at run time.
 *
 * Completion: the ops table wants a callback when queued work finishes, and
 * the only primitive every HIP runtime (and hipwire's own proxy, for the
 * relay) offers for that is an event. A stream callback records an event on
 * the stream and hands it to the completion thread, which waits for events
 * in the order they were queued and runs the callbacks; the dispatch thread
 * never waits.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hip_internal.h"
#include "hip_rtc.h"
#include "hw_alloc.h"
#include "hw_log.h"

static void release_event(struct hw_backend *be, struct hw_bevent *e)
{
    pthread_mutex_lock(&be->lock);
    int free_it = --e->pending == 0 && e->destroyed;
    pthread_mutex_unlock(&be->lock);
    if (free_it) {
        be->api.hipEventDestroy(e->ev);
        free(e);
    }
}

static void *completion_main(void *arg)
{
    struct hw_backend *be = arg;
    pthread_mutex_lock(&be->lock);
    for (;;) {
        while (!be->head && !be->stopping)
            pthread_cond_wait(&be->cond, &be->lock);
        struct completion *c = be->head;
        if (!c)
            break;
        be->head = c->next;
        if (!be->head)
            be->tail = NULL;
        pthread_mutex_unlock(&be->lock);
        hipb_use(be, c->event->dev);
        int status = hipb_st(be->api.hipEventSynchronize(c->event->ev));
        if (status != HW_OK && be->cfg.on_async_error)
            be->cfg.on_async_error(be->cfg.ctx, status);
        c->fn(c->arg, status);
        if (c->owns_event)
            c->event->destroyed = 1;
        release_event(be, c->event);
        free(c);
        pthread_mutex_lock(&be->lock);
    }
    pthread_mutex_unlock(&be->lock);
    return NULL;
}

static int enqueue_completion(struct hw_backend *be, struct hw_bevent *e, int owns, hw_done_fn fn,
                              void *arg)
{
    struct completion *c = hw_calloc(1, sizeof *c);
    if (!c)
        return HW_ENOMEM;
    c->event = e;
    c->owns_event = owns;
    c->fn = fn;
    c->arg = arg;
    pthread_mutex_lock(&be->lock);
    e->pending++;
    if (be->tail)
        be->tail->next = c;
    else
        be->head = c;
    be->tail = c;
    pthread_cond_signal(&be->cond);
    pthread_mutex_unlock(&be->lock);
    return HW_OK;
}

static int hip_open(const struct hw_backend_config *cfg, struct hw_backend **out)
{
    char why[256];
    struct hw_backend *be = hw_calloc(1, sizeof *be);
    if (!be)
        return HW_ENOMEM;
    be->cfg = *cfg;
    if (hw_hip_api_load(&be->api, why, sizeof why) < 0) {
        hw_debug("hip backend: %s", why);
        free(be);
        return HW_ENODEV;
    }
    int n = 0;
    if (be->api.hipInit(0) != hipSuccess || be->api.hipGetDeviceCount(&n) != hipSuccess || n <= 0) {
        hw_debug("hip backend: the HIP runtime reports no device");
        free(be);
        return HW_ENODEV;
    }
    be->ndev = n;
    be->defaults = hw_calloc((size_t)n, sizeof *be->defaults);
    if (!be->defaults)
        goto fail;
    for (int i = 0; i < n; i++)
        be->defaults[i].dev = i;
    pthread_mutex_init(&be->lock, NULL);
    pthread_cond_init(&be->cond, NULL);
    hipb_stages_init(be);
    if (pthread_create(&be->thread, NULL, completion_main, be) != 0)
        goto fail;
    *out = be;
    return HW_OK;
fail:
    free(be->defaults);
    free(be);
    return HW_ENOMEM;
}

static void hip_close(struct hw_backend *be)
{
    pthread_mutex_lock(&be->lock);
    be->stopping = 1;
    pthread_cond_signal(&be->cond);
    pthread_mutex_unlock(&be->lock);
    pthread_join(be->thread, NULL);
    hipb_stages_free(be);
    hw_hip_api_unload(&be->api);
    free(be->defaults);
    free(be);
}

static int hip_device_count(struct hw_backend *be, int *count)
{
    *count = be->ndev;
    return HW_OK;
}

static int hip_device_info(struct hw_backend *be, int dev, struct hipr_devinfo *d)
{
    hipDeviceProp_t p;
    int lo = 0, hi = 0;
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    int rc = hipb_st(be->api.hipGetDeviceProperties(&p, dev));
    if (rc != HW_OK)
        return rc;
    hipb_use(be, dev);
    be->api.hipDeviceGetStreamPriorityRange(&lo, &hi);
    memset(d, 0, sizeof *d);
    memcpy(d->name, p.name, sizeof d->name - 1);
    memcpy(d->arch_name, p.gcnArchName, sizeof d->arch_name - 1);
    d->total_global_mem = p.totalGlobalMem;
    d->shared_mem_per_block = p.sharedMemPerBlock;
    d->shared_mem_per_block_optin = p.sharedMemPerBlock;
    d->shared_mem_per_multiprocessor = p.maxSharedMemoryPerMultiProcessor;
    d->total_const_mem = p.totalConstMem;
    d->mem_pitch = p.memPitch;
    d->texture_alignment = p.textureAlignment;
    d->regs_per_block = p.regsPerBlock;
    d->regs_per_multiprocessor = p.regsPerBlock;
    d->warp_size = p.warpSize;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->max_threads_dim_x = p.maxThreadsDim[0];
    d->max_threads_dim_y = p.maxThreadsDim[1];
    d->max_threads_dim_z = p.maxThreadsDim[2];
    d->max_grid_size_x = p.maxGridSize[0];
    d->max_grid_size_y = p.maxGridSize[1];
    d->max_grid_size_z = p.maxGridSize[2];
    d->clock_rate_khz = p.clockRate;
    d->memory_clock_rate_khz = p.memoryClockRate;
    d->memory_bus_width = p.memoryBusWidth;
    d->major = p.major;
    d->minor = p.minor;
    d->multiprocessor_count = p.multiProcessorCount;
    d->l2_cache_size = p.l2CacheSize;
    d->max_threads_per_multiprocessor = p.maxThreadsPerMultiProcessor;
    d->compute_mode = p.computeMode;
    d->concurrent_kernels = p.concurrentKernels;
    d->pci_domain_id = p.pciDomainID;
    d->pci_bus_id = p.pciBusID;
    d->pci_device_id = p.pciDeviceID;
    d->integrated = p.integrated;
    d->can_map_host_memory = 0; /* client memory is never device-mapped */
    d->ecc_enabled = p.ECCEnabled;
    d->managed_memory = p.managedMemory;
    d->cooperative_launch = p.cooperativeLaunch;
    d->is_multi_gpu_board = p.isMultiGpuBoard;
    d->stream_priority_low = lo;
    d->stream_priority_high = hi;
#if HIP_VERSION_MAJOR < 6 /* HIP 6 removed gcnArch from hipDeviceProp_t */
    d->gcn_arch = p.gcnArch;
#endif
    hipUUID u;
    if (be->api.hipDeviceGetUuid(&u, dev) == hipSuccess)
        memcpy(d->uuid, u.bytes, sizeof d->uuid);
    return HW_OK;
}

/* An attribute the runtime does not answer (AMD's refuses the CUDA-only
 * ones) reads as 0: the device has no such limit that HIP can tell. */
static int hattr(struct hw_backend *be, int dev, hipDeviceAttribute_t a)
{
    int v = 0;
    if (be->api.hipDeviceGetAttribute(&v, a, dev) != hipSuccess)
        v = 0;
    return v;
}

static int hip_device_attributes(struct hw_backend *be, int dev, struct hipr_devattr *a)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    a->max_texture_1d = hattr(be, dev, hipDeviceAttributeMaxTexture1DWidth);
    a->max_texture_1d_linear = hattr(be, dev, hipDeviceAttributeMaxTexture1DLinear);
    a->max_texture_1d_mipmap = hattr(be, dev, hipDeviceAttributeMaxTexture1DMipmap);
    a->max_texture_1d_layered = hattr(be, dev, hipDeviceAttributeMaxTexture1DLayered);
    a->max_texture_2d_width = hattr(be, dev, hipDeviceAttributeMaxTexture2DWidth);
    a->max_texture_2d_height = hattr(be, dev, hipDeviceAttributeMaxTexture2DHeight);
    a->max_texture_2d_gather = hattr(be, dev, hipDeviceAttributeMaxTexture2DGather);
    a->max_texture_2d_layered = hattr(be, dev, hipDeviceAttributeMaxTexture2DLayered);
    a->max_texture_2d_linear = hattr(be, dev, hipDeviceAttributeMaxTexture2DLinear);
    a->max_texture_2d_mipmap = hattr(be, dev, hipDeviceAttributeMaxTexture2DMipmap);
    a->max_texture_3d_width = hattr(be, dev, hipDeviceAttributeMaxTexture3DWidth);
    a->max_texture_3d_height = hattr(be, dev, hipDeviceAttributeMaxTexture3DHeight);
    a->max_texture_3d_depth = hattr(be, dev, hipDeviceAttributeMaxTexture3DDepth);
    a->max_texture_3d_alt = hattr(be, dev, hipDeviceAttributeMaxTexture3DAlt);
    a->max_texture_cubemap = hattr(be, dev, hipDeviceAttributeMaxTextureCubemap);
    a->max_texture_cubemap_layered = hattr(be, dev, hipDeviceAttributeMaxTextureCubemapLayered);
    a->max_surface_1d = hattr(be, dev, hipDeviceAttributeMaxSurface1D);
    a->max_surface_1d_layered = hattr(be, dev, hipDeviceAttributeMaxSurface1DLayered);
    a->max_surface_2d = hattr(be, dev, hipDeviceAttributeMaxSurface2D);
    a->max_surface_2d_layered = hattr(be, dev, hipDeviceAttributeMaxSurface2DLayered);
    a->max_surface_3d = hattr(be, dev, hipDeviceAttributeMaxSurface3D);
    a->max_surface_cubemap = hattr(be, dev, hipDeviceAttributeMaxSurfaceCubemap);
    a->max_surface_cubemap_layered = hattr(be, dev, hipDeviceAttributeMaxSurfaceCubemapLayered);
    a->surface_alignment = hattr(be, dev, hipDeviceAttributeSurfaceAlignment);
    a->texture_pitch_alignment = hattr(be, dev, hipDeviceAttributeTexturePitchAlignment);
    a->access_policy_max_window_size = hattr(be, dev, hipDeviceAttributeAccessPolicyMaxWindowSize);
    a->compute_preemption_supported = hattr(be, dev, hipDeviceAttributeComputePreemptionSupported);
    a->global_l1_cache_supported = hattr(be, dev, hipDeviceAttributeGlobalL1CacheSupported);
    a->local_l1_cache_supported = hattr(be, dev, hipDeviceAttributeLocalL1CacheSupported);
    a->kernel_exec_timeout = hattr(be, dev, hipDeviceAttributeKernelExecTimeout);
    a->max_blocks_per_multiprocessor = hattr(be, dev, hipDeviceAttributeMaxBlocksPerMultiProcessor);
    a->multi_gpu_board_group_id = hattr(be, dev, hipDeviceAttributeMultiGpuBoardGroupID);
    a->persisting_l2_cache_max_size = hattr(be, dev, hipDeviceAttributePersistingL2CacheMaxSize);
    a->reserved_shared_mem_per_block = hattr(be, dev, hipDeviceAttributeReservedSharedMemPerBlock);
    a->single_to_double_precision_perf_ratio =
        hattr(be, dev, hipDeviceAttributeSingleToDoublePrecisionPerfRatio);
    a->tcc_driver = hattr(be, dev, hipDeviceAttributeTccDriver);
    a->asic_revision = hattr(be, dev, hipDeviceAttributeAsicRevision);
    hipDeviceProp_t p;
    if (be->api.hipGetDeviceProperties(&p, dev) == hipSuccess) {
        const hipDeviceArch_t *h = &p.arch;
        a->arch = (h->hasGlobalInt32Atomics ? HIPR_ARCH_GLOBAL_INT32_ATOMICS : 0) |
                  (h->hasGlobalFloatAtomicExch ? HIPR_ARCH_GLOBAL_FLOAT_ATOMIC_EXCH : 0) |
                  (h->hasSharedInt32Atomics ? HIPR_ARCH_SHARED_INT32_ATOMICS : 0) |
                  (h->hasSharedFloatAtomicExch ? HIPR_ARCH_SHARED_FLOAT_ATOMIC_EXCH : 0) |
                  (h->hasFloatAtomicAdd ? HIPR_ARCH_FLOAT_ATOMIC_ADD : 0) |
                  (h->hasGlobalInt64Atomics ? HIPR_ARCH_GLOBAL_INT64_ATOMICS : 0) |
                  (h->hasSharedInt64Atomics ? HIPR_ARCH_SHARED_INT64_ATOMICS : 0) |
                  (h->hasDoubles ? HIPR_ARCH_DOUBLES : 0) |
                  (h->hasWarpVote ? HIPR_ARCH_WARP_VOTE : 0) |
                  (h->hasWarpBallot ? HIPR_ARCH_WARP_BALLOT : 0) |
                  (h->hasWarpShuffle ? HIPR_ARCH_WARP_SHUFFLE : 0) |
                  (h->hasFunnelShift ? HIPR_ARCH_FUNNEL_SHIFT : 0) |
                  (h->hasThreadFenceSystem ? HIPR_ARCH_THREAD_FENCE_SYSTEM : 0) |
                  (h->hasSyncThreadsExt ? HIPR_ARCH_SYNC_THREADS_EXT : 0) |
                  (h->hasSurfaceFuncs ? HIPR_ARCH_SURFACE_FUNCS : 0) |
                  (h->has3dGrid ? HIPR_ARCH_3D_GRID : 0) |
                  (h->hasDynamicParallelism ? HIPR_ARCH_DYNAMIC_PARALLELISM : 0);
    }
    return HW_OK;
}

static void hip_versions(struct hw_backend *be, int *runtime, int *driver)
{
    *runtime = *driver = 0;
    be->api.hipRuntimeGetVersion(runtime);
    be->api.hipDriverGetVersion(driver);
}

static int hip_mem_info(struct hw_backend *be, int dev, uint64_t *free_out, uint64_t *total_out)
{
    size_t fr, tot;
    int rc = hipb_use(be, dev);
    if (rc == HW_OK)
        rc = hipb_st(be->api.hipMemGetInfo(&fr, &tot));
    if (rc != HW_OK)
        return rc;
    *free_out = fr;
    *total_out = tot;
    return HW_OK;
}

static int hip_mem_alloc(struct hw_backend *be, int dev, uint64_t size, uint64_t *dptr_out)
{
    void *p = NULL;
    int rc = hipb_use(be, dev);
    if (rc == HW_OK)
        rc = hipb_st(be->api.hipMalloc(&p, (size_t)size));
    if (rc != HW_OK)
        return rc;
    *dptr_out = (uint64_t)(uintptr_t)p;
    return HW_OK;
}

static int hip_mem_free(struct hw_backend *be, int dev, uint64_t dptr, uint64_t size)
{
    (void)size;
    int rc = hipb_use(be, dev);
    return rc == HW_OK ? hipb_st(be->api.hipFree((void *)(uintptr_t)dptr)) : rc;
}

static int hip_stream_default(struct hw_backend *be, int dev, struct hw_bstream **out)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    *out = &be->defaults[dev];
    return HW_OK;
}

static int hip_stream_create(struct hw_backend *be, int dev, uint32_t flags, int priority,
                             struct hw_bstream **out)
{
    struct hw_bstream *s = hw_calloc(1, sizeof *s);
    if (!s)
        return HW_ENOMEM;
    int rc = hipb_use(be, dev);
    if (rc == HW_OK)
        rc = hipb_st(be->api.hipStreamCreateWithPriority(&s->s, flags, priority));
    if (rc != HW_OK) {
        free(s);
        return rc;
    }
    s->dev = dev;
    *out = s;
    return HW_OK;
}

static void hip_stream_destroy(struct hw_backend *be, struct hw_bstream *s)
{
    hipb_use(be, s->dev);
    be->api.hipStreamDestroy(s->s); /* HIP lets queued work finish */
    free(s);
}

static int hip_stream_query(struct hw_backend *be, struct hw_bstream *s)
{
    hipb_use(be, s->dev);
    return hipb_st(be->api.hipStreamQuery(s->s));
}

static int new_event(struct hw_backend *be, int dev, unsigned flags, struct hw_bevent **out)
{
    struct hw_bevent *e = hw_calloc(1, sizeof *e);
    if (!e)
        return HW_ENOMEM;
    int rc = hipb_use(be, dev);
    if (rc == HW_OK)
        rc = hipb_st(be->api.hipEventCreateWithFlags(&e->ev, flags));
    if (rc != HW_OK) {
        free(e);
        return rc;
    }
    e->dev = dev;
    e->pending = 1; /* the creator's reference */
    *out = e;
    return HW_OK;
}

int hipb_stream_callback(struct hw_backend *be, struct hw_bstream *s, hw_done_fn fn, void *arg)
{
    struct hw_bevent *e;
    int rc = new_event(be, s->dev, hipEventDisableTiming, &e);
    if (rc != HW_OK)
        return rc;
    rc = hipb_st(be->api.hipEventRecord(e->ev, s->s));
    if (rc == HW_OK)
        rc = enqueue_completion(be, e, 1, fn, arg);
    /* Drop the creator's reference; the completion holds its own. */
    if (rc != HW_OK)
        e->destroyed = 1;
    pthread_mutex_lock(&be->lock);
    int free_it = --e->pending == 0;
    pthread_mutex_unlock(&be->lock);
    if (free_it) {
        be->api.hipEventDestroy(e->ev);
        free(e);
    }
    return rc;
}

static int hip_memcpy_h2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst,
                          const void *src, uint64_t n, hw_done_fn release, void *release_arg)
{
    hipb_use(be, s->dev);
    int rc = hipb_st(
        be->api.hipMemcpyHtoDAsync((hipDeviceptr_t)(uintptr_t)dst, (void *)src, (size_t)n, s->s));
    if (rc != HW_OK)
        return rc;
    return release ? hipb_stream_callback(be, s, release, release_arg) : HW_OK;
}

/* Host regions (ops_region.c): pinned, so hipMemcpyHtoDAsync and
 * hipMemcpyDtoHAsync from and into them are DMA, with no staging. */
static int hip_host_register(struct hw_backend *be, void *p, uint64_t n)
{
    return hipb_st(be->api.hipHostRegister(p, (size_t)n, hipHostRegisterPortable));
}

static void hip_host_unregister(struct hw_backend *be, void *p)
{
    be->api.hipHostUnregister(p);
}

static int hip_memcpy_d2h(struct hw_backend *be, struct hw_bstream *s, void *dst, uint64_t src,
                          uint64_t n)
{
    hipb_use(be, s->dev);
    return hipb_st(
        be->api.hipMemcpyDtoHAsync(dst, (hipDeviceptr_t)(uintptr_t)src, (size_t)n, s->s));
}

static int hip_memcpy_d2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, uint64_t src,
                          uint64_t n)
{
    hipb_use(be, s->dev);
    return hipb_st(be->api.hipMemcpyDtoDAsync((hipDeviceptr_t)(uintptr_t)dst,
                                              (hipDeviceptr_t)(uintptr_t)src, (size_t)n, s->s));
}

static int hip_memset(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, uint32_t value,
                      uint32_t elem_size, uint64_t count)
{
    hipDeviceptr_t p = (hipDeviceptr_t)(uintptr_t)dst;
    hipb_use(be, s->dev);
    switch (elem_size) {
    case 1: return hipb_st(be->api.hipMemsetD8Async(p, (unsigned char)value, (size_t)count, s->s));
    case 2:
        return hipb_st(be->api.hipMemsetD16Async(p, (unsigned short)value, (size_t)count, s->s));
    case 4: return hipb_st(be->api.hipMemsetD32Async(p, (int)value, (size_t)count, s->s));
    default: return HW_EINVAL;
    }
}

static int hip_event_create(struct hw_backend *be, int dev, uint32_t flags, struct hw_bevent **out)
{
    return new_event(be, dev, flags, out);
}

static void hip_event_destroy(struct hw_backend *be, struct hw_bevent *e)
{
    pthread_mutex_lock(&be->lock);
    e->destroyed = 1;
    pthread_mutex_unlock(&be->lock);
    release_event(be, e);
}

static int hip_event_record(struct hw_backend *be, struct hw_bevent *e, struct hw_bstream *s)
{
    hipb_use(be, s->dev);
    return hipb_st(be->api.hipEventRecord(e->ev, s->s));
}

static int hip_event_query(struct hw_backend *be, struct hw_bevent *e)
{
    hipb_use(be, e->dev);
    return hipb_st(be->api.hipEventQuery(e->ev));
}

static int hip_event_callback(struct hw_backend *be, struct hw_bevent *e, hw_done_fn fn, void *arg)
{
    return enqueue_completion(be, e, 0, fn, arg);
}

static int hip_event_elapsed(struct hw_backend *be, struct hw_bevent *a, struct hw_bevent *b,
                             float *ms_out)
{
    float ms = 0;
    hipb_use(be, a->dev);
    int rc = hipb_st(be->api.hipEventElapsedTime(&ms, a->ev, b->ev));
    if (rc == HW_OK)
        *ms_out = ms;
    return rc;
}

static int hip_stream_wait_event(struct hw_backend *be, struct hw_bstream *s, struct hw_bevent *e)
{
    hipb_use(be, s->dev);
    return hipb_st(be->api.hipStreamWaitEvent(s->s, e->ev, 0));
}

static int hip_module_load(struct hw_backend *be, int dev, const void *image, size_t size,
                           struct hw_bmodule **out)
{
    hw_cob_err err = { { 0 } };
    struct hw_bmodule *m = hw_calloc(1, sizeof *m);
    if (!m)
        return HW_ENOMEM;
    /* The runtime keeps the layouts to itself; the code object says them.
     * (The worker hands over single code objects, never bundles.) */
    if (hw_cob_detect(image, size) == HW_COB_KIND_ELF) {
        int rc = hw_cob_elf_metadata(image, size, &m->md, &err);
        if (rc == HW_COB_OK)
            m->has_md = 1;
        else if (rc != HW_COB_EFORMAT)
            hw_debug("hip backend: code object metadata unreadable: %s", err.msg);
    }
    int rc = hipb_use(be, dev);
    if (rc == HW_OK)
        rc = hipb_st(be->api.hipModuleLoadData(&m->mod, image));
    if (rc != HW_OK) {
        if (m->has_md)
            hw_cob_metadata_free(&m->md);
        free(m);
        return rc;
    }
    m->dev = dev;
    *out = m;
    return HW_OK;
}

static void hip_module_unload(struct hw_backend *be, struct hw_bmodule *m)
{
    while (m->functions) {
        struct hw_bfunction *f = m->functions;
        m->functions = f->next;
        free(f->params);
        free(f);
    }
    hipb_use(be, m->dev);
    be->api.hipModuleUnload(m->mod);
    if (m->has_md)
        hw_cob_metadata_free(&m->md);
    free(m);
}

/* The layout from the code object: the arguments a caller passes (hidden
 * ones are the runtime's), packed size = end of the last of them. */
static int layout_from_metadata(const struct hw_bmodule *m, const char *name,
                                struct hw_param **params, uint32_t *count, uint32_t *args_size)
{
    const hw_cob_kernel *k = hw_cob_find_kernel(&m->md, name);
    if (!k)
        return HW_EIMAGE; /* the runtime has it, its metadata does not */
    if (k->nargs > HIPR_CAP_PARAMS || k->explicit_size > HIPR_CAP_KERNEL_ARGS)
        return HW_EIMAGE;
    struct hw_param *p = hw_calloc(k->nargs ? k->nargs : 1, sizeof *p);
    if (!p)
        return HW_ENOMEM;
    for (uint32_t i = 0; i < k->nargs; i++)
        p[i] = (struct hw_param){ k->args[i].offset, k->args[i].size };
    *params = p;
    *count = k->nargs;
    *args_size = k->explicit_size;
    return HW_OK;
}

/* The layout the next worker reported (the relay: this runtime is hipwire's
 * proxy). */
static int layout_from_relay(struct hw_backend *be, hipFunction_t fn, struct hw_param **params,
                             uint32_t *count, uint32_t *args_size)
{
    uint32_t *pairs = hw_calloc(2 * HIPR_CAP_PARAMS, sizeof *pairs);
    if (!pairs)
        return HW_ENOMEM;
    if (be->api.hipwire_function_params(fn, count, args_size, pairs, HIPR_CAP_PARAMS) != 0 ||
        *count > HIPR_CAP_PARAMS) {
        free(pairs);
        return HW_EIMAGE;
    }
    struct hw_param *p = hw_calloc(*count ? *count : 1, sizeof *p);
    if (!p) {
        free(pairs);
        return HW_ENOMEM;
    }
    for (uint32_t i = 0; i < *count; i++)
        p[i] = (struct hw_param){ pairs[2 * i], pairs[2 * i + 1] };
    free(pairs);
    *params = p;
    return HW_OK;
}

static int same_layout(const struct hw_param *a, uint32_t na, uint32_t sa, const struct hw_param *b,
                       uint32_t nb, uint32_t sb)
{
    if (na != nb || sa != sb)
        return 0;
    for (uint32_t i = 0; i < na; i++)
        if (a[i].offset != b[i].offset || a[i].size != b[i].size)
            return 0;
    return 1;
}

static int hip_module_function(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                               struct hw_bfunction **out, struct hw_func_info *info)
{
    uint32_t count = 0, args_size = 0;
    struct hw_param *params = NULL;
    hipFunction_t fn;
    hipb_use(be, m->dev);
    int rc = hipb_st(be->api.hipModuleGetFunction(&fn, m->mod, name));
    if (rc != HW_OK)
        return rc;
    if (m->has_md) {
        rc = layout_from_metadata(m, name, &params, &count, &args_size);
        /* Relaying, the next worker derived the layout on its own: the two
         * must agree, or one of them packs arguments wrongly. */
        if (rc == HW_OK && be->api.hipwire_function_params) {
            struct hw_param *relayed = NULL;
            uint32_t rcount = 0, rsize = 0;
            rc = layout_from_relay(be, fn, &relayed, &rcount, &rsize);
            if (rc == HW_OK && !same_layout(params, count, args_size, relayed, rcount, rsize)) {
                hw_warn("hip backend: %s: code object says %u arguments in %u bytes, the next "
                        "worker %u in %u",
                        name, count, args_size, rcount, rsize);
                rc = HW_EIMAGE;
            }
            free(relayed);
        }
    } else if (be->api.hipwire_function_params) {
        rc = layout_from_relay(be, fn, &params, &count, &args_size);
    } else {
        rc = HW_ENOTSUP; /* neither an AMD code object nor a relay */
    }
    if (rc != HW_OK) {
        free(params);
        return rc;
    }
    hw_debug("hip backend: %s: %u arguments in %u bytes (layout from %s)", name, count, args_size,
             m->has_md ? "its code object" : "the next worker");
    struct hw_bfunction *f = hw_calloc(1, sizeof *f);
    if (!f) {
        free(params);
        return HW_ENOMEM;
    }
    f->fn = fn;
    f->params = params;
    f->next = m->functions;
    m->functions = f;

    memset(info, 0, sizeof *info);
    info->param_count = count;
    info->args_size = args_size;
    info->params = params;
    int v = 0;
#define ATTR_(a, field)                                       \
    if (be->api.hipFuncGetAttribute(&v, a, fn) == hipSuccess) \
        info->field = v;
    ATTR_(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, max_threads_per_block)
    ATTR_(HIP_FUNC_ATTRIBUTE_NUM_REGS, num_regs)
    ATTR_(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, shared_size_bytes)
    ATTR_(HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, const_size_bytes)
    ATTR_(HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, local_size_bytes)
    ATTR_(HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_dynamic_shared)
    ATTR_(HIP_FUNC_ATTRIBUTE_PTX_VERSION, ptx_version)
    ATTR_(HIP_FUNC_ATTRIBUTE_BINARY_VERSION, binary_version)
#undef ATTR_
    *out = f;
    return HW_OK;
}

static int hip_module_global(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                             uint64_t *dptr_out, uint64_t *size_out)
{
    hipDeviceptr_t p;
    size_t size;
    hipb_use(be, m->dev);
    int rc = hipb_st(be->api.hipModuleGetGlobal(&p, &size, m->mod, name));
    if (rc != HW_OK)
        return rc;
    *dptr_out = (uint64_t)(uintptr_t)p;
    *size_out = size;
    return HW_OK;
}

static int hip_launch(struct hw_backend *be, struct hw_bstream *s, struct hw_bfunction *f,
                      const uint32_t grid[3], const uint32_t block[3], uint32_t shared_mem,
                      const void *args, uint32_t args_size, uint32_t flags)
{
    size_t size = args_size;
    /* The packed buffer is passed as is; HIP copies it before returning. */
    void *extra[] = { HIP_LAUNCH_PARAM_BUFFER_POINTER, (void *)args, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                      &size, HIP_LAUNCH_PARAM_END };
    hipb_use(be, s->dev);
    /* Relaying, the flags go on to the next worker, which decides. */
    if (be->api.hipwire_module_launch_kernel)
        return hipb_st(be->api.hipwire_module_launch_kernel(f->fn, grid[0], grid[1], grid[2],
                                                            block[0], block[1], block[2],
                                                            shared_mem, s->s, extra, flags));
    /* ROCm 5.2 has no cooperative launch of module functions, and an
     * ordinary launch does not keep every block resident. */
    if (flags & HIPR_LAUNCH_COOPERATIVE)
        return HW_ENOTSUP;
    return hipb_st(be->api.hipModuleLaunchKernel(f->fn, grid[0], grid[1], grid[2], block[0],
                                                 block[1], block[2], shared_mem, s->s, NULL,
                                                 extra));
}

static int hip_rtc_compile(struct hw_backend *be, int dev, const struct hw_rtc_input *in,
                           struct hw_rtc_output *out)
{
    return hw_hip_rtc_compile(&be->api, dev, in, out);
}

const struct hw_backend_ops hw_hip_backend_ops = {
    .size = sizeof(struct hw_backend_ops),
    .abi_version = HW_BACKEND_ABI_VERSION,
    .name = "hip",
    .open = hip_open,
    .close = hip_close,
    .device_count = hip_device_count,
    .device_info = hip_device_info,
    .versions = hip_versions,
    .mem_info = hip_mem_info,
    .mem_alloc = hip_mem_alloc,
    .mem_free = hip_mem_free,
    .host_ptr = NULL,
    .stream_default = hip_stream_default,
    .stream_create = hip_stream_create,
    .stream_destroy = hip_stream_destroy,
    .stream_query = hip_stream_query,
    .stream_callback = hipb_stream_callback,
    .memcpy_h2d = hip_memcpy_h2d,
    .memcpy_d2h = hip_memcpy_d2h,
    .memcpy_d2d = hip_memcpy_d2d,
    .memset = hip_memset,
    .event_create = hip_event_create,
    .event_destroy = hip_event_destroy,
    .event_record = hip_event_record,
    .event_query = hip_event_query,
    .event_callback = hip_event_callback,
    .event_elapsed = hip_event_elapsed,
    .stream_wait_event = hip_stream_wait_event,
    .module_load = hip_module_load,
    .module_unload = hip_module_unload,
    .module_function = hip_module_function,
    .module_global = hip_module_global,
    .launch = hip_launch,
    .rtc_compile = hip_rtc_compile,
    .device_attributes = hip_device_attributes,
    .stage_get = hipb_stage_get,
    .stage_h2d = hipb_stage_h2d,
    .stage_d2h = hipb_stage_d2h,
    .stage_wait = hipb_stage_wait,
    .stage_put = hipb_stage_put,
    .host_register = hip_host_register,
    .host_unregister = hip_host_unregister,
    /* hipMemcpy*Async on registered memory is already DMA. */
    .memcpy_h2d_registered = NULL,
    .memcpy_d2h_registered = NULL,
};
