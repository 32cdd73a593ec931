/*
 * cpu_backend.c - the "cpu" backend: a software device for development and
 * CI. Device memory is this process's memory, so device addresses are real
 * addresses the kernels dereference directly.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "cpu_internal.h"
#include "cpu_sched.h"
#include "rtc_compile.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older headers lack it */
#endif

#define CPU_DEFAULT_MEMORY (UINT64_C(4) << 30)
#define CPU_ALIGN          256

/* Test hook: HIPWIRE_CPU_START_DELAY_MS makes opening the device as slow as
 * a GPU runtime's context creation, so tests can exercise a slow device
 * start (docs/worker.md, "Admission"). Unset in production. */
static void start_delay(void)
{
    const char *v = getenv("HIPWIRE_CPU_START_DELAY_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms <= 0 || ms > 600000)
        return;
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0)
        ;
}

/* Test hook: HIPWIRE_CPU_OCCUPY=ADDR (hex) takes 64 MiB at ADDR in every
 * session process before any allocation, so that a session migrated in with
 * allocations there is refused (tests/integration, integration_migrate_taken).
 * Unset in production. */
static void occupy(void)
{
    const char *v = getenv("HIPWIRE_CPU_OCCUPY");
    uint64_t at = v ? strtoull(v, NULL, 16) : 0;
    if (at)
        mmap((void *)(uintptr_t)at, 64u << 20, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
}

static int cpu_open(const struct hw_backend_config *cfg, struct hw_backend **out)
{
    start_delay();
    occupy();
    struct hw_backend *be = hw_calloc(1, sizeof *be);
    int ndev = cfg->cpu_devices > 0 ? cfg->cpu_devices : 1;
    if (!be)
        return HW_ENOMEM;
    be->cfg = *cfg;
    const char *nhp = getenv("HIPWIRE_CPU_NO_HOST_PTR");
    be->no_host_ptr = nhp && nhp[0] == '1';
    pthread_mutex_init(&be->stage_lock, NULL);
    pthread_cond_init(&be->stage_cond, NULL);
    pthread_mutex_init(&be->alias_lock, NULL);
    pthread_mutex_init(&be->sync.lock, NULL);
    pthread_cond_init(&be->sync.changed, NULL);
    be->devs = hw_calloc((size_t)ndev, sizeof *be->devs);
    if (!be->devs)
        goto fail;
    for (int i = 0; i < ndev; i++) {
        struct cpu_device *d = &be->devs[i];
        d->index = i;
        d->total = cfg->mem_limit ? cfg->mem_limit : CPU_DEFAULT_MEMORY;
        d->lock = &be->sync.lock;
        d->changed = &be->sync.changed;
        d->waiters = &be->sync.waiters;
        struct hw_bstream *s = hw_calloc(1, sizeof *s);
        if (!s)
            goto fail;
        s->dev = d;
        s->is_default = 1;
        d->streams = s;
        be->ndev = i + 1;
        if (cpu_stream_start(s) != HW_OK)
            goto fail;
    }
    *out = be;
    return HW_OK;
fail:
    for (int i = 0; i < be->ndev; i++) {
        cpu_stream_stop_all(&be->devs[i]);
        free(be->devs[i].streams);
    }
    free(be->devs);
    free(be);
    return HW_ENOMEM;
}

static void cpu_close(struct hw_backend *be)
{
    cpu_sched_session_end(&be->sync.lock, be->cfg.shared);
    for (int i = 0; i < be->ndev; i++) {
        struct cpu_device *d = &be->devs[i];
        cpu_stream_stop_all(d);
        while (d->streams) {
            struct hw_bstream *s = d->streams;
            d->streams = s->next_in_dev;
            if (s->work_init)
                pthread_cond_destroy(&s->work);
            free(s);
        }
    }
    pthread_mutex_destroy(&be->sync.lock);
    pthread_cond_destroy(&be->sync.changed);
    pthread_mutex_destroy(&be->stage_lock);
    pthread_cond_destroy(&be->stage_cond);
    pthread_mutex_destroy(&be->alias_lock);
    free(be->aliases); /* the aliased pages go with the process */
    free(be->devs);
    free(be);
}

static int cpu_device_count(struct hw_backend *be, int *count)
{
    *count = be->ndev;
    return HW_OK;
}

static int cpu_device_info(struct hw_backend *be, int dev, struct hipr_devinfo *p)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    memset(p, 0, sizeof *p);
    strcpy(p->name, "hipwire CPU device");
    strcpy(p->arch_name, "hipwire-cpu");
    p->uuid[0] = 'h';
    p->uuid[1] = 'w';
    p->uuid[15] = (uint8_t)dev;
    p->total_global_mem = be->devs[dev].total;
    p->shared_mem_per_block = 64 * 1024;
    p->shared_mem_per_block_optin = 64 * 1024;
    p->shared_mem_per_multiprocessor = 64 * 1024;
    p->total_const_mem = 64 * 1024;
    p->mem_pitch = INT32_MAX;
    p->texture_alignment = CPU_ALIGN;
    p->regs_per_block = 65536;
    p->regs_per_multiprocessor = 65536;
    /* What kernels see as warpSize (cpu_sched.c): AMD CDNA's wavefront. */
    p->warp_size = HIPWIRE_CPU_WARP_SIZE;
    p->max_threads_per_block = 1024;
    p->max_threads_dim_x = 1024;
    p->max_threads_dim_y = 1024;
    p->max_threads_dim_z = 64;
    p->max_grid_size_x = INT32_MAX;
    p->max_grid_size_y = 65535;
    p->max_grid_size_z = 65535;
    p->clock_rate_khz = 1000000;
    p->memory_clock_rate_khz = 1000000;
    p->memory_bus_width = 64;
    p->major = 0;
    p->minor = 0;
    p->multiprocessor_count = cpu_sched_threads(); /* blocks that run at once */
    p->l2_cache_size = 0;
    p->max_threads_per_multiprocessor = 1024;
    p->concurrent_kernels = ncpu > 1;
    p->pci_domain_id = 0;
    p->pci_bus_id = 0;
    p->pci_device_id = dev;
    p->integrated = 1;
    p->can_map_host_memory = 0;
    p->async_engine_count = 0;
    p->unified_addressing = 0;
    p->managed_memory = 0;
    p->cooperative_launch = 0;
    p->stream_priority_low = 0;
    p->stream_priority_high = 0;
    return HW_OK;
}

