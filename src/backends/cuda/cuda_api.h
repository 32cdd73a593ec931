/*
 * cuda_api.h - the slice of the CUDA driver API the cuda backend uses,
 * declared here rather than taken from cuda.h.
 *
 * The worker must build on machines without the CUDA toolkit and run on
 * machines without a driver, so libcuda.so.1 is dlopen'ed at open() and every
 * entry point is reached through the function-pointer table below. The
 * numeric values are the driver's ABI (CUDA 12.x headers);
 * tests/gpu/test_cuda_decls.c checks them against cuda.h wherever the
 * toolkit is installed.
 */
#ifndef HW_CUDA_API_H
#define HW_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct {
    char bytes[16];
} CUuuid;
typedef void (*CUhostFn)(void *user_data);
typedef void (*CUstreamCallback)(CUstream stream, CUresult status, void *user_data);

/* CUresult values the backend tells apart. */
enum {
    HWCU_SUCCESS = 0,
    HWCU_ERROR_INVALID_VALUE = 1,
    HWCU_ERROR_OUT_OF_MEMORY = 2,
    HWCU_ERROR_NOT_INITIALIZED = 3,
    HWCU_ERROR_DEINITIALIZED = 4,
    HWCU_ERROR_STUB_LIBRARY = 34,
    HWCU_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
    HWCU_ERROR_NO_DEVICE = 100,
    HWCU_ERROR_INVALID_DEVICE = 101,
    HWCU_ERROR_INVALID_IMAGE = 200,
    HWCU_ERROR_INVALID_CONTEXT = 201,
    HWCU_ERROR_NO_BINARY_FOR_GPU = 209,
    HWCU_ERROR_ECC_UNCORRECTABLE = 214,
    HWCU_ERROR_INVALID_PTX = 218,
    HWCU_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    HWCU_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
    HWCU_ERROR_OPERATING_SYSTEM = 304,
    HWCU_ERROR_INVALID_HANDLE = 400,
    HWCU_ERROR_NOT_FOUND = 500,
    HWCU_ERROR_NOT_READY = 600,
    HWCU_ERROR_ILLEGAL_ADDRESS = 700,
    HWCU_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    HWCU_ERROR_LAUNCH_TIMEOUT = 702,
    HWCU_ERROR_CONTEXT_IS_DESTROYED = 709,
    HWCU_ERROR_ASSERT = 710,
    HWCU_ERROR_HARDWARE_STACK_ERROR = 714,
    HWCU_ERROR_ILLEGAL_INSTRUCTION = 715,
    HWCU_ERROR_MISALIGNED_ADDRESS = 716,
    HWCU_ERROR_INVALID_ADDRESS_SPACE = 717,
    HWCU_ERROR_INVALID_PC = 718,
    HWCU_ERROR_LAUNCH_FAILED = 719,
    HWCU_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    HWCU_ERROR_NOT_SUPPORTED = 801,
    HWCU_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    HWCU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
    HWCU_ERROR_UNKNOWN = 999,
};

