/*
 * api_spt.c - the per-thread default stream variants (`*_spt`). Code built
 * with HIP_API_PER_THREAD_DEFAULT_STREAM calls these instead of the plain
 * names; there the null stream means the calling thread's own stream
 * (hipStreamPerThread), not the legacy default stream. Each variant runs
 * the plain function's own path with that stream, so both behave alike and
 * a plain function implemented later serves its variant too.
 *
 * Every variant the HIP 5.2 to 7.x headers declare is defined here, whatever
 * the headers being built against: one built against older headers exports
 * the newer names as well, at its newest version node.
 */
#include "array.h"
#include "client.h"

/* Under HIP_API_PER_THREAD_DEFAULT_STREAM the null stream is the thread's. */
static hipStream_t spt(hipStream_t stream)
{
    return stream == NULL ? hipStreamPerThread : stream;
}

/* A synchronous call that has no stream parameter: its asynchronous twin on
 * the thread's stream, then a wait for that stream. */
static hipError_t spt_wait(hipError_t err)
{
    return err == hipSuccess ? hipStreamSynchronize(hipStreamPerThread) : err;
}

/* ---- copies and fills ---- */

HW_EXPORT hipError_t hipMemcpy_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
    return hipMemcpyWithStream(dst, src, sizeBytes, kind, hipStreamPerThread);
}

HW_EXPORT hipError_t hipMemcpyAsync_spt(void *dst, const void *src, size_t sizeBytes,
                                        hipMemcpyKind kind, hipStream_t stream)
{
    return hipMemcpyAsync(dst, src, sizeBytes, kind, spt(stream));
}

HW_EXPORT hipError_t hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, hipMemcpyKind kind)
{
    return hw_copy_2d(dst, dpitch, src, spitch, width, height, kind, hipStreamPerThread, 1);
}

HW_EXPORT hipError_t hipMemcpy2DAsync_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                                          size_t width, size_t height, hipMemcpyKind kind,
                                          hipStream_t stream)
{
    return hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, spt(stream));
}

HW_EXPORT hipError_t hipMemcpy3D_spt(const struct hipMemcpy3DParms *p)
{
    return spt_wait(hipMemcpy3DAsync(p, hipStreamPerThread));
}

HW_EXPORT hipError_t hipMemcpy3DAsync_spt(const hipMemcpy3DParms *p, hipStream_t stream)
{
    return hipMemcpy3DAsync(p, spt(stream));
}

HW_EXPORT hipError_t hipMemcpyToSymbol_spt(const void *symbol, const void *src, size_t sizeBytes,
                                           size_t offset, hipMemcpyKind kind)
{
    return spt_wait(
        hipMemcpyToSymbolAsync(symbol, src, sizeBytes, offset, kind, hipStreamPerThread));
}

HW_EXPORT hipError_t hipMemcpyFromSymbol_spt(void *dst, const void *symbol, size_t sizeBytes,
                                             size_t offset, hipMemcpyKind kind)
{
    return spt_wait(
        hipMemcpyFromSymbolAsync(dst, symbol, sizeBytes, offset, kind, hipStreamPerThread));
}

HW_EXPORT hipError_t hipMemcpyToSymbolAsync_spt(const void *symbol, const void *src,
                                                size_t sizeBytes, size_t offset, hipMemcpyKind kind,
                                                hipStream_t stream)
{
    return hipMemcpyToSymbolAsync(symbol, src, sizeBytes, offset, kind, spt(stream));
}

HW_EXPORT hipError_t hipMemcpyFromSymbolAsync_spt(void *dst, const void *symbol, size_t sizeBytes,
                                                  size_t offset, hipMemcpyKind kind,
                                                  hipStream_t stream)
{
    return hipMemcpyFromSymbolAsync(dst, symbol, sizeBytes, offset, kind, spt(stream));
}

HW_EXPORT hipError_t hipMemcpy2DToArray_spt(hipArray_t dst, size_t wOffset, size_t hOffset,
                                            const void *src, size_t spitch, size_t width,
                                            size_t height, hipMemcpyKind kind)
{
    return spt_wait(hipMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind,
                                            hipStreamPerThread));
}

HW_EXPORT hipError_t hipMemcpy2DToArrayAsync_spt(hipArray_t dst, size_t wOffset, size_t hOffset,
                                                 const void *src, size_t spitch, size_t width,
                                                 size_t height, hipMemcpyKind kind,
                                                 hipStream_t stream)
{
    return hipMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind,
                                   spt(stream));
}

HW_EXPORT hipError_t hipMemcpy2DFromArray_spt(void *dst, size_t dpitch, hipArray_const_t src,
                                              size_t wOffset, size_t hOffset, size_t width,
                                              size_t height, hipMemcpyKind kind)
{
    return spt_wait(hipMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height,
                                              kind, hipStreamPerThread));
}

HW_EXPORT hipError_t hipMemcpy2DFromArrayAsync_spt(void *dst, size_t dpitch, hipArray_const_t src,
                                                   size_t wOffsetSrc, size_t hOffsetSrc,
                                                   size_t width, size_t height, hipMemcpyKind kind,
                                                   hipStream_t stream)
{
    return hipMemcpy2DFromArrayAsync(dst, dpitch, src, wOffsetSrc, hOffsetSrc, width, height, kind,
                                     spt(stream));
}

