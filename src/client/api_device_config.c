/*
 * api_device_config.c - per-device settings an application sets and reads
 * back: scheduling flags, limits, cache and shared-memory preferences.
 * They live in the client, per device and process-wide (as in AMD's
 * runtime, where another thread reads what one thread set); the worker's
 * kernels do not see them, which is what AMD's own answers allow (its cache
 * and bank-size settings are accepted and ignored too).
 */
#include <stdatomic.h>

#include "client.h"

/* hipLimitStackSize is 0 in the HIP headers that declare it (HIP 6). */
#define HW_LIMIT_STACK_SIZE   0
#define HW_DEFAULT_STACK_SIZE 1024u              /* bytes per work-item */
#define HW_DEFAULT_HEAP_SIZE  (8u * 1024 * 1024) /* device malloc heap */

static atomic_uint dev_flags[HIPR_CAP_DEVICES];
static _Atomic size_t dev_stack[HIPR_CAP_DEVICES];
static _Atomic size_t dev_heap[HIPR_CAP_DEVICES];

void hw_device_flags_set(int dev, unsigned flags)
{
    if (dev >= 0 && dev < HIPR_CAP_DEVICES)
        atomic_store(&dev_flags[dev], flags);
}

void hw_device_config_reset(int dev)
{
    if (dev < 0 || dev >= HIPR_CAP_DEVICES)
        return;
    atomic_store(&dev_flags[dev], 0u);
    atomic_store(&dev_stack[dev], 0);
    atomic_store(&dev_heap[dev], 0);
}

HW_EXPORT hipError_t hipSetDeviceFlags(unsigned flags)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (c->device_count == 0)
        return hw_ret(hipErrorNoDevice);
    /* At most one scheduling mode, and only the flags HIP defines. */
    const unsigned supported = hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax;
    unsigned sched = flags & hipDeviceScheduleMask;
    if ((sched & (sched - 1)) != 0 || (flags & ~supported) != 0)
        return hw_ret(hipErrorInvalidValue);
    /* AMD keeps only the scheduling mode; the others are always on. */
    hw_device_flags_set(hw_current_device(), sched);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGetDeviceFlags(unsigned int *flags)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!flags)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    *flags = atomic_load(&dev_flags[hw_current_device()]);
    return hipSuccess;
}

static _Atomic size_t *limit_slot(int limit, int dev)
{
    switch (limit) {
    case HW_LIMIT_STACK_SIZE: return &dev_stack[dev];
    case hipLimitMallocHeapSize: return &dev_heap[dev];
    default: return NULL;
    }
}

static size_t limit_default(int limit)
{
    return limit == HW_LIMIT_STACK_SIZE ? HW_DEFAULT_STACK_SIZE : HW_DEFAULT_HEAP_SIZE;
}

/* AMD: a limit outside the enum is an invalid value; one inside it that
 * the device does not have (the printf FIFO) is an unsupported limit. */
static hipError_t check_limit(int limit)
{
    if (limit < 0 || limit > hipLimitMallocHeapSize)
        return hipErrorInvalidValue;
    if (limit == hipLimitPrintfFifoSize)
        return hipErrorUnsupportedLimit;
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceGetLimit(size_t *pValue, enum hipLimit_t limit)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!pValue)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if ((err = check_limit((int)limit)) != hipSuccess)
        return hw_ret(err);
    size_t v = atomic_load(limit_slot((int)limit, hw_current_device()));
    *pValue = v ? v : limit_default((int)limit);
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = check_limit((int)limit)) != hipSuccess)
        return hw_ret(err);
    if (value == 0)
        return hw_ret(hipErrorInvalidValue);
    atomic_store(limit_slot((int)limit, hw_current_device()), value);
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceGetCacheConfig(hipFuncCache_t *cacheConfig)
{
    if (!cacheConfig)
        return hw_ret(hipErrorInvalidValue);
    *cacheConfig = hipFuncCachePreferNone; /* the only one, as on AMD */
    return hipSuccess;
}

/* ROCm 5 answers every request, valid or not, with hipErrorNotSupported
 * (hip-tests rocm-5.5.0 device/hipDeviceSetGetCacheConfig.cc). */
HW_EXPORT hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cacheConfig)
{
    (void)cacheConfig;
    return hw_ret(hipErrorNotSupported);
}

HW_EXPORT hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig *pConfig)
{
    if (!pConfig)
        return hw_ret(hipErrorInvalidValue);
    *pConfig = hipSharedMemBankSizeFourByte;
    return hipSuccess;
}

/* Accepted and ignored: banks stay four bytes wide, which ROCm 5 also does
 * for any value (hipDeviceSetGetSharedMemConfig.cc). */
HW_EXPORT hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config)
{
    (void)config;
    return hipSuccess;
}