/* CUdevice_attribute values. */
enum {
    HWCU_DA_MAX_THREADS_PER_BLOCK = 1,
    HWCU_DA_MAX_BLOCK_DIM_X = 2,
    HWCU_DA_MAX_BLOCK_DIM_Y = 3,
    HWCU_DA_MAX_BLOCK_DIM_Z = 4,
    HWCU_DA_MAX_GRID_DIM_X = 5,
    HWCU_DA_MAX_GRID_DIM_Y = 6,
    HWCU_DA_MAX_GRID_DIM_Z = 7,
    HWCU_DA_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    HWCU_DA_TOTAL_CONSTANT_MEMORY = 9,
    HWCU_DA_WARP_SIZE = 10,
    HWCU_DA_MAX_PITCH = 11,
    HWCU_DA_MAX_REGISTERS_PER_BLOCK = 12,
    HWCU_DA_CLOCK_RATE = 13,
    HWCU_DA_TEXTURE_ALIGNMENT = 14,
    HWCU_DA_MULTIPROCESSOR_COUNT = 16,
    HWCU_DA_INTEGRATED = 18,
    HWCU_DA_CAN_MAP_HOST_MEMORY = 19,
    HWCU_DA_COMPUTE_MODE = 20,
    HWCU_DA_CONCURRENT_KERNELS = 31,
    HWCU_DA_ECC_ENABLED = 32,
    HWCU_DA_PCI_BUS_ID = 33,
    HWCU_DA_PCI_DEVICE_ID = 34,
    HWCU_DA_MEMORY_CLOCK_RATE = 36,
    HWCU_DA_GLOBAL_MEMORY_BUS_WIDTH = 37,
    HWCU_DA_L2_CACHE_SIZE = 38,
    HWCU_DA_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    HWCU_DA_ASYNC_ENGINE_COUNT = 40,
    HWCU_DA_UNIFIED_ADDRESSING = 41,
    HWCU_DA_PCI_DOMAIN_ID = 50,
    HWCU_DA_COMPUTE_CAPABILITY_MAJOR = 75,
    HWCU_DA_COMPUTE_CAPABILITY_MINOR = 76,
    HWCU_DA_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    HWCU_DA_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    HWCU_DA_MANAGED_MEMORY = 83,
    HWCU_DA_MULTI_GPU_BOARD = 84,
    HWCU_DA_COOPERATIVE_LAUNCH = 95,
    HWCU_DA_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    /* For DEVICE_ATTRIBUTES (cuda_device_attributes). */
    HWCU_DA_KERNEL_EXEC_TIMEOUT = 17,
    HWCU_DA_MAXIMUM_TEXTURE1D_WIDTH = 21,
    HWCU_DA_MAXIMUM_TEXTURE2D_WIDTH = 22,
    HWCU_DA_MAXIMUM_TEXTURE2D_HEIGHT = 23,
    HWCU_DA_MAXIMUM_TEXTURE3D_WIDTH = 24,
    HWCU_DA_MAXIMUM_TEXTURE3D_HEIGHT = 25,
    HWCU_DA_MAXIMUM_TEXTURE3D_DEPTH = 26,
    HWCU_DA_MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27,
    HWCU_DA_SURFACE_ALIGNMENT = 30,
    HWCU_DA_TCC_DRIVER = 35,
    HWCU_DA_MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42,
    HWCU_DA_MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45,
    HWCU_DA_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47,
    HWCU_DA_TEXTURE_PITCH_ALIGNMENT = 51,
    HWCU_DA_MAXIMUM_TEXTURECUBEMAP_WIDTH = 52,
    HWCU_DA_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53,
    HWCU_DA_MAXIMUM_SURFACE1D_WIDTH = 55,
    HWCU_DA_MAXIMUM_SURFACE2D_WIDTH = 56,
    HWCU_DA_MAXIMUM_SURFACE3D_WIDTH = 58,
    HWCU_DA_MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61,
    HWCU_DA_MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63,
    HWCU_DA_MAXIMUM_SURFACECUBEMAP_WIDTH = 66,
    HWCU_DA_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67,
    HWCU_DA_MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69,
    HWCU_DA_MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70,
    HWCU_DA_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73,
    HWCU_DA_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77,
    HWCU_DA_GLOBAL_L1_CACHE_SUPPORTED = 79,
    HWCU_DA_LOCAL_L1_CACHE_SUPPORTED = 80,
    HWCU_DA_MULTI_GPU_BOARD_GROUP_ID = 85,
    HWCU_DA_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87,
    HWCU_DA_COMPUTE_PREEMPTION_SUPPORTED = 90,
    HWCU_DA_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    HWCU_DA_MAX_PERSISTING_L2_CACHE_SIZE = 108,
    HWCU_DA_MAX_ACCESS_POLICY_WINDOW_SIZE = 109,
    HWCU_DA_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
};