/* The CPU device has no texture unit: hipwire's arrays and textures are
 * plain memory to it. Its limits are AMD CDNA's (what ROCm reports for
 * gfx90a), so code sized for a ROCm GPU sees the same bounds; the rest
 * describes a CPU (docs/backend-cpu.md lists every value). */
#define CPU_IMAGE_MAX 16384
static int cpu_device_attributes(struct hw_backend *be, int dev, struct hipr_devattr *a)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    a->max_texture_1d = CPU_IMAGE_MAX;
    a->max_texture_1d_linear = 1 << 27;
    a->max_texture_1d_mipmap = CPU_IMAGE_MAX;
    a->max_texture_1d_layered = CPU_IMAGE_MAX;
    a->max_texture_2d_width = CPU_IMAGE_MAX;
    a->max_texture_2d_height = CPU_IMAGE_MAX;
    a->max_texture_2d_gather = CPU_IMAGE_MAX;
    a->max_texture_2d_layered = CPU_IMAGE_MAX;
    a->max_texture_2d_linear = CPU_IMAGE_MAX;
    a->max_texture_2d_mipmap = CPU_IMAGE_MAX;
    a->max_texture_3d_width = CPU_IMAGE_MAX;
    a->max_texture_3d_height = CPU_IMAGE_MAX;
    a->max_texture_3d_depth = 8192;
    a->max_texture_cubemap = CPU_IMAGE_MAX;
    a->max_texture_cubemap_layered = CPU_IMAGE_MAX;
    a->max_surface_1d = CPU_IMAGE_MAX;
    a->max_surface_1d_layered = CPU_IMAGE_MAX;
    a->max_surface_2d = CPU_IMAGE_MAX;
    a->max_surface_2d_layered = CPU_IMAGE_MAX;
    a->max_surface_3d = CPU_IMAGE_MAX;
    a->max_surface_cubemap = CPU_IMAGE_MAX;
    a->max_surface_cubemap_layered = CPU_IMAGE_MAX;
    a->surface_alignment = CPU_ALIGN;
    a->texture_pitch_alignment = CPU_ALIGN;
    a->compute_preemption_supported = 1; /* kernels are threads the OS preempts */
    a->global_l1_cache_supported = 1;
    a->local_l1_cache_supported = 1;
    a->max_blocks_per_multiprocessor = 1;         /* a pool thread runs one block at a time */
    a->single_to_double_precision_perf_ratio = 2; /* SIMD lanes hold twice the floats */
    /* What HIP source compiled for this device (kernel ABI 2, the prelude
     * of docs/hip-source.md) has: host atomics of every width, warp votes,
     * ballots and shuffles in lockstep, full fences, __syncthreads_count/
     * and/or, doubles, 3-D grids. No funnel shifts, surfaces or device-side
     * launches. */
    a->arch = HIPR_ARCH_GLOBAL_INT32_ATOMICS | HIPR_ARCH_GLOBAL_FLOAT_ATOMIC_EXCH |
              HIPR_ARCH_SHARED_INT32_ATOMICS | HIPR_ARCH_SHARED_FLOAT_ATOMIC_EXCH |
              HIPR_ARCH_FLOAT_ATOMIC_ADD | HIPR_ARCH_GLOBAL_INT64_ATOMICS |
              HIPR_ARCH_SHARED_INT64_ATOMICS | HIPR_ARCH_DOUBLES | HIPR_ARCH_WARP_VOTE |
              HIPR_ARCH_WARP_BALLOT | HIPR_ARCH_WARP_SHUFFLE | HIPR_ARCH_THREAD_FENCE_SYSTEM |
              HIPR_ARCH_SYNC_THREADS_EXT | HIPR_ARCH_3D_GRID;
    return HW_OK;
}

