/*
 * hip_on_cuda.c - the native side of the MLP benchmark: the few HIP calls
 * mlp.c makes, done in process through the CUDA driver API, so that the same
 * mlp.c source runs on the same GPU without hipwire (hipwire-mlp-native).
 *
 * It is as thin as HIP's own NVIDIA backend: each call is the matching
 * driver call on the device's primary context and the legacy null stream
 * (HIP's default-stream semantics); queries read values the driver caches.
 * libcuda.so.1 is loaded at run time with the cuda backend's loader
 * (src/backends/cuda/cuda_api.h), so this builds without a CUDA toolkit.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"
#include "hw_status.h"

static struct hwcu_api cu;
static int ready; /* 1 once the context is current, -1 when it failed */
static CUdevice cu_dev;
static CUcontext cu_ctx;
static _Thread_local hipError_t last_error;

static hipError_t ret(CUresult r)
{
    hipError_t e = (hipError_t)hwcu_status(r);
    if (e != hipSuccess)
        last_error = e;
    return e;
}

static hipError_t init(void)
{
    if (ready > 0)
        return hipSuccess;
    if (ready < 0)
        return hipErrorNoDevice;
    const char *why = NULL;
    if (hwcu_api_load(&cu, &why) != HW_OK) {
        fprintf(stderr, "hip_on_cuda: %s\n", why);
        ready = -1;
        return last_error = hipErrorNoDevice;
    }
    CUresult r = cu.cuDeviceGet(&cu_dev, 0);
    if (r == HWCU_SUCCESS)
        r = cu.cuDevicePrimaryCtxRetain(&cu_ctx, cu_dev);
    if (r == HWCU_SUCCESS)
        r = cu.cuCtxSetCurrent(cu_ctx);
    ready = r == HWCU_SUCCESS ? 1 : -1;
    return ret(r);
}

#define INIT()                  \
    do {                        \
        hipError_t e_ = init(); \
        if (e_ != hipSuccess)   \
            return e_;          \
    } while (0)

hipError_t hipSetDevice(int device)
{
    INIT();
    return device == 0 ? hipSuccess : (last_error = hipErrorInvalidDevice);
}

hipError_t hipGetDevice(int *device)
{
    INIT();
    *device = 0;
    return hipSuccess;
}

hipError_t hipGetLastError(void)
{
    hipError_t e = last_error;
    last_error = hipSuccess;
    return e;
}

const char *hipGetErrorName(hipError_t e)
{
    switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorFileNotFound: return "hipErrorFileNotFound";
    case hipErrorNotFound: return "hipErrorNotFound";
    case hipErrorInvalidImage: return "hipErrorInvalidImage";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorIllegalAddress: return "hipErrorIllegalAddress";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    default: return "hipError (no name in hip_on_cuda)";
    }
}

hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attr, int device)
{
    INIT();
    int cu_attr;
    switch (attr) {
    case hipDeviceAttributeMultiprocessorCount: cu_attr = HWCU_DA_MULTIPROCESSOR_COUNT; break;
    case hipDeviceAttributeMaxThreadsPerBlock: cu_attr = HWCU_DA_MAX_THREADS_PER_BLOCK; break;
    default: return last_error = hipErrorInvalidValue;
    }
    if (device != 0)
        return last_error = hipErrorInvalidDevice;
    return ret(cu.cuDeviceGetAttribute(value, cu_attr, cu_dev));
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int device)
{
    INIT();
    if (device != 0)
        return last_error = hipErrorInvalidDevice;
    memset(prop, 0, sizeof *prop);
    CUresult r = cu.cuDeviceGetName(prop->name, (int)sizeof prop->name - 1, cu_dev);
    if (r == HWCU_SUCCESS)
        r = cu.cuDeviceGetAttribute(&prop->multiProcessorCount, HWCU_DA_MULTIPROCESSOR_COUNT,
                                    cu_dev);
    if (r == HWCU_SUCCESS)
        r = cu.cuDeviceGetAttribute(&prop->maxThreadsPerBlock, HWCU_DA_MAX_THREADS_PER_BLOCK,
                                    cu_dev);
    return ret(r);
}

hipError_t hipMalloc(void **ptr, size_t size)
{
    INIT();
    CUdeviceptr p = 0;
    CUresult r = cu.cuMemAlloc(&p, size);
    if (r == HWCU_SUCCESS)
        *ptr = (void *)(uintptr_t)p;
    return ret(r);
}

hipError_t hipFree(void *ptr)
{
    INIT();
    return ptr ? ret(cu.cuMemFree((CUdeviceptr)(uintptr_t)ptr)) : hipSuccess;
}

/* Blocking, as hipMemcpy is: the copy on the null stream, then its end. */
hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
    INIT();
    CUresult r;
    switch (kind) {
    case hipMemcpyHostToDevice:
        r = cu.cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, n, HWCU_STREAM_LEGACY);
        break;
    case hipMemcpyDeviceToHost:
        r = cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, n, HWCU_STREAM_LEGACY);
        break;
    default: return last_error = hipErrorInvalidMemcpyDirection;
    }
    return ret(r != HWCU_SUCCESS ? r : cu.cuStreamSynchronize(HWCU_STREAM_LEGACY));
}

hipError_t hipMemset(void *dst, int value, size_t n)
{
    INIT();
    return ret(cu.cuMemsetD8Async((CUdeviceptr)(uintptr_t)dst, (unsigned char)value, n,
                                  HWCU_STREAM_LEGACY));
}

hipError_t hipDeviceSynchronize(void)
{
    INIT();
    return ret(cu.cuCtxSynchronize());
}

hipError_t hipModuleLoad(hipModule_t *module, const char *fname)
{
    INIT();
    FILE *f = fopen(fname, "rb");
    if (!f)
        return last_error = hipErrorFileNotFound;
    char *image = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    CUresult r = HWCU_ERROR_INVALID_IMAGE;
    /* calloc leaves the NUL a PTX image needs. */
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (image = calloc(1, (size_t)n + 1)) &&
        fread(image, 1, (size_t)n, f) == (size_t)n) {
        CUmodule m;
        r = cu.cuModuleLoadData(&m, image);
        if (r == HWCU_SUCCESS)
            *module = (hipModule_t)m;
    }
    free(image);
    fclose(f);
    return ret(r);
}

hipError_t hipModuleUnload(hipModule_t module)
{
    INIT();
    return ret(cu.cuModuleUnload((CUmodule)module));
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *name)
{
    INIT();
    CUfunction f;
    CUresult r = cu.cuModuleGetFunction(&f, (CUmodule)module, name);
    if (r == HWCU_SUCCESS)
        *function = (hipFunction_t)f;
    return ret(r);
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz,
                                 unsigned int bx, unsigned int by, unsigned int bz,
                                 unsigned int shared, hipStream_t stream, void **params,
                                 void **extra)
{
    INIT();
    if (stream != NULL || extra != NULL)
        return last_error = hipErrorNotSupported; /* mlp.c uses neither */
    return ret(cu.cuLaunchKernel((CUfunction)f, gx, gy, gz, bx, by, bz, shared, HWCU_STREAM_LEGACY,
                                 params, NULL));
}

/* No worker, no requests: the native run makes no round trips. */
void hipwire_client_stats(unsigned long long *round_trips, unsigned long long *posted)
{
    if (round_trips)
        *round_trips = 0;
    if (posted)
        *posted = 0;
}
