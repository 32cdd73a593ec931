/*
 * The cuda backend declares the driver API itself (cuda_api.h) so that it
 * builds without CUDA. Where cuda.h is installed, this checks those values
 * against it. Built only when cuda.h is found; compile time is the test.
 */
#include <stdio.h>
#include <string.h>

/* cuda_api.h's type names are moved aside so cuda.h can define the real ones. */
#define CUresult         hwcu_CUresult
#define CUdevice         hwcu_CUdevice
#define CUdeviceptr      hwcu_CUdeviceptr
#define CUcontext        hwcu_CUcontext
#define CUmodule         hwcu_CUmodule
#define CUfunction       hwcu_CUfunction
#define CUstream         hwcu_CUstream
#define CUevent          hwcu_CUevent
#define CUuuid           hwcu_CUuuid
#define CUhostFn         hwcu_CUhostFn
#define CUstreamCallback hwcu_CUstreamCallback
#define CUctx_st         hwcu_CUctx_st
#define CUmod_st         hwcu_CUmod_st
#define CUfunc_st        hwcu_CUfunc_st
#define CUstream_st      hwcu_CUstream_st
#define CUevent_st       hwcu_CUevent_st
#include "cuda_api.h"
#undef CUresult
#undef CUdevice
#undef CUdeviceptr
#undef CUcontext
#undef CUmodule
#undef CUfunction
#undef CUstream
#undef CUevent
#undef CUuuid
#undef CUhostFn
#undef CUstreamCallback
#undef CUctx_st
#undef CUmod_st
#undef CUfunc_st
#undef CUstream_st
#undef CUevent_st
#include <cuda.h>

#define SAME(a, b) _Static_assert((long long)(a) == (long long)(b), #a " != " #b)