static void cpu_versions(struct hw_backend *be, int *runtime, int *driver)
{
    (void)be;
    *runtime = 0;
    *driver = 0;
}

static int cpu_mem_info(struct hw_backend *be, int dev, uint64_t *free_out, uint64_t *total_out)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct cpu_device *d = &be->devs[dev];
    pthread_mutex_lock(d->lock);
    *total_out = d->total;
    *free_out = d->total > d->allocated ? d->total - d->allocated : 0;
    pthread_mutex_unlock(d->lock);
    return HW_OK;
}

static uint64_t round_up(uint64_t n)
{
    return (n + CPU_ALIGN - 1) & ~(uint64_t)(CPU_ALIGN - 1);
}

/*
 * Device memory is mapped in a window of its own, as a GPU's is, never taken
 * from the worker's heap: the proxy tells device from host pointers by
 * address (hipMemcpyDefault, pointer attributes), and a heap address of the
 * worker may well be a live heap address of the client too (two processes'
 * heaps overlap; under AddressSanitizer both allocators hand out the very
 * same addresses). The window starts at 80 TiB, above where heaps, mmaps and
 * AddressSanitizer's allocator live; each mapping is asked for at the next
 * address there (a hint: the kernel moves it where something else lives).
 */
#define CPU_DEVICE_WINDOW 0x500000000000ull
#define CPU_MAP_GRAIN     (2ull << 20)

/* Where the next mapping is asked for (a hint). */
static uint64_t device_next = CPU_DEVICE_WINDOW;

static uint64_t map_size(uint64_t rounded)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    return rounded ? (rounded + page - 1) & ~(page - 1)
                   : page; /* a 0-byte one has an address too */
}

