/*
 * api_mem_pool.c - stream-ordered memory pools, kept in the client.
 *
 * A pool here keeps nothing: each allocation from it is a hipMalloc on the
 * pool's device (allocated at once, so usable no later than stream order
 * requires) and each free returns the memory at once (the worker frees after
 * draining the session's streams, so after the freeing stream's earlier
 * work). CUDA's release threshold only says how much a pool may hold on to,
 * so holding nothing is within it; the reuse attributes are kept and have no
 * effect. Reserved memory therefore equals used memory. The pool records
 * which allocations are its own so that its usage counters stay true,
 * whether they are freed by hipFreeAsync or hipFree.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "hw_alloc.h"
#include "client.h"
#include "handle_registry.h"
#include "ptr_map.h"

struct ihipMemPoolHandle_t {
    int device;
    int is_default;
    int destroyed; /* by hipMemPoolDestroy, freed when its last block is */
    int reuse[3];  /* hipMemPoolReuse* attributes, kept only */
    uint64_t threshold, used, used_high, reserved_high, blocks;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ihipMemPoolHandle_t **defaults, **current; /* per device */
static int ndev;
static struct ptr_map owner; /* allocation base -> pool (size in sizes) */
static struct ptr_map sizes; /* allocation base -> size, as a pointer-sized integer */

static struct ihipMemPoolHandle_t *pool_new(int device, int is_default)
{
    struct ihipMemPoolHandle_t *p = hw_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->device = device;
    p->is_default = is_default;
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1; /* CUDA's defaults */
    if (hw_handle_add(HW_HANDLE_MEM_POOL, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* The per-device tables, sized on first use. Called with the lock held. */
static int tables(struct hw_conn *c)
{
    if (defaults)
        return 0;
    defaults = hw_calloc((size_t)c->device_count, sizeof *defaults);
    current = hw_calloc((size_t)c->device_count, sizeof *current);
    if (!defaults || !current) {
        free(defaults);
        free(current);
        defaults = current = NULL;
        return -1;
    }
    ndev = c->device_count;
    return 0;
}

/* The device's default pool (created on first use); NULL on failure. */
static struct ihipMemPoolHandle_t *default_pool(struct hw_conn *c, int device, hipError_t *err)
{
    struct ihipMemPoolHandle_t *p = NULL;
    *err = hipErrorOutOfMemory;
    pthread_mutex_lock(&lock);
    if (tables(c) == 0) {
        if (!defaults[device])
            defaults[device] = pool_new(device, 1);
        p = defaults[device];
    }
    pthread_mutex_unlock(&lock);
    return p;
}

static int pool_live(hipMemPool_t p)
{
    return p && hw_handle_valid(HW_HANDLE_MEM_POOL, p);
}

HW_EXPORT hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t *mem_pool, int device)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!mem_pool)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (device < 0 || device >= c->device_count)
        return hw_ret(hipErrorInvalidDevice);
    struct ihipMemPoolHandle_t *p = default_pool(c, device, &err);
    if (!p)
        return hw_ret(err);
    *mem_pool = p;
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceGetMemPool(hipMemPool_t *mem_pool, int device)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!mem_pool)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    /* Unlike hipDeviceGetDefaultMemPool, AMD answers a bad ordinal here
     * (and in hipDeviceSetMemPool) with hipErrorInvalidValue. */
    if (device < 0 || device >= c->device_count)
        return hw_ret(hipErrorInvalidValue);
    struct ihipMemPoolHandle_t *p = default_pool(c, device, &err);
    if (!p)
        return hw_ret(err);
    pthread_mutex_lock(&lock);
    if (current[device])
        p = current[device];
    pthread_mutex_unlock(&lock);
    *mem_pool = p;
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceSetMemPool(int device, hipMemPool_t mem_pool)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (device < 0 || device >= c->device_count)
        return hw_ret(hipErrorInvalidValue);
    if (!pool_live(mem_pool))
        return hw_ret(hipErrorInvalidValue);
    if (mem_pool->device != device)
        return hw_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&lock);
    err = tables(c) == 0 ? hipSuccess : hipErrorOutOfMemory;
    if (err == hipSuccess)
        current[device] = mem_pool;
    pthread_mutex_unlock(&lock);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipMemPoolCreate(hipMemPool_t *mem_pool, const hipMemPoolProps *pool_props)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!mem_pool || !pool_props)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (pool_props->allocType != hipMemAllocationTypePinned ||
        pool_props->location.type != hipMemLocationTypeDevice || pool_props->location.id < 0 ||
        pool_props->location.id >= c->device_count)
        return hw_ret(hipErrorInvalidValue);
    if (pool_props->handleTypes != hipMemHandleTypeNone) /* no IPC across the wire */
        return hw_ret(hipErrorNotSupported);
    struct ihipMemPoolHandle_t *p = pool_new(pool_props->location.id, 0);
    if (!p)
        return hw_ret(hipErrorOutOfMemory);
    *mem_pool = p;
    return hipSuccess;
}

