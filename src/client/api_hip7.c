/* The HIP 7.1/7.2 calls that map onto operations the proxy already has:
 * pitched 2-D fills of 8/16/32-bit elements, batches of 1-D copies, stream
 * attributes and ids, and libraries (a library is a module: its kernels are the
 * module's functions). Older headers lack their types, see hip7_types.h. */
#include "client.h"
#include "export.h"
#include "handle_registry.h"
#include "hip7_types.h"

#include <stdint.h>
#include <stdlib.h>

/* ---- 2-D fills ------------------------------------------------------------ */

/* width counts elements, pitch bytes, as for the driver API's 2-D fills. */
static hipError_t fill_d2d(hipDeviceptr_t dst, size_t pitch, uint32_t value, uint32_t elem,
                           size_t width, size_t height, hipStream_t stream, int sync)
{
    if (width == 0 || height == 0)
        return hipSuccess;
    if (!dst || width > SIZE_MAX / elem || pitch < width * elem)
        return hw_ret(hipErrorInvalidValue);
    return hw_fill_box(dst, value, elem, width, pitch, height, 0, 1, stream, sync);
}

HW_EXPORT hipError_t hipMemsetD2D8(hipDeviceptr_t dst, size_t dstPitch, unsigned char value,
                                   size_t width, size_t height)
{
    return fill_d2d(dst, dstPitch, value, 1, width, height, NULL, 1);
}

HW_EXPORT hipError_t hipMemsetD2D8Async(hipDeviceptr_t dst, size_t dstPitch, unsigned char value,
                                        size_t width, size_t height, hipStream_t stream)
{
    return fill_d2d(dst, dstPitch, value, 1, width, height, stream, 0);
}

HW_EXPORT hipError_t hipMemsetD2D16(hipDeviceptr_t dst, size_t dstPitch, unsigned short value,
                                    size_t width, size_t height)
{
    return fill_d2d(dst, dstPitch, value, 2, width, height, NULL, 1);
}

HW_EXPORT hipError_t hipMemsetD2D16Async(hipDeviceptr_t dst, size_t dstPitch, unsigned short value,
                                         size_t width, size_t height, hipStream_t stream)
{
    return fill_d2d(dst, dstPitch, value, 2, width, height, stream, 0);
}

HW_EXPORT hipError_t hipMemsetD2D32(hipDeviceptr_t dst, size_t dstPitch, unsigned int value,
                                    size_t width, size_t height)
{
    return fill_d2d(dst, dstPitch, value, 4, width, height, NULL, 1);
}

HW_EXPORT hipError_t hipMemsetD2D32Async(hipDeviceptr_t dst, size_t dstPitch, unsigned int value,
                                         size_t width, size_t height, hipStream_t stream)
{
    return fill_d2d(dst, dstPitch, value, 4, width, height, stream, 0);
}

/* ---- batched copies ------------------------------------------------------- */

/* Each copy is hipMemcpyAsync with the direction taken from the pointers,
 * queued in order. The attributes only hint at the source's access order
 * and where a copy may run, so they are not read. AMD refuses a batch of
 * none and missing arrays; *failIdx names the copy that failed, SIZE_MAX
 * when the batch as a whole was refused. */
HW_EXPORT hipError_t hipMemcpyBatchAsync(void **dsts, void **srcs, size_t *sizes, size_t count,
                                         hipMemcpyAttributes *attrs, size_t *attrsIdxs,
                                         size_t numAttrs, size_t *failIdx, hipStream_t stream)
{
    (void)attrs;
    (void)attrsIdxs;
    (void)numAttrs;
    if (failIdx)
        *failIdx = SIZE_MAX;
    if (!dsts || !srcs || !sizes || count == 0)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err = hw_stream_check(stream);
    if (err != hipSuccess)
        return hw_ret(err);
    for (size_t i = 0; i < count; i++) {
        err = hw_copy(dsts[i], srcs[i], sizes[i], hipMemcpyDefault, stream, 0);
        if (err != hipSuccess) {
            if (failIdx)
                *failIdx = i;
            return err;
        }
    }
    return hipSuccess;
}

/* ---- stream attributes ---------------------------------------------------- */

/* The synchronization policy of the streams that are not hw_stream objects. */
static int null_stream_policy;
static _Thread_local int per_thread_policy;

static int *policy_of(hipStream_t stream)
{
    if (!stream)
        return &null_stream_policy;
    if (stream == hipStreamPerThread)
        return &per_thread_policy;
    return &((struct hw_stream *)stream)->sync_policy;
}

/* AMD's order: the value, then the stream (hipErrorInvalidResourceHandle). */
static hipError_t attr_stream(hipStream_t stream, const void *value)
{
    if (!value)
        return hipErrorInvalidValue;
    if (stream && stream != hipStreamPerThread && !hw_handle_valid(HW_HANDLE_STREAM, stream))
        return hipErrorInvalidResourceHandle;
    return hipSuccess;
}

/* Only the synchronization policy can be set, as in AMD's runtime; how a
 * host thread waits is the worker's business, so it is kept and reported. */