static void *device_map(uint64_t rounded)
{
    uint64_t len = map_size(rounded);
    uint64_t span = (len + CPU_MAP_GRAIN - 1) & ~(CPU_MAP_GRAIN - 1);
    uint64_t hint = __atomic_fetch_add(&device_next, span, __ATOMIC_RELAXED);
    void *p = mmap((void *)(uintptr_t)hint, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static int cpu_mem_alloc(struct hw_backend *be, int dev, uint64_t size, uint64_t *dptr_out)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct cpu_device *d = &be->devs[dev];
    uint64_t rounded = round_up(size);
    if (rounded < size)
        return HW_ENOMEM;
    pthread_mutex_lock(d->lock);
    int fits = rounded <= d->total - d->allocated;
    if (fits)
        d->allocated += rounded;
    pthread_mutex_unlock(d->lock);
    if (!fits)
        return HW_ENOMEM;
    void *p = device_map(rounded);
    if (!p) {
        pthread_mutex_lock(d->lock);
        d->allocated -= rounded;
        pthread_mutex_unlock(d->lock);
        return HW_ENOMEM;
    }
    *dptr_out = (uint64_t)(uintptr_t)p;
    return HW_OK;
}

/*
 * Migration (docs/worker.md, "Migration"): the session's allocations come
 * back at the addresses the source worker's device gave them. The range must
 * be free in this process (MAP_FIXED_NOREPLACE; a kernel too old for it
 * treats the flag as a hint, hence the address check), and later
 * allocations are asked for past it.
 */
static int cpu_mem_alloc_at(struct hw_backend *be, int dev, uint64_t size, uint64_t dptr)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    struct cpu_device *d = &be->devs[dev];
    uint64_t rounded = round_up(size);
    if (rounded < size || (dptr & (page - 1)) || !dptr)
        return HW_EINVAL;
    uint64_t len = map_size(rounded);
    pthread_mutex_lock(d->lock);
    int fits = rounded <= d->total - d->allocated;
    if (fits)
        d->allocated += rounded;
    pthread_mutex_unlock(d->lock);
    if (!fits)
        return HW_ENOMEM;
    void *p = mmap((void *)(uintptr_t)dptr, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != MAP_FAILED && p != (void *)(uintptr_t)dptr) {
        munmap(p, len);
        p = MAP_FAILED;
    }
    if (p == MAP_FAILED) {
        pthread_mutex_lock(d->lock);
        d->allocated -= rounded;
        pthread_mutex_unlock(d->lock);
        return HW_ENOMEM;
    }
    uint64_t end = (dptr + len + CPU_MAP_GRAIN - 1) & ~(CPU_MAP_GRAIN - 1);
    uint64_t cur = __atomic_load_n(&device_next, __ATOMIC_RELAXED);
    while (cur < end && dptr >= CPU_DEVICE_WINDOW &&
           !__atomic_compare_exchange_n(&device_next, &cur, end, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
    return HW_OK;
}

/* One page of this process (src) shared with another address (dst): its
 * bytes move into a memfd mapped at both. */
static int alias_page(uint64_t src, uint64_t dst, uint64_t page)
{
    int fd = memfd_create("hipwire-alias", MFD_CLOEXEC);
    if (fd < 0)
        return HW_ENOMEM;
    int rc = HW_ENOMEM;
    void *tmp = MAP_FAILED;
    if (ftruncate(fd, (off_t)page) < 0)
        goto out;
    tmp = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED)
        goto out;
    memcpy(tmp, (void *)(uintptr_t)src, page);
    /* The alias first: if its address is taken, the module is untouched. */
    void *w = mmap((void *)(uintptr_t)dst, page, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
    if (w == MAP_FAILED)
        goto out;
    if (w != (void *)(uintptr_t)dst) {
        munmap(w, page);
        goto out;
    }
    if (mmap((void *)(uintptr_t)src, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
        munmap(w, page);
        goto out;
    }
    rc = HW_OK;
out:
    if (tmp != MAP_FAILED)
        munmap(tmp, page);
    close(fd);
    return rc;
}

/* A module's global lives in the shared object's data, wherever the loader
 * put it in this process; a migrated client knows it at the source's
 * address. Page by page, both addresses become one memory (the offsets
 * within a page agree: loaders place objects at page boundaries). */
static int cpu_mem_alias(struct hw_backend *be, int dev, uint64_t dptr, uint64_t want,
                         uint64_t size)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    if ((dptr & (page - 1)) != (want & (page - 1)) || !size)
        return HW_EINVAL;
    if (dptr == want)
        return HW_OK;
    uint64_t lo = dptr & ~(page - 1), end = (dptr + size + page - 1) & ~(page - 1);
    uint64_t delta = want - dptr;
    int rc = HW_OK;
    pthread_mutex_lock(&be->alias_lock);
    for (uint64_t p = lo; p < end && rc == HW_OK; p += page) {
        int done = 0;
        for (size_t i = 0; i < be->nalias && !done; i++) {
            if (be->aliases[i][0] != p)
                continue;
            if (be->aliases[i][1] != p + delta)
                rc = HW_EINVAL; /* already shared with another address */
            done = 1;
        }
        if (done)
            continue;
        if (be->nalias == be->alias_cap) {
            size_t cap = be->alias_cap ? 2 * be->alias_cap : 16;
            uint64_t(*v)[2] = hw_realloc(be->aliases, cap * sizeof *v);
            if (!v) {
                rc = HW_ENOMEM;
                break;
            }
            be->aliases = v;
            be->alias_cap = cap;
        }
        rc = alias_page(p, p + delta, page);
        if (rc == HW_OK) {
            be->aliases[be->nalias][0] = p;
            be->aliases[be->nalias][1] = p + delta;
            be->nalias++;
        }
    }
    pthread_mutex_unlock(&be->alias_lock);
    return rc;
}

static int cpu_mem_free(struct hw_backend *be, int dev, uint64_t dptr, uint64_t size)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct cpu_device *d = &be->devs[dev];
    munmap((void *)(uintptr_t)dptr, map_size(round_up(size)));
    pthread_mutex_lock(d->lock);
    d->allocated -= round_up(size);
    pthread_mutex_unlock(d->lock);
    return HW_OK;
}

static void *cpu_host_ptr(struct hw_backend *be, uint64_t dptr)
{
    return be->no_host_ptr ? NULL : (void *)(uintptr_t)dptr;
}

static int cpu_stream_default(struct hw_backend *be, int dev, struct hw_bstream **out)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    *out = be->devs[dev].streams;
    return HW_OK;
}