/* Its allocations stay valid; the pool goes when the last one is freed. */
HW_EXPORT hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool)
{
    if (!pool_live(mem_pool) || mem_pool->is_default)
        return hw_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&lock);
    for (int d = 0; current && d < ndev; d++)
        if (current[d] == mem_pool)
            current[d] = NULL; /* the device falls back to its default pool */
    int gone = hw_handle_remove(HW_HANDLE_MEM_POOL, mem_pool);
    if (gone) {
        mem_pool->destroyed = 1;
        if (mem_pool->blocks == 0)
            free(mem_pool);
    }
    pthread_mutex_unlock(&lock);
    return gone ? hipSuccess : hw_ret(hipErrorInvalidValue);
}

/* Nothing is held, so there is nothing to trim. */
HW_EXPORT hipError_t hipMemPoolTrimTo(hipMemPool_t mem_pool, size_t min_bytes_to_hold)
{
    (void)min_bytes_to_hold;
    return pool_live(mem_pool) ? hipSuccess : hw_ret(hipErrorInvalidValue);
}

HW_EXPORT hipError_t hipMemPoolSetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)
{
    hipError_t err = hipSuccess;
    if (!pool_live(mem_pool) || !value)
        return hw_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&lock);
    switch (attr) {
    case hipMemPoolReuseFollowEventDependencies:
    case hipMemPoolReuseAllowOpportunistic:
    case hipMemPoolReuseAllowInternalDependencies:
        mem_pool->reuse[attr - hipMemPoolReuseFollowEventDependencies] = *(int *)value != 0;
        break;
    case hipMemPoolAttrReleaseThreshold: mem_pool->threshold = *(uint64_t *)value; break;
    case hipMemPoolAttrReservedMemHigh: /* only a reset, to the current value */
    case hipMemPoolAttrUsedMemHigh:
        if (*(uint64_t *)value != 0)
            err = hipErrorInvalidValue;
        else if (attr == hipMemPoolAttrReservedMemHigh)
            mem_pool->reserved_high = mem_pool->used;
        else
            mem_pool->used_high = mem_pool->used;
        break;
    default: /* the current values are read-only */ err = hipErrorInvalidValue; break;
    }
    pthread_mutex_unlock(&lock);
    return err == hipSuccess ? hipSuccess : hw_ret(err);
}

HW_EXPORT hipError_t hipMemPoolGetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)
{
    hipError_t err = hipSuccess;
    if (!pool_live(mem_pool) || !value)
        return hw_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&lock);
    switch (attr) {
    case hipMemPoolReuseFollowEventDependencies:
    case hipMemPoolReuseAllowOpportunistic:
    case hipMemPoolReuseAllowInternalDependencies:
        *(int *)value = mem_pool->reuse[attr - hipMemPoolReuseFollowEventDependencies];
        break;
    case hipMemPoolAttrReleaseThreshold: *(uint64_t *)value = mem_pool->threshold; break;
    case hipMemPoolAttrReservedMemCurrent: /* nothing held beyond what is used */
    case hipMemPoolAttrUsedMemCurrent: *(uint64_t *)value = mem_pool->used; break;
    case hipMemPoolAttrReservedMemHigh: *(uint64_t *)value = mem_pool->reserved_high; break;
    case hipMemPoolAttrUsedMemHigh: *(uint64_t *)value = mem_pool->used_high; break;
    default: err = hipErrorInvalidValue; break;
    }
    pthread_mutex_unlock(&lock);
    return err == hipSuccess ? hipSuccess : hw_ret(err);
}

/* Peer access is not forwarded (hipDeviceCanAccessPeer is 0 for every
 * pair): a pool is read-write on its own device and nowhere else. */
