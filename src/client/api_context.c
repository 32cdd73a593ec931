/*
 * api_context.c - the driver-style context API. As in AMD's runtime a
 * context is a device: each device has exactly one context (its primary
 * context), every context call works on a device, and making a context
 * current makes its device current. Each thread keeps its own context stack
 * (thread_state.c). Context handles are checked against the handle
 * registry before use, so a stale or foreign pointer gets an error code.
 */
#include <stdatomic.h>

#include "abi_spelling.h"
#include "client.h"
#include "handle_registry.h"

struct ihipCtx_t {
    int device;
};

static struct ihipCtx_t ctxs[HIPR_CAP_DEVICES];
static atomic_int primary_refs[HIPR_CAP_DEVICES];
static pthread_once_t ctxs_once = PTHREAD_ONCE_INIT;
static int ctxs_ok;

static void ctxs_init(void)
{
    for (int i = 0; i < HIPR_CAP_DEVICES; i++) {
        ctxs[i].device = i;
        if (hw_handle_add(HW_HANDLE_CONTEXT, &ctxs[i]) != 0)
            return;
    }
    ctxs_ok = 1;
}

/* The connection (whose device list bounds every context), or NULL with the
 * error to return. */
static struct hw_conn *enter(hipError_t *err)
{
    struct hw_conn *c = hw_conn_get(err);
    if (!c)
        return NULL;
    pthread_once(&ctxs_once, ctxs_init);
    if (!ctxs_ok) {
        *err = hipErrorOutOfMemory;
        return NULL;
    }
    return c;
}

static int valid_device(const struct hw_conn *c, int dev)
{
    return dev >= 0 && dev < c->device_count;
}

/* enter() for a call naming a device: hipErrorInvalidDevice when it does
 * not exist. */
static struct hw_conn *enter_device(int dev, hipError_t *err)
{
    struct hw_conn *c = enter(err);
    if (c && !valid_device(c, dev)) {
        *err = hipErrorInvalidDevice;
        return NULL;
    }
    return c;
}

/* The device of ctx, or -1 when ctx is not a context of this process. */
static int ctx_device(const struct hw_conn *c, hipCtx_t ctx)
{
    if (!ctx || !hw_handle_valid(HW_HANDLE_CONTEXT, ctx) || !valid_device(c, ctx->device))
        return -1;
    return ctx->device;
}

/* hipDevicePrimaryCtxGetState's "active": retained and not released. */
static int primary_ctx_active(int dev)
{
    return dev >= 0 && dev < HIPR_CAP_DEVICES && atomic_load(&primary_refs[dev]) > 0;
}

HW_EXPORT hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev)
{
    hipError_t err;
    if (!enter_device(dev, &err))
        return hw_ret(err);
    if (!pctx)
        return hw_ret(hipErrorInvalidValue);
    atomic_fetch_add(&primary_refs[dev], 1);
    *pctx = &ctxs[dev];
    return hipSuccess;
}

/* AMD's runtime accepts a release without a retain; never go below 0. */
static void primary_release(int dev)
{
    int n = atomic_load(&primary_refs[dev]);
    while (n > 0 && !atomic_compare_exchange_weak(&primary_refs[dev], &n, n - 1))
        ;
}

HW_EXPORT hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
    hipError_t err;
    if (!enter_device(dev, &err))
        return hw_ret(err);
    primary_release(dev);
    return hipSuccess;
}

HW_EXPORT hipError_t hipDevicePrimaryCtxGetState(hipDevice_t dev, unsigned int *flags, int *active)
{
    hipError_t err;
    if (!enter_device(dev, &err))
        return hw_ret(err);
    /* The primary context's flags cannot be changed (SetFlags below), so
     * they are 0, as AMD reports. */
    if (flags)
        *flags = 0;
    if (active)
        *active = primary_ctx_active(dev);
    return hipSuccess;
}

/* AMD's runtime keeps the primary context for the process's lifetime and
 * answers success without touching the device. */
HW_EXPORT hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev)
{
    hipError_t err;
    if (!enter_device(dev, &err))
        return hw_ret(err);
    return hipSuccess;
}

HW_EXPORT hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t dev, unsigned int flags)
{
    (void)flags;
    hipError_t err;
    if (!enter_device(dev, &err))
        return hw_ret(err);
    return hw_ret(hipErrorContextAlreadyInUse); /* AMD: the primary context is always in use */
}

HW_EXPORT hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    if (!ctx || !valid_device(c, device))
        return hw_ret(hipErrorInvalidValue); /* AMD: a bad ordinal is an invalid value here */
    if (hw_ctx_push(device) != 0)
        return hw_ret(hipErrorOutOfMemory);
    /* AMD keeps flags per device: hipGetDeviceFlags reads them back. */
    hw_device_flags_set(device, flags);
    atomic_fetch_add(&primary_refs[device], 1);
    hw_set_current_device(device);
    *ctx = &ctxs[device];
    return hipSuccess;
}