static int cpu_stream_create(struct hw_backend *be, int dev, uint32_t flags, int priority,
                             struct hw_bstream **out)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct cpu_device *d = &be->devs[dev];
    struct hw_bstream *s = NULL;

    /* Reuse a destroyed stream whose thread has finished: dependencies on its
     * old sequence numbers stay satisfied because seq only grows. */
    pthread_mutex_lock(d->lock);
    for (struct hw_bstream *t = d->streams->next_in_dev; t; t = t->next_in_dev)
        if (!t->live && !t->head) {
            s = t;
            break;
        }
    pthread_mutex_unlock(d->lock);
    if (s && s->thread_running) {
        pthread_join(s->thread, NULL);
        s->thread_running = 0;
    }
    if (!s) {
        s = hw_calloc(1, sizeof *s);
        if (!s)
            return HW_ENOMEM;
        s->dev = d;
        pthread_mutex_lock(d->lock);
        s->next_in_dev = d->streams->next_in_dev;
        d->streams->next_in_dev = s;
        pthread_mutex_unlock(d->lock);
    }
    s->blocking = !(flags & 0x1); /* hipStreamNonBlocking */
    s->priority = priority;
    int rc = cpu_stream_start(s);
    if (rc != HW_OK)
        return rc;
    *out = s;
    return HW_OK;
}

static void cpu_stream_destroy(struct hw_backend *be, struct hw_bstream *s)
{
    (void)be;
    /* The thread drains what is queued and then exits; the struct stays on
     * the device list for reuse. */
    pthread_mutex_lock(s->dev->lock);
    s->live = 0;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(s->dev->lock);
}

static int cpu_stream_query(struct hw_backend *be, struct hw_bstream *s)
{
    (void)be;
    pthread_mutex_lock(s->dev->lock);
    int idle = s->completed >= s->submitted;
    pthread_mutex_unlock(s->dev->lock);
    return idle ? HW_OK : HW_ENOTREADY;
}

static int cpu_stream_callback(struct hw_backend *be, struct hw_bstream *s, hw_done_fn fn,
                               void *arg)
{
    (void)be;
    struct cpu_op *op = cpu_op_new(CPU_OP_CALLBACK, 0);
    if (!op)
        return HW_ENOMEM;
    op->u.callback.fn = fn;
    op->u.callback.arg = arg;
    return cpu_stream_submit(s, op);
}

int cpu_submit_copy(struct hw_bstream *s, void *dst, const void *src, uint64_t n,
                    hw_done_fn release, void *release_arg)
{
    struct cpu_op *op = cpu_op_new(CPU_OP_COPY, 0);
    if (!op)
        return HW_ENOMEM;
    op->u.copy.dst = dst;
    op->u.copy.src = src;
    op->u.copy.n = n;
    op->u.copy.release = release;
    op->u.copy.release_arg = release_arg;
    return cpu_stream_submit(s, op);
}

static int cpu_memcpy_h2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst,
                          const void *src, uint64_t n, hw_done_fn release, void *release_arg)
{
    (void)be;
    return cpu_submit_copy(s, (void *)(uintptr_t)dst, src, n, release, release_arg);
}

static int cpu_memcpy_d2h(struct hw_backend *be, struct hw_bstream *s, void *dst, uint64_t src,
                          uint64_t n)
{
    (void)be;
    return cpu_submit_copy(s, dst, (const void *)(uintptr_t)src, n, NULL, NULL);
}

