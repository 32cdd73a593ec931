/*
 * hip_api.h - the HIP runtime functions the hip backend calls, resolved at
 * run time with dlopen/dlsym so one hip-worker binary runs with or without
 * ROCm. Types come from the HIP headers the worker is built against; the
 * backend must be built against the headers of the ROCm generation it runs
 * on (the same rule as the proxy).
 */
#ifndef HW_HIP_API_H
#define HW_HIP_API_H

/* The backend talks to AMD's runtime whatever compiler builds the worker. */
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

/* X(name): every function the backend resolves; all are required. */
#define HW_HIP_FUNCS(X)                \
    X(hipInit)                         \
    X(hipGetDeviceCount)               \
    X(hipSetDevice)                    \
    X(hipGetDeviceProperties)          \
    X(hipDriverGetVersion)             \
    X(hipRuntimeGetVersion)            \
    X(hipMemGetInfo)                   \
    X(hipMalloc)                       \
    X(hipFree)                         \
    X(hipHostMalloc)                   \
    X(hipHostFree)                     \
    X(hipStreamCreateWithPriority)     \
    X(hipStreamDestroy)                \
    X(hipStreamQuery)                  \
    X(hipDeviceGetStreamPriorityRange) \
    X(hipDeviceGetAttribute)           \
    X(hipDeviceGetUuid)                \
    X(hipMemcpyHtoDAsync)              \
    X(hipHostRegister)                 \
    X(hipHostUnregister)               \
    X(hipMemcpyDtoHAsync)              \
    X(hipMemcpyDtoDAsync)              \
    X(hipMemsetD8Async)                \
    X(hipMemsetD16Async)               \
    X(hipMemsetD32Async)               \
    X(hipEventCreateWithFlags)         \
    X(hipEventDestroy)                 \
    X(hipEventRecord)                  \
    X(hipEventQuery)                   \
    X(hipEventSynchronize)             \
    X(hipEventElapsedTime)             \
    X(hipStreamWaitEvent)              \
    X(hipModuleLoadData)               \
    X(hipModuleUnload)                 \
    X(hipModuleGetFunction)            \
    X(hipModuleGetGlobal)              \
    X(hipModuleLaunchKernel)           \
    X(hipFuncGetAttribute)

struct hw_hip_api {
    void *dl;
#define HW_HIP_PTR_(name) __typeof__(&name) name;
    HW_HIP_FUNCS(HW_HIP_PTR_)
#undef HW_HIP_PTR_
    /* Present only when the loaded library is hipwire's own proxy: the
     * kernel parameter layout the next worker reported (the relay case). */
    int (*hipwire_function_params)(hipFunction_t f, uint32_t *count, uint32_t *args_size,
                                   uint32_t *pairs, uint32_t cap);
    /* Same: a launch that carries the worker's LAUNCH flags to the next one. */
    hipError_t (*hipwire_module_launch_kernel)(hipFunction_t f, uint32_t gx, uint32_t gy,
                                               uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
                                               uint32_t shared, hipStream_t stream, void **extra,
                                               uint32_t flags);
};

/* Loads the runtime (HIPWIRE_HIP_LIBRARY, else libamdhip64.so.7/.6/.5).
 * 0 on success; -1 with a reason in why. */
int hw_hip_api_load(struct hw_hip_api *api, char *why, size_t why_len);
void hw_hip_api_unload(struct hw_hip_api *api);

#endif