HW_EXPORT hipError_t hipStreamSetAttribute(hipStream_t stream, hipStreamAttrID attr,
                                           const hipStreamAttrValue *value)
{
    hipError_t err = attr_stream(stream, value);
    if (err != hipSuccess)
        return hw_ret(err);
    /* The null stream is never the capturing one (asking about it while a
     * blocking stream captures would record an error for the caller). */
    hipStreamCaptureStatus cs = hipStreamCaptureStatusNone;
    if (stream && hw_capture_any() && hipStreamIsCapturing(stream, &cs) == hipSuccess &&
        cs == hipStreamCaptureStatusActive)
        return hw_ret(hipErrorStreamCaptureUnsupported);
    if (attr != hipStreamAttributeSynchronizationPolicy)
        return hw_ret(hipErrorInvalidValue);
    int p = (int)value->syncPolicy;
    if (p < hipSyncPolicyAuto || p > hipSyncPolicyBlockingSync)
        return hw_ret(hipErrorInvalidValue);
    __atomic_store_n(policy_of(stream), p, __ATOMIC_RELAXED);
    return hipSuccess;
}

HW_EXPORT hipError_t hipStreamGetAttribute(hipStream_t stream, hipStreamAttrID attr,
                                           hipStreamAttrValue *value)
{
    hipError_t err = attr_stream(stream, value);
    if (err != hipSuccess)
        return hw_ret(err);
    if (attr == hipStreamAttributeSynchronizationPolicy) {
        int p = __atomic_load_n(policy_of(stream), __ATOMIC_RELAXED);
        value->syncPolicy = p ? (hipSynchronizationPolicy)p : hipSyncPolicyAuto;
        return hipSuccess;
    }
    if (attr == hipStreamAttributePriority) {
        int prio = 0;
        if ((err = hipStreamGetPriority(stream, &prio)) != hipSuccess)
            return err;
        value->priority = prio;
        return hipSuccess;
    }
    return hw_ret(hipErrorInvalidValue);
}

/* The policy is the only attribute that changes after creation. */
HW_EXPORT hipError_t hipStreamCopyAttributes(hipStream_t dst, hipStream_t src)
{
    static const char any;
    hipError_t err = attr_stream(src, &any);
    if (err == hipSuccess)
        err = attr_stream(dst, &any);
    if (err != hipSuccess)
        return hw_ret(err);
    __atomic_store_n(policy_of(dst), __atomic_load_n(policy_of(src), __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    return hipSuccess;
}

/* A stream's unique id: its wire id, which is unique per stream (a null
 * stream's is its device, below HIPR_FIRST_STREAM_ID, where no created
 * stream's is). As AMD's: a NULL id is hipErrorInvalidValue, an unknown
 * stream hipErrorInvalidResourceHandle. */
HW_EXPORT hipError_t hipStreamGetId(hipStream_t stream, unsigned long long *streamId)
{
    if (!streamId)
        return hw_ret(hipErrorInvalidValue);
    uint64_t id;
    int dev;
    if (hw_stream_resolve(stream, &id, &dev) != hipSuccess)
        return hw_ret(hipErrorInvalidResourceHandle);
    *streamId = id;
    return hipSuccess;
}

/* ---- libraries ------------------------------------------------------------ */

/* A library is the module it was loaded as, and a kernel is that module's
 * function: hipKernel_t values may be used as hipFunction_t (launched with
 * hipModuleLaunchKernel). The JIT and library options tune compilation and
 * the host-side tables, neither of which applies to an image loaded on a
 * worker. */
HW_EXPORT hipError_t hipLibraryLoadData(hipLibrary_t *library, const void *code,
                                        hipJitOption *jitOptions, void **jitOptionsValues,
                                        unsigned int numJitOptions,
                                        hipLibraryOption *libraryOptions,
                                        void **libraryOptionValues, unsigned int numLibraryOptions)
{
    (void)jitOptions;
    (void)jitOptionsValues;
    (void)numJitOptions;
    (void)libraryOptions;
    (void)libraryOptionValues;
    (void)numLibraryOptions;
    if (!library || !code)
        return hw_ret(hipErrorInvalidValue);
    hipModule_t m = NULL;
    hipError_t err = hipModuleLoadData(&m, code);
    if (err == hipSuccess)
        *library = (hipLibrary_t)m;
    return err;
}

HW_EXPORT hipError_t hipLibraryLoadFromFile(hipLibrary_t *library, const char *fileName,
                                            hipJitOption *jitOptions, void **jitOptionsValues,
                                            unsigned int numJitOptions,
                                            hipLibraryOption *libraryOptions,
                                            void **libraryOptionValues,
                                            unsigned int numLibraryOptions)
{
    (void)jitOptions;
    (void)jitOptionsValues;
    (void)numJitOptions;
    (void)libraryOptions;
    (void)libraryOptionValues;
    (void)numLibraryOptions;
    if (!library || !fileName)
        return hw_ret(hipErrorInvalidValue);
    hipModule_t m = NULL;
    hipError_t err = hipModuleLoad(&m, fileName);
    if (err == hipSuccess)
        *library = (hipLibrary_t)m;
    return err;
}

HW_EXPORT hipError_t hipLibraryUnload(hipLibrary_t library)
{
    if (!library)
        return hw_ret(hipErrorInvalidValue);
    return hipModuleUnload((hipModule_t)library);
}

HW_EXPORT hipError_t hipLibraryGetKernel(hipKernel_t *pKernel, hipLibrary_t library,
                                         const char *name)
{
    if (!pKernel || !library || !name)
        return hw_ret(hipErrorInvalidValue);
    hipFunction_t f = NULL;
    hipError_t err = hipModuleGetFunction(&f, (hipModule_t)library, name);
    if (err == hipSuccess)
        *pKernel = (hipKernel_t)f;
    return err;
}
