/*
 * api_cu_mask.c - streams with a compute-unit mask (hipExtStreamCreateWith
 * CUMask, hipExtStreamGetCUMask). The worker's cpu and cuda backends cannot
 * restrict a stream to some compute units, so the stream is an ordinary one
 * (as hipStreamCreate makes it), the call says so once on stderr, and
 * hipExtStreamGetCUMask reports the mask in effect: every compute unit of
 * the stream's device, never the one requested.
 *
 * Codes follow AMD's runtime (clr hip_stream.cpp; hip-tests catch/unit/
 * stream/hipStreamWithCUMask.cc, hipStreamGetCUMask.cc): a NULL stream
 * pointer is hipErrorInvalidHandle, a zero size or NULL mask
 * hipErrorInvalidValue, and so is a size too small for the device's mask.
 */
#include "api_unsupported.h"
#include "client.h"

HW_EXPORT hipError_t hipExtStreamCreateWithCUMask(hipStream_t *stream, uint32_t cuMaskSize,
                                                  const uint32_t *cuMask)
{
    if (!stream)
        return hw_ret(hipErrorInvalidHandle);
    if (cuMaskSize == 0 || !cuMask)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err = hw_stream_create(stream, hipStreamDefault, 0);
    if (err == hipSuccess)
        hw_api_note_once("hipExtStreamCreateWithCUMask#mask",
                         "hipExtStreamCreateWithCUMask: the worker cannot restrict a stream to "
                         "some compute units; the stream uses all of them "
                         "(hipExtStreamGetCUMask reports that)");
    return err;
}

HW_EXPORT hipError_t hipExtStreamGetCUMask(hipStream_t stream, uint32_t cuMaskSize,
                                           uint32_t *cuMask)
{
    hipError_t err;
    uint64_t id;
    int dev;
    if (!cuMask)
        return hw_ret(hipErrorInvalidValue);
    if ((err = hw_stream_resolve(stream, &id, &dev)) != hipSuccess)
        return hw_ret(err);
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    int cus = c->devs[dev].multiprocessor_count;
    uint32_t words = cus > 0 ? (uint32_t)(cus + 31) / 32 : 1;
    if (cuMaskSize < words)
        return hw_ret(hipErrorInvalidValue);
    for (uint32_t i = 0; i < words; i++) {
        int left = cus - (int)i * 32;
        cuMask[i] = left >= 32 ? 0xffffffffu : left > 0 ? (1u << left) - 1 : 0;
    }
    return hipSuccess;
}