/* CUfunction_attribute values. */
enum {
    HWCU_FA_MAX_THREADS_PER_BLOCK = 0,
    HWCU_FA_SHARED_SIZE_BYTES = 1,
    HWCU_FA_CONST_SIZE_BYTES = 2,
    HWCU_FA_LOCAL_SIZE_BYTES = 3,
    HWCU_FA_NUM_REGS = 4,
    HWCU_FA_PTX_VERSION = 5,
    HWCU_FA_BINARY_VERSION = 6,
    HWCU_FA_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

/* Flags and special handles. */
#define HWCU_STREAM_NON_BLOCKING      0x1u
#define HWCU_EVENT_DISABLE_TIMING     0x2u
#define HWCU_MEMHOSTALLOC_PORTABLE    0x1u
#define HWCU_MEMHOSTREGISTER_PORTABLE 0x1u /* pinned for every context */
#define HWCU_STREAM_WAIT_VALUE_EQ     0x1u /* CUstreamWaitValue_flags */
/* The legacy null stream: synchronises with every blocking stream of the
 * context, which is HIP's (and CUDA's) default-stream semantics. */
#define HWCU_STREAM_LEGACY ((CUstream)0x1)

/*
 * The entry points, each with the ABI version it is requested at and the
 * versioned symbol name to dlsym when cuGetProcAddress is unavailable.
 * X(name, return type, params, cuGetProcAddress version, dlsym name, required)
 */
#define HWCU_FUNCS(X)                                                                              \
    X(cuInit, CUresult, (unsigned int flags), 12000, "cuInit", 1)                                  \
    X(cuDriverGetVersion, CUresult, (int *v), 12000, "cuDriverGetVersion", 1)                      \
    X(cuGetErrorName, CUresult, (CUresult e, const char **s), 12000, "cuGetErrorName", 1)          \
    X(cuDeviceGetCount, CUresult, (int *n), 12000, "cuDeviceGetCount", 1)                          \
    X(cuDeviceGet, CUresult, (CUdevice * d, int ordinal), 12000, "cuDeviceGet", 1)                 \
    X(cuDeviceGetName, CUresult, (char *name, int len, CUdevice d), 12000, "cuDeviceGetName", 1)   \
    X(cuDeviceTotalMem, CUresult, (size_t * bytes, CUdevice d), 12000, "cuDeviceTotalMem_v2", 1)   \
    X(cuDeviceGetAttribute, CUresult, (int *v, int attr, CUdevice d), 12000,                       \
      "cuDeviceGetAttribute", 1)                                                                   \
    X(cuDeviceGetUuid, CUresult, (CUuuid * u, CUdevice d), 12000, "cuDeviceGetUuid_v2", 0)         \
    X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext * c, CUdevice d), 12000,                      \
      "cuDevicePrimaryCtxRetain", 1)                                                               \
    X(cuDevicePrimaryCtxRelease, CUresult, (CUdevice d), 12000, "cuDevicePrimaryCtxRelease_v2", 1) \
    X(cuCtxSetCurrent, CUresult, (CUcontext c), 12000, "cuCtxSetCurrent", 1)                       \
    X(cuCtxSynchronize, CUresult, (void), 12000, "cuCtxSynchronize", 1)                            \
    X(cuCtxGetStreamPriorityRange, CUresult, (int *least, int *greatest), 12000,                   \
      "cuCtxGetStreamPriorityRange", 1)                                                            \
    X(cuMemGetInfo, CUresult, (size_t * free_b, size_t * total_b), 12000, "cuMemGetInfo_v2", 1)    \
    X(cuMemAlloc, CUresult, (CUdeviceptr * p, size_t n), 12000, "cuMemAlloc_v2", 1)                \
    X(cuMemFree, CUresult, (CUdeviceptr p), 12000, "cuMemFree_v2", 1)                              \
    X(cuMemHostAlloc, CUresult, (void **p, size_t n, unsigned int flags), 12000, "cuMemHostAlloc", \
      1)                                                                                           \
    X(cuMemFreeHost, CUresult, (void *p), 12000, "cuMemFreeHost", 1)                               \
    X(cuMemHostRegister, CUresult, (void *p, size_t n, unsigned int flags), 12000,                 \
      "cuMemHostRegister_v2", 0)                                                                   \
    X(cuMemHostUnregister, CUresult, (void *p), 12000, "cuMemHostUnregister", 0)                   \
    X(cuMemcpyHtoDAsync, CUresult, (CUdeviceptr dst, const void *src, size_t n, CUstream s),       \
      12000, "cuMemcpyHtoDAsync_v2", 1)                                                            \
    X(cuMemcpyDtoHAsync, CUresult, (void *dst, CUdeviceptr src, size_t n, CUstream s), 12000,      \
      "cuMemcpyDtoHAsync_v2", 1)                                                                   \
    X(cuMemcpyDtoDAsync, CUresult, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),       \
      12000, "cuMemcpyDtoDAsync_v2", 1)                                                            \
    X(cuMemsetD8Async, CUresult, (CUdeviceptr p, unsigned char v, size_t n, CUstream s), 12000,    \
      "cuMemsetD8Async", 1)                                                                        \
    X(cuMemsetD16Async, CUresult, (CUdeviceptr p, unsigned short v, size_t n, CUstream s), 12000,  \
      "cuMemsetD16Async", 1)                                                                       \
    X(cuMemsetD32Async, CUresult, (CUdeviceptr p, unsigned int v, size_t n, CUstream s), 12000,    \
      "cuMemsetD32Async", 1)                                                                       \
    X(cuStreamCreateWithPriority, CUresult, (CUstream * s, unsigned int flags, int prio), 12000,   \
      "cuStreamCreateWithPriority", 1)                                                             \
    X(cuStreamDestroy, CUresult, (CUstream s), 12000, "cuStreamDestroy_v2", 1)                     \
    X(cuStreamQuery, CUresult, (CUstream s), 12000, "cuStreamQuery", 1)                            \
    X(cuStreamSynchronize, CUresult, (CUstream s), 12000, "cuStreamSynchronize", 1)                \
    X(cuStreamWaitEvent, CUresult, (CUstream s, CUevent e, unsigned int flags), 12000,             \
      "cuStreamWaitEvent", 1)                                                                      \
    X(cuStreamAddCallback, CUresult,                                                               \
      (CUstream s, CUstreamCallback cb, void *ud, unsigned int flags), 12000,                      \
      "cuStreamAddCallback", 0)                                                                    \
    X(cuLaunchHostFunc, CUresult, (CUstream s, CUhostFn fn, void *ud), 12000, "cuLaunchHostFunc",  \
      0)                                                                                           \
    X(cuStreamWaitValue32, CUresult,                                                               \
      (CUstream s, CUdeviceptr addr, uint32_t value, unsigned int flags), 12000,                   \
      "cuStreamWaitValue32_v2", 0)                                                                 \
    X(cuStreamWriteValue32, CUresult,                                                              \
      (CUstream s, CUdeviceptr addr, uint32_t value, unsigned int flags), 12000,                   \
      "cuStreamWriteValue32_v2", 0)                                                                \
    X(cuStreamWriteValue64, CUresult,                                                              \
      (CUstream s, CUdeviceptr addr, uint64_t value, unsigned int flags), 12000,                   \
      "cuStreamWriteValue64_v2", 0)                                                                \
    X(cuEventCreate, CUresult, (CUevent * e, unsigned int flags), 12000, "cuEventCreate", 1)       \
    X(cuEventDestroy, CUresult, (CUevent e), 12000, "cuEventDestroy_v2", 1)                        \
    X(cuEventRecord, CUresult, (CUevent e, CUstream s), 12000, "cuEventRecord", 1)                 \
    X(cuEventQuery, CUresult, (CUevent e), 12000, "cuEventQuery", 1)                               \
    X(cuEventSynchronize, CUresult, (CUevent e), 12000, "cuEventSynchronize", 1)                   \
    X(cuEventElapsedTime, CUresult, (float *ms, CUevent a, CUevent b), 12000,                      \
      "cuEventElapsedTime", 1)                                                                     \
    X(cuModuleLoadData, CUresult, (CUmodule * m, const void *image), 12000, "cuModuleLoadData", 1) \
    X(cuModuleUnload, CUresult, (CUmodule m), 12000, "cuModuleUnload", 1)                          \
    X(cuModuleGetFunction, CUresult, (CUfunction * f, CUmodule m, const char *name), 12000,        \
      "cuModuleGetFunction", 1)                                                                    \
    X(cuModuleGetGlobal, CUresult,                                                                 \
      (CUdeviceptr * p, size_t * bytes, CUmodule m, const char *name), 12000,                      \
      "cuModuleGetGlobal_v2", 1)                                                                   \
    X(cuFuncGetAttribute, CUresult, (int *v, int attr, CUfunction f), 12000, "cuFuncGetAttribute", \
      1)                                                                                           \
    X(cuFuncGetParamInfo, CUresult, (CUfunction f, size_t index, size_t * offset, size_t * size),  \
      12040, "cuFuncGetParamInfo", 0)                                                              \
    X(cuLaunchKernel, CUresult,                                                                    \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,           \
       unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params,           \
       void **extra),                                                                              \
      12000, "cuLaunchKernel", 1)                                                                  \
    X(cuLaunchCooperativeKernel, CUresult,                                                         \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,           \
       unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params),          \
      12000, "cuLaunchCooperativeKernel", 0)

#define HWCU_TYPEDEF_(name, ret, params, ver, sym, req) typedef ret(*name##_fn) params;
HWCU_FUNCS(HWCU_TYPEDEF_)
#undef HWCU_TYPEDEF_

struct hwcu_api {
    void *lib;
#define HWCU_MEMBER_(name, ret, params, ver, sym, req) name##_fn name;
    HWCU_FUNCS(HWCU_MEMBER_)
#undef HWCU_MEMBER_
};

/*
 * Loads libcuda.so.1 and initialises the driver. HW_ENODEV when there is no
 * driver, no device or a driver too old for a required entry point; *why
 * then says which.
 */
int hwcu_api_load(struct hwcu_api *api, const char **why);

/* CUresult -> hipError_t value (hw_status.h). */
int hwcu_status(CUresult r);
/* Errors after which the context is unusable for good (the "sticky" ones). */
int hwcu_is_sticky(CUresult r);

#endif