HW_EXPORT hipError_t hipMemcpyFromArray_spt(void *dst, hipArray_const_t src, size_t wOffsetSrc,
                                            size_t hOffset, size_t count, hipMemcpyKind kind)
{
    return hw_copy_from_array_linear(dst, src, wOffsetSrc, hOffset, count, kind, hipStreamPerThread,
                                     1);
}

HW_EXPORT hipError_t hipMemset_spt(void *dst, int value, size_t sizeBytes)
{
    return hipMemsetAsync(dst, value, sizeBytes, hipStreamPerThread);
}

HW_EXPORT hipError_t hipMemsetAsync_spt(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
    return hipMemsetAsync(dst, value, sizeBytes, spt(stream));
}

HW_EXPORT hipError_t hipMemset2D_spt(void *dst, size_t pitch, int value, size_t width,
                                     size_t height)
{
    return hipMemset2DAsync(dst, pitch, value, width, height, hipStreamPerThread);
}

HW_EXPORT hipError_t hipMemset2DAsync_spt(void *dst, size_t pitch, int value, size_t width,
                                          size_t height, hipStream_t stream)
{
    return hipMemset2DAsync(dst, pitch, value, width, height, spt(stream));
}

HW_EXPORT hipError_t hipMemset3D_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
    return hipMemset3DAsync(pitchedDevPtr, value, extent, hipStreamPerThread);
}

HW_EXPORT hipError_t hipMemset3DAsync_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
                                          hipStream_t stream)
{
    return hipMemset3DAsync(pitchedDevPtr, value, extent, spt(stream));
}

/* ---- streams and events ---- */

HW_EXPORT hipError_t hipStreamSynchronize_spt(hipStream_t stream)
{
    return hipStreamSynchronize(spt(stream));
}

HW_EXPORT hipError_t hipStreamQuery_spt(hipStream_t stream)
{
    return hipStreamQuery(spt(stream));
}

HW_EXPORT hipError_t hipStreamGetFlags_spt(hipStream_t stream, unsigned int *flags)
{
    return hipStreamGetFlags(spt(stream), flags);
}

HW_EXPORT hipError_t hipStreamGetPriority_spt(hipStream_t stream, int *priority)
{
    return hipStreamGetPriority(spt(stream), priority);
}

HW_EXPORT hipError_t hipStreamWaitEvent_spt(hipStream_t stream, hipEvent_t event,
                                            unsigned int flags)
{
    return hipStreamWaitEvent(spt(stream), event, flags);
}

HW_EXPORT hipError_t hipStreamAddCallback_spt(hipStream_t stream, hipStreamCallback_t callback,
                                              void *userData, unsigned int flags)
{
    return hipStreamAddCallback(spt(stream), callback, userData, flags);
}

HW_EXPORT hipError_t hipLaunchHostFunc_spt(hipStream_t stream, hipHostFn_t fn, void *userData)
{
    return hipLaunchHostFunc(spt(stream), fn, userData);
}

HW_EXPORT hipError_t hipEventRecord_spt(hipEvent_t event, hipStream_t stream)
{
    return hipEventRecord(event, spt(stream));
}

/* ---- launches ---- */

HW_EXPORT hipError_t hipLaunchKernel_spt(const void *function_address, dim3 numBlocks,
                                         dim3 dimBlocks, void **args, size_t sharedMemBytes,
                                         hipStream_t stream)
{
    return hipLaunchKernel(function_address, numBlocks, dimBlocks, args, sharedMemBytes,
                           spt(stream));
}

HW_EXPORT hipError_t hipLaunchCooperativeKernel_spt(const void *f, dim3 gridDim, dim3 blockDim,
                                                    void **kernelParams, uint32_t sharedMemBytes,
                                                    hipStream_t hStream)
{
    return hipLaunchCooperativeKernel(f, gridDim, blockDim, kernelParams, sharedMemBytes,
                                      spt(hStream));
}

/* ---- graphs and capture ---- */

HW_EXPORT hipError_t hipGraphLaunch_spt(hipGraphExec_t graphExec, hipStream_t stream)
{
    return hipGraphLaunch(graphExec, spt(stream));
}

HW_EXPORT hipError_t hipStreamBeginCapture_spt(hipStream_t stream, hipStreamCaptureMode mode)
{
    return hipStreamBeginCapture(spt(stream), mode);
}

HW_EXPORT hipError_t hipStreamEndCapture_spt(hipStream_t stream, hipGraph_t *pGraph)
{
    return hipStreamEndCapture(spt(stream), pGraph);
}

HW_EXPORT hipError_t hipStreamIsCapturing_spt(hipStream_t stream,
                                              hipStreamCaptureStatus *pCaptureStatus)
{
    return hipStreamIsCapturing(spt(stream), pCaptureStatus);
}

HW_EXPORT hipError_t hipStreamGetCaptureInfo_spt(hipStream_t stream,
                                                 hipStreamCaptureStatus *pCaptureStatus,
                                                 unsigned long long *pId)
{
    return hipStreamGetCaptureInfo(spt(stream), pCaptureStatus, pId);
}

HW_EXPORT hipError_t hipStreamGetCaptureInfo_v2_spt(
    hipStream_t stream, hipStreamCaptureStatus *captureStatus_out, unsigned long long *id_out,
    hipGraph_t *graph_out, const hipGraphNode_t **dependencies_out, size_t *numDependencies_out)
{
    return hipStreamGetCaptureInfo_v2(spt(stream), captureStatus_out, id_out, graph_out,
                                      dependencies_out, numDependencies_out);
}
