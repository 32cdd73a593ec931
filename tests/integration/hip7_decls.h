/* The HIP 7.1/7.2 calls a program sees in ROCm 7 headers, for test programs
 * built against older ones (the proxy exports them in every build). Against
 * headers that declare them (7.1; 7.2 for libraries) theirs are used. */
#ifndef HIPWIRE_TEST_HIP7_DECLS_H
#define HIPWIRE_TEST_HIP7_DECLS_H

#include "hip7_types.h"

#if HIP_VERSION < 70100000
hipError_t hipMemsetD2D8(hipDeviceptr_t dst, size_t dstPitch, unsigned char value, size_t width,
                         size_t height);
hipError_t hipMemsetD2D8Async(hipDeviceptr_t dst, size_t dstPitch, unsigned char value,
                              size_t width, size_t height, hipStream_t stream);
hipError_t hipMemsetD2D16(hipDeviceptr_t dst, size_t dstPitch, unsigned short value, size_t width,
                          size_t height);
hipError_t hipMemsetD2D16Async(hipDeviceptr_t dst, size_t dstPitch, unsigned short value,
                               size_t width, size_t height, hipStream_t stream);
hipError_t hipMemsetD2D32(hipDeviceptr_t dst, size_t dstPitch, unsigned int value, size_t width,
                          size_t height);
hipError_t hipMemsetD2D32Async(hipDeviceptr_t dst, size_t dstPitch, unsigned int value,
                               size_t width, size_t height, hipStream_t stream);
hipError_t hipMemcpyBatchAsync(void **dsts, void **srcs, size_t *sizes, size_t count,
                               hipMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                               size_t *failIdx, hipStream_t stream);
hipError_t hipStreamGetAttribute(hipStream_t stream, hipStreamAttrID attr,
                                 hipStreamAttrValue *value);
hipError_t hipStreamSetAttribute(hipStream_t stream, hipStreamAttrID attr,
                                 const hipStreamAttrValue *value);
hipError_t hipStreamCopyAttributes(hipStream_t dst, hipStream_t src);
hipError_t hipStreamGetId(hipStream_t stream, unsigned long long *streamId);
#endif

#if HIP_VERSION < 70200000
hipError_t hipLibraryLoadData(hipLibrary_t *library, const void *code, hipJitOption *jitOptions,
                              void **jitOptionsValues, unsigned int numJitOptions,
                              hipLibraryOption *libraryOptions, void **libraryOptionValues,
                              unsigned int numLibraryOptions);
hipError_t hipLibraryLoadFromFile(hipLibrary_t *library, const char *fileName,
                                  hipJitOption *jitOptions, void **jitOptionsValues,
                                  unsigned int numJitOptions, hipLibraryOption *libraryOptions,
                                  void **libraryOptionValues, unsigned int numLibraryOptions);
hipError_t hipLibraryUnload(hipLibrary_t library);
hipError_t hipLibraryGetKernel(hipKernel_t *pKernel, hipLibrary_t library, const char *name);
#endif

#endif