HW_EXPORT hipError_t hipCtxDestroy(hipCtx_t ctx)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    if (!ctx)
        return hw_ret(hipErrorInvalidValue);
    int dev = ctx_device(c, ctx);
    if (dev < 0)
        return hw_ret(hipErrorInvalidContext);
    int top;
    if (hw_ctx_top(&top) == 0 && top == dev)
        (void)hw_ctx_pop(&top);
    primary_release(dev);
    return hipSuccess;
}

HW_EXPORT hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    int dev = ctx_device(c, ctx);
    if (dev < 0)
        return hw_ret(hipErrorInvalidContext);
    if (hw_ctx_push(dev) != 0)
        return hw_ret(hipErrorOutOfMemory);
    hw_set_current_device(dev);
    return hipSuccess;
}

HW_EXPORT hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    int dev;
    if (hw_ctx_pop(&dev) != 0)
        return hw_ret(hipErrorInvalidContext); /* AMD: the stack is empty */
    if (ctx)
        *ctx = &ctxs[dev];
    /* The context below, if any, becomes current again. */
    int below;
    if (hw_ctx_top(&below) == 0)
        hw_set_current_device(below);
    return hipSuccess;
}

HW_EXPORT hipError_t hipCtxSetCurrent(hipCtx_t ctx)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    int dev, old;
    if (!ctx) { /* AMD: NULL pops the top context, if any */
        (void)hw_ctx_pop(&old);
        return hipSuccess;
    }
    if ((dev = ctx_device(c, ctx)) < 0)
        return hw_ret(hipErrorInvalidContext);
    (void)hw_ctx_pop(&old); /* replaces the top, so it cannot overflow */
    (void)hw_ctx_push(dev);
    hw_set_current_device(dev);
    return hipSuccess;
}

HW_EXPORT hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    if (!ctx)
        return hw_ret(hipErrorInvalidValue);
    if (c->device_count == 0)
        return hw_ret(hipErrorNoDevice);
    /* The current device's context, as AMD answers. */
    *ctx = &ctxs[hw_current_device()];
    return hipSuccess;
}

HW_EXPORT hipError_t hipCtxGetDevice(hipDevice_t *device)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    if (!device)
        return hw_ret(hipErrorInvalidValue);
    *device = hw_current_device();
    return hipSuccess;
}

HW_EXPORT hipError_t hipCtxGetApiVersion(hipCtx_t ctx, HW_API_VERSION_T *apiVersion)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    if (!apiVersion)
        return hw_ret(hipErrorInvalidValue);
    if (ctx_device(c, ctx) < 0)
        return hw_ret(hipErrorInvalidContext);
    /* A context speaks the API of the runtime it belongs to. */
    *apiVersion = HIP_VERSION;
    return hipSuccess;
}

/* The remaining context calls act on the current context, i.e. the
 * current device, and answer as the device calls do. */

HW_EXPORT hipError_t hipCtxGetCacheConfig(hipFuncCache_t *cacheConfig)
{
    return hipDeviceGetCacheConfig(cacheConfig);
}

HW_EXPORT hipError_t hipCtxSetCacheConfig(hipFuncCache_t cacheConfig)
{
    return hipDeviceSetCacheConfig(cacheConfig);
}

HW_EXPORT hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig *pConfig)
{
    return hipDeviceGetSharedMemConfig(pConfig);
}

HW_EXPORT hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig config)
{
    return hipDeviceSetSharedMemConfig(config);
}

HW_EXPORT hipError_t hipCtxSynchronize(void)
{
    return hipDeviceSynchronize();
}

HW_EXPORT hipError_t hipCtxGetFlags(unsigned int *flags)
{
    return hipGetDeviceFlags(flags);
}

HW_EXPORT hipError_t hipCtxEnablePeerAccess(hipCtx_t peerCtx, unsigned int flags)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    int peer = ctx_device(c, peerCtx);
    if (peer < 0)
        return hw_ret(hipErrorInvalidContext);
    return hipDeviceEnablePeerAccess(peer, flags);
}

HW_EXPORT hipError_t hipCtxDisablePeerAccess(hipCtx_t peerCtx)
{
    hipError_t err;
    struct hw_conn *c = enter(&err);
    if (!c)
        return hw_ret(err);
    int peer = ctx_device(c, peerCtx);
    if (peer < 0)
        return hw_ret(hipErrorInvalidContext);
    return hipDeviceDisablePeerAccess(peer);
}
