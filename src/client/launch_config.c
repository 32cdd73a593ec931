/*
 * launch_config.c - launches of registered kernels by host stub.
 *
 * `k<<<grid, block, shmem, stream>>>(args)` compiles to
 * __hipPushCallConfiguration(grid, block, shmem, stream), then a call of the
 * kernel's host stub, which pops the configuration and calls
 * hipLaunchKernel(stub, grid, block, args, shmem, stream). The configuration
 * stack is per thread, as HIP defines it: threads launching at once never
 * see each other's configurations, and a launch inside another launch's
 * argument list nests.
 */
#include "client.h"

/* Deeper nesting than this means unbounded recursion in argument lists;
 * a failed push makes the compiler's code skip the stub call, so the stack
 * stays balanced. */
#define CONFIG_DEPTH 32

struct call_config {
    dim3 grid, block;
    size_t shared;
    hipStream_t stream;
};

static _Thread_local struct call_config tls_configs[CONFIG_DEPTH];
static _Thread_local unsigned tls_depth;

HW_EXPORT hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                hipStream_t stream)
{
    if (tls_depth == CONFIG_DEPTH)
        return hw_ret(hipErrorInvalidConfiguration);
    tls_configs[tls_depth++] = (struct call_config){ gridDim, blockDim, sharedMem, stream };
    return hipSuccess;
}

HW_EXPORT hipError_t __hipPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                               hipStream_t *stream)
{
    if (!gridDim || !blockDim || !sharedMem || !stream)
        return hw_ret(hipErrorInvalidValue);
    if (tls_depth == 0)
        return hw_ret(hipErrorInvalidConfiguration); /* a stub called without <<<>>> */
    const struct call_config *cfg = &tls_configs[--tls_depth];
    *gridDim = cfg->grid;
    *blockDim = cfg->block;
    *sharedMem = cfg->shared;
    *stream = cfg->stream;
    return hipSuccess;
}

/* Resolves the stub on the stream's device (HIP launches on the stream's
 * device, not the current one) and launches. The stream is looked up once,
 * here; an invalid one is hipErrorContextIsDestroyed. */
static hipError_t launch_stub(const void *stub, dim3 grid, dim3 block, void **args, size_t shared,
                              hipStream_t stream, hipEvent_t start, hipEvent_t stop, uint32_t flags)
{
    int dev;
    uint64_t sid;
    const struct hw_function *f;
    if (shared > UINT32_MAX)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err = hw_stream_resolve(stream, &sid, &dev);
    if (err != hipSuccess)
        return hw_ret(err);
    /* The configuration is judged before the kernel's code object is sent:
     * a bad one fails the same way whatever the device can run. */
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
        return hw_ret(hw_fatbin_is_kernel(stub) ? hipErrorInvalidConfiguration
                                                : hipErrorInvalidDeviceFunction);
    if ((err = hw_fatbin_function(stub, dev, &f)) != hipSuccess)
        return hw_ret(err);
    const uint32_t g[3] = { grid.x, grid.y, grid.z };
    const uint32_t b[3] = { block.x, block.y, block.z };
    return hw_launch_on(f, g, b, (unsigned)shared, stream, sid, args, NULL, start, stop, flags);
}

HW_EXPORT hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                                     void **args, size_t sharedMemBytes, hipStream_t stream)
{
    return launch_stub(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream, NULL,
                       NULL, 0);
}

/*
 * Every block must be resident at once so that grid-wide barriers work. The
 * launch carries HIPR_LAUNCH_COOPERATIVE and the worker's backend either
 * honours it or refuses it (the cuda backend launches it with
 * cuLaunchCooperativeKernel); a kernel the device has no code object for
 * fails with hipErrorNoBinaryForGpu like any other launch.
 */
HW_EXPORT hipError_t hipLaunchCooperativeKernel(const void *f, dim3 gridDim, dim3 blockDimX,
                                                void **kernelParams, unsigned int sharedMemBytes,
                                                hipStream_t stream)
{
    return launch_stub(f, gridDim, blockDimX, kernelParams, sharedMemBytes, stream, NULL, NULL,
                       HIPR_LAUNCH_COOPERATIVE);
}

/* hipExtLaunchKernel's flags (hipExtAnyOrderLaunch) are an ordering hint:
 * launches run in stream order anyway, so they are not forwarded. AMD
 * answers a zero dimension, a destroyed stream or a destroyed event with
 * hipErrorInvalidValue here. */
HW_EXPORT hipError_t hipExtLaunchKernel(const void *function_address, dim3 numBlocks,
                                        dim3 dimBlocks, void **args, size_t sharedMemBytes,
                                        hipStream_t stream, hipEvent_t startEvent,
                                        hipEvent_t stopEvent, int flags)
{
    uint64_t id;
    (void)flags;
    if (function_address && hw_fatbin_is_kernel(function_address) &&
        (!numBlocks.x || !numBlocks.y || !numBlocks.z || !dimBlocks.x || !dimBlocks.y ||
         !dimBlocks.z || hw_stream_check(stream) != hipSuccess ||
         (startEvent && hw_event_resolve(startEvent, &id, NULL) != hipSuccess) ||
         (stopEvent && hw_event_resolve(stopEvent, &id, NULL) != hipSuccess)))
        return hw_ret(hipErrorInvalidValue);
    return launch_stub(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream,
                       startEvent, stopEvent, 0);
}