static int cpu_memcpy_d2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, uint64_t src,
                          uint64_t n)
{
    (void)be;
    return cpu_submit_copy(s, (void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, NULL, NULL);
}

static int cpu_memset(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, uint32_t value,
                      uint32_t elem_size, uint64_t count)
{
    (void)be;
    if (elem_size != 1 && elem_size != 2 && elem_size != 4)
        return HW_EINVAL;
    struct cpu_op *op = cpu_op_new(CPU_OP_MEMSET, 0);
    if (!op)
        return HW_ENOMEM;
    op->u.memset.dst = (void *)(uintptr_t)dst;
    op->u.memset.value = value;
    op->u.memset.elem_size = elem_size;
    op->u.memset.count = count;
    return cpu_stream_submit(s, op);
}

static int cpu_event_create(struct hw_backend *be, int dev, uint32_t flags, struct hw_bevent **out)
{
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    struct hw_bevent *e = hw_calloc(1, sizeof *e);
    if (!e)
        return HW_ENOMEM;
    e->dev = &be->devs[dev];
    e->flags = flags;
    *out = e;
    return HW_OK;
}

static void cpu_event_destroy(struct hw_backend *be, struct hw_bevent *e)
{
    (void)be;
    /* A record still queued points at e: wait for it, as HIP lets the
     * application destroy an event whose record is pending. */
    pthread_mutex_lock(e->dev->lock);
    while (e->done_gen < e->record_gen)
        cpu_wait_completion(e->dev);
    struct cb_node *cbs = e->callbacks;
    pthread_mutex_unlock(e->dev->lock);
    while (cbs) {
        struct cb_node *n = cbs;
        cbs = n->next;
        n->fn(n->arg, HW_OK);
        free(n);
    }
    free(e);
}

static int cpu_event_record(struct hw_backend *be, struct hw_bevent *e, struct hw_bstream *s)
{
    (void)be;
    if (e->dev != s->dev)
        return HW_EHANDLE;
    struct cpu_op *op = cpu_op_new(CPU_OP_RECORD, 0);
    if (!op)
        return HW_ENOMEM;
    pthread_mutex_lock(e->dev->lock);
    op->u.record.event = e;
    op->u.record.gen = ++e->record_gen;
    pthread_mutex_unlock(e->dev->lock);
    return cpu_stream_submit(s, op);
}

static int cpu_event_query(struct hw_backend *be, struct hw_bevent *e)
{
    (void)be;
    pthread_mutex_lock(e->dev->lock);
    int done = e->done_gen >= e->record_gen;
    pthread_mutex_unlock(e->dev->lock);
    return done ? HW_OK : HW_ENOTREADY;
}

static int cpu_event_callback(struct hw_backend *be, struct hw_bevent *e, hw_done_fn fn, void *arg)
{
    (void)be;
    struct cb_node *n = hw_malloc(sizeof *n);
    if (!n)
        return HW_ENOMEM;
    pthread_mutex_lock(e->dev->lock);
    if (e->done_gen >= e->record_gen) {
        pthread_mutex_unlock(e->dev->lock);
        free(n);
        fn(arg, HW_OK);
        return HW_OK;
    }
    n->gen = e->record_gen;
    n->fn = fn;
    n->arg = arg;
    n->next = e->callbacks;
    e->callbacks = n;
    pthread_mutex_unlock(e->dev->lock);
    return HW_OK;
}

static int cpu_event_elapsed(struct hw_backend *be, struct hw_bevent *start, struct hw_bevent *stop,
                             float *ms_out)
{
    (void)be;
    if ((start->flags | stop->flags) & 0x2) /* hipEventDisableTiming */
        return HW_EHANDLE;
    if (start->record_gen == 0 || stop->record_gen == 0)
        return HW_EHANDLE;
    if (cpu_event_query(be, start) != HW_OK || cpu_event_query(be, stop) != HW_OK)
        return HW_ENOTREADY;
    pthread_mutex_lock(start->dev->lock);
    double ms = ((double)stop->time_ns - (double)start->time_ns) / 1e6;
    pthread_mutex_unlock(start->dev->lock);
    *ms_out = (float)ms;
    return HW_OK;
}

static int cpu_stream_wait_event(struct hw_backend *be, struct hw_bstream *s, struct hw_bevent *e)
{
    (void)be;
    struct cpu_op *op = cpu_op_new(CPU_OP_WAIT, 1);
    if (!op)
        return HW_ENOMEM;
    pthread_mutex_lock(e->dev->lock);
    if (e->stream) {
        op->deps[0].stream = e->stream;
        op->deps[0].seq = e->seq;
        op->ndeps = 1;
    }
    pthread_mutex_unlock(e->dev->lock);
    return cpu_stream_submit(s, op);
}

static int cpu_launch(struct hw_backend *be, struct hw_bstream *s, struct hw_bfunction *f,
                      const uint32_t grid[3], const uint32_t block[3], uint32_t shared_mem,
                      const void *args, uint32_t args_size, uint32_t flags)
{
    (void)be;
    /* Blocks run one after another here: none could wait for another. */
    if (flags & HIPR_LAUNCH_COOPERATIVE)
        return HW_ENOTSUP;
    if (args_size < f->kernel->args_size)
        return HW_EINVAL;
    struct cpu_op *op = cpu_op_new(CPU_OP_LAUNCH, 0);
    void *copy = hw_malloc(f->kernel->args_size ? f->kernel->args_size : 1);
    if (!op || !copy) {
        free(op);
        free(copy);
        return HW_ENOMEM;
    }
    memcpy(copy, args, f->kernel->args_size);
    op->u.launch.kernel = f->kernel;
    memcpy(op->u.launch.grid, grid, sizeof op->u.launch.grid);
    memcpy(op->u.launch.block, block, sizeof op->u.launch.block);
    op->u.launch.shared_mem = shared_mem;
    op->u.launch.args = copy;
    return cpu_stream_submit(s, op);
}

/* HIP source becomes a host shared object this device runs
 * (docs/hip-source.md). Options naming an AMD GPU target ask for that
 * target's code object instead, made by hipcc, for loading on another
 * worker or for inspection: the CPU device cannot run it. */
static int cpu_rtc_compile(struct hw_backend *be, int dev, const struct hw_rtc_input *in,
                           struct hw_rtc_output *out)
{
    (void)be;
    (void)dev;
    for (uint32_t i = 0; i < in->option_count; i++) {
        const char *o = in->options[i];
        const char *v = !strncmp(o, "--offload-arch=", 15)       ? o + 15
                        : !strncmp(o, "--gpu-architecture=", 19) ? o + 19
                                                                 : NULL;
        if (v && strcmp(v, RTC_CPU_TARGET) != 0)
            return rtc_hipcc_compile(in, RTC_DEFAULT_TARGET, out);
    }
    return rtc_host_compile(in, out);
}

const struct hw_backend_ops hw_cpu_backend_ops = {
    .size = sizeof(struct hw_backend_ops),
    .abi_version = HW_BACKEND_ABI_VERSION,
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .device_count = cpu_device_count,
    .device_info = cpu_device_info,
    .versions = cpu_versions,
    .mem_info = cpu_mem_info,
    .mem_alloc = cpu_mem_alloc,
    .mem_free = cpu_mem_free,
    .host_ptr = cpu_host_ptr,
    .stream_default = cpu_stream_default,
    .stream_create = cpu_stream_create,
    .stream_destroy = cpu_stream_destroy,
    .stream_query = cpu_stream_query,
    .stream_callback = cpu_stream_callback,
    .memcpy_h2d = cpu_memcpy_h2d,
    .memcpy_d2h = cpu_memcpy_d2h,
    .memcpy_d2d = cpu_memcpy_d2d,
    .memset = cpu_memset,
    .event_create = cpu_event_create,
    .event_destroy = cpu_event_destroy,
    .event_record = cpu_event_record,
    .event_query = cpu_event_query,
    .event_callback = cpu_event_callback,
    .event_elapsed = cpu_event_elapsed,
    .stream_wait_event = cpu_stream_wait_event,
    .module_load = cpu_module_load,
    .module_unload = cpu_module_unload,
    .module_function = cpu_module_function,
    .module_global = cpu_module_global,
    .launch = cpu_launch,
    .stage_get = cpu_stage_get,
    .stage_h2d = cpu_stage_h2d,
    .stage_d2h = cpu_stage_d2h,
    .stage_wait = cpu_stage_wait,
    .stage_put = cpu_stage_put,
    .rtc_compile = cpu_rtc_compile,
    .stream_write_value = cpu_stream_write_value,
    .stream_wait_value = cpu_stream_wait_value,
    .device_attributes = cpu_device_attributes,
    .mem_alloc_at = cpu_mem_alloc_at,
    .mem_alias = cpu_mem_alias,
};