HW_EXPORT hipError_t hipMemPoolSetAccess(hipMemPool_t mem_pool, const hipMemAccessDesc *desc_list,
                                         size_t count)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!pool_live(mem_pool) || (count > 0 && !desc_list))
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (count > (size_t)c->device_count)
        return hw_ret(hipErrorInvalidDevice);
    for (size_t i = 0; i < count; i++) {
        const hipMemAccessDesc *d = &desc_list[i];
        if (d->location.type != hipMemLocationTypeDevice ||
            (d->flags != hipMemAccessFlagsProtNone && d->flags != hipMemAccessFlagsProtRead &&
             d->flags != hipMemAccessFlagsProtReadWrite))
            return hw_ret(hipErrorInvalidValue);
        if (d->location.id < 0 || d->location.id >= c->device_count)
            return hw_ret(hipErrorInvalidDevice);
        int own = d->location.id == mem_pool->device;
        if (own ? d->flags != hipMemAccessFlagsProtReadWrite
                : d->flags != hipMemAccessFlagsProtNone)
            return hw_ret(hipErrorInvalidDevice);
    }
    return hipSuccess;
}

HW_EXPORT hipError_t hipMemPoolGetAccess(hipMemAccessFlags *flags, hipMemPool_t mem_pool,
                                         hipMemLocation *location)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!flags || !location || !pool_live(mem_pool) || location->type != hipMemLocationTypeDevice)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (location->id < 0 || location->id >= c->device_count)
        return hw_ret(hipErrorInvalidDevice);
    *flags = location->id == mem_pool->device ? hipMemAccessFlagsProtReadWrite
                                              : hipMemAccessFlagsProtNone;
    return hipSuccess;
}

static hipError_t pool_alloc(void **dev_ptr, size_t size, struct ihipMemPoolHandle_t *p)
{
    void *d = NULL;
    hipError_t err = hw_malloc_on(&d, size, p->device);
    if (err != hipSuccess || !d) {
        if (err == hipSuccess)
            *dev_ptr = NULL;
        return err;
    }
    pthread_mutex_lock(&lock);
    if (ptr_map_put(&owner, d, p) < 0 || ptr_map_put(&sizes, d, (void *)(uintptr_t)size) < 0) {
        ptr_map_del(&owner, d, p);
        pthread_mutex_unlock(&lock);
        hw_device_free(d, hw_pool_forget);
        return hw_ret(hipErrorOutOfMemory);
    }
    p->blocks++;
    p->used += size;
    if (p->used > p->used_high)
        p->used_high = p->used;
    if (p->used > p->reserved_high)
        p->reserved_high = p->used;
    pthread_mutex_unlock(&lock);
    *dev_ptr = d;
    return hipSuccess;
}

HW_EXPORT hipError_t hipMallocFromPoolAsync(void **dev_ptr, size_t size, hipMemPool_t mem_pool,
                                            hipStream_t stream)
{
    /* Allocated at once: usable no later than stream order requires. */
    if (!dev_ptr || !pool_live(mem_pool))
        return hw_ret(hipErrorInvalidValue);
    if (hw_stream_check(stream) != hipSuccess)
        return hw_ret(hipErrorInvalidHandle); /* AMD's code here; never read */
    return pool_alloc(dev_ptr, size, mem_pool);
}

/* hipMallocAsync: from the current pool of the stream's device. */
hipError_t hw_pool_malloc(void **dev_ptr, size_t size, int device)
{
    hipMemPool_t p = NULL; /* mingw gcc cannot see hipDeviceGetMemPool set it */
    if (!dev_ptr)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err = hipDeviceGetMemPool(&p, device);
    return err != hipSuccess ? err : pool_alloc(dev_ptr, size, p);
}

void hw_pool_forget(const void *base)
{
    pthread_mutex_lock(&lock);
    struct ihipMemPoolHandle_t *p = ptr_map_get(&owner, base);
    if (p) {
        uint64_t size = (uint64_t)(uintptr_t)ptr_map_get(&sizes, base);
        ptr_map_del(&owner, base, p);
        ptr_map_del(&sizes, base, (void *)(uintptr_t)size);
        p->used -= size;
        if (--p->blocks == 0 && p->destroyed)
            free(p);
    }
    pthread_mutex_unlock(&lock);
}