SAME(sizeof(hwcu_CUdeviceptr), sizeof(CUdeviceptr));
SAME(sizeof(hwcu_CUuuid), sizeof(CUuuid));
SAME(sizeof(hwcu_CUresult), sizeof(CUresult));
SAME(HWCU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
SAME(HWCU_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING);
SAME(HWCU_MEMHOSTALLOC_PORTABLE, CU_MEMHOSTALLOC_PORTABLE);

#define E(x) SAME(HWCU_ERROR_##x, CUDA_ERROR_##x);
E(INVALID_VALUE)
E(OUT_OF_MEMORY)
E(NOT_INITIALIZED)
E(DEINITIALIZED)
E(STUB_LIBRARY)
E(CALL_REQUIRES_NEWER_DRIVER)
E(NO_DEVICE)
E(INVALID_DEVICE)
E(INVALID_IMAGE)
E(INVALID_CONTEXT)
E(NO_BINARY_FOR_GPU)
E(ECC_UNCORRECTABLE)
E(INVALID_PTX)
E(UNSUPPORTED_PTX_VERSION)
E(SHARED_OBJECT_INIT_FAILED)
E(OPERATING_SYSTEM)
E(INVALID_HANDLE)
E(NOT_FOUND)
E(NOT_READY)
E(ILLEGAL_ADDRESS)
E(LAUNCH_OUT_OF_RESOURCES)
E(LAUNCH_TIMEOUT)
E(CONTEXT_IS_DESTROYED)
E(ASSERT)
E(HARDWARE_STACK_ERROR)
E(ILLEGAL_INSTRUCTION)
E(MISALIGNED_ADDRESS)
E(INVALID_ADDRESS_SPACE)
E(INVALID_PC)
E(LAUNCH_FAILED)
E(COOPERATIVE_LAUNCH_TOO_LARGE)
E(NOT_SUPPORTED)
E(SYSTEM_DRIVER_MISMATCH)
E(COMPAT_NOT_SUPPORTED_ON_DEVICE)
E(UNKNOWN)
SAME(HWCU_SUCCESS, CUDA_SUCCESS);

#define DA(x) SAME(HWCU_DA_##x, CU_DEVICE_ATTRIBUTE_##x);
DA(MAX_THREADS_PER_BLOCK)
DA(MAX_BLOCK_DIM_X)
DA(MAX_BLOCK_DIM_Y)
DA(MAX_BLOCK_DIM_Z)
DA(MAX_GRID_DIM_X)
DA(MAX_GRID_DIM_Y)
DA(MAX_GRID_DIM_Z)
DA(MAX_SHARED_MEMORY_PER_BLOCK)
DA(TOTAL_CONSTANT_MEMORY)
DA(WARP_SIZE)
DA(MAX_PITCH)
DA(MAX_REGISTERS_PER_BLOCK)
DA(CLOCK_RATE)
DA(TEXTURE_ALIGNMENT)
DA(MULTIPROCESSOR_COUNT)
DA(INTEGRATED)
DA(CAN_MAP_HOST_MEMORY)
DA(COMPUTE_MODE)
DA(CONCURRENT_KERNELS)
DA(ECC_ENABLED)
DA(PCI_BUS_ID)
DA(PCI_DEVICE_ID)
DA(MEMORY_CLOCK_RATE)
DA(GLOBAL_MEMORY_BUS_WIDTH)
DA(L2_CACHE_SIZE)
DA(MAX_THREADS_PER_MULTIPROCESSOR)
DA(ASYNC_ENGINE_COUNT)
DA(UNIFIED_ADDRESSING)
DA(PCI_DOMAIN_ID)
DA(COMPUTE_CAPABILITY_MAJOR)
DA(COMPUTE_CAPABILITY_MINOR)
DA(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
DA(MAX_REGISTERS_PER_MULTIPROCESSOR)
DA(MANAGED_MEMORY)
DA(MULTI_GPU_BOARD)
DA(COOPERATIVE_LAUNCH)
DA(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
DA(KERNEL_EXEC_TIMEOUT)
DA(MAXIMUM_TEXTURE1D_WIDTH)
DA(MAXIMUM_TEXTURE2D_WIDTH)
DA(MAXIMUM_TEXTURE2D_HEIGHT)
DA(MAXIMUM_TEXTURE3D_WIDTH)
DA(MAXIMUM_TEXTURE3D_HEIGHT)
DA(MAXIMUM_TEXTURE3D_DEPTH)
DA(MAXIMUM_TEXTURE2D_LAYERED_WIDTH)
DA(SURFACE_ALIGNMENT)
DA(TCC_DRIVER)
DA(MAXIMUM_TEXTURE1D_LAYERED_WIDTH)
DA(MAXIMUM_TEXTURE2D_GATHER_WIDTH)
DA(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE)
DA(TEXTURE_PITCH_ALIGNMENT)
DA(MAXIMUM_TEXTURECUBEMAP_WIDTH)
DA(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH)
DA(MAXIMUM_SURFACE1D_WIDTH)
DA(MAXIMUM_SURFACE2D_WIDTH)
DA(MAXIMUM_SURFACE3D_WIDTH)
DA(MAXIMUM_SURFACE1D_LAYERED_WIDTH)
DA(MAXIMUM_SURFACE2D_LAYERED_WIDTH)
DA(MAXIMUM_SURFACECUBEMAP_WIDTH)
DA(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH)
DA(MAXIMUM_TEXTURE1D_LINEAR_WIDTH)
DA(MAXIMUM_TEXTURE2D_LINEAR_WIDTH)
DA(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH)
DA(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH)
DA(GLOBAL_L1_CACHE_SUPPORTED)
DA(LOCAL_L1_CACHE_SUPPORTED)
DA(MULTI_GPU_BOARD_GROUP_ID)
DA(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO)
DA(COMPUTE_PREEMPTION_SUPPORTED)
DA(MAX_BLOCKS_PER_MULTIPROCESSOR)
DA(MAX_PERSISTING_L2_CACHE_SIZE)
DA(MAX_ACCESS_POLICY_WINDOW_SIZE)
DA(RESERVED_SHARED_MEMORY_PER_BLOCK)

#define FA(x) SAME(HWCU_FA_##x, CU_FUNC_ATTRIBUTE_##x);
FA(MAX_THREADS_PER_BLOCK)
FA(SHARED_SIZE_BYTES)
FA(CONST_SIZE_BYTES)
FA(LOCAL_SIZE_BYTES)
FA(NUM_REGS)
FA(PTX_VERSION)
FA(BINARY_VERSION)
FA(MAX_DYNAMIC_SHARED_SIZE_BYTES)

#define STR_(x)  #x
#define XSTR_(x) STR_(x)

int main(void)
{
    /* cuda.h maps an API name to its current versioned symbol; ours must be
     * that symbol, or an older one we deliberately pin (printed, not fatal:
     * the driver keeps old symbols, and cuGetProcAddress is asked for the
     * 12.0 ABI these declarations follow). */
    int pinned = 0;
    if ((unsigned long)HWCU_STREAM_LEGACY != (unsigned long)CU_STREAM_LEGACY) {
        printf("HWCU_STREAM_LEGACY differs from CU_STREAM_LEGACY\n");
        return 1;
    }
#define NAME_(name, ret, params, ver, sym, req)                                              \
    if (strcmp(XSTR_(name), sym) != 0) {                                                     \
        printf("note: %s is %s in this cuda.h; hipwire pins %s\n", #name, XSTR_(name), sym); \
        pinned++;                                                                            \
    }
    HWCU_FUNCS(NAME_)
#undef NAME_
    printf("cuda_api.h matches cuda.h (CUDA_VERSION %d); %d pinned older symbol(s)\n", CUDA_VERSION,
           pinned);
    return 0;
}
