/*
 * cuda_rtc_prelude.c - the headers a HIP program compiled by NVRTC sees:
 * hip/hip_runtime.h gives HIP's device names their HIP meaning on NVIDIA
 * (docs/hip-source.md, the cuda column). Written for hipwire; NVRTC's own
 * builtins supply threadIdx, atomics, __syncthreads and the _sync shuffles.
 */
#include "cuda_rtc.h"
#include "rtc_prelude.h"

static const char hip_runtime_h[] =
    "#pragma once\n"
    "#define __HIP_PLATFORM_NVIDIA__ 1\n"
    "#define __HIP_PLATFORM_NVCC__ 1\n"
    "#define __HIPCC__ 1\n"
    "#define __HIPCC_RTC__ 1\n"
    "#define __HIP_DEVICE_COMPILE__ 1\n"
    "#define hipThreadIdx_x threadIdx.x\n"
    "#define hipThreadIdx_y threadIdx.y\n"
    "#define hipThreadIdx_z threadIdx.z\n"
    "#define hipBlockIdx_x blockIdx.x\n"
    "#define hipBlockIdx_y blockIdx.y\n"
    "#define hipBlockIdx_z blockIdx.z\n"
    "#define hipBlockDim_x blockDim.x\n"
    "#define hipBlockDim_y blockDim.y\n"
    "#define hipBlockDim_z blockDim.z\n"
    "#define hipGridDim_x gridDim.x\n"
    "#define hipGridDim_y gridDim.y\n"
    "#define hipGridDim_z gridDim.z\n"
    "#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];\n"
    "#define HIP_DYNAMIC_SHARED_ATTRIBUTE\n"
    "#define HIP_KERNEL_NAME(...) __VA_ARGS__\n"
    "#define HIP_SYMBOL(x) x\n"
    /* HIP's warp functions take no mask: the whole warp takes part. CUDA
     * keeps deprecated maskless functions of these names (a 32-bit
     * __ballot), so HIP's are macros onto hipwire's own. */
    "#define __HIPWIRE_FULL_MASK 0xffffffffu\n"
    "template <typename T> __device__ inline T __hipwire_shfl(T v, int src, int width = 32)\n"
    "{ return __shfl_sync(__HIPWIRE_FULL_MASK, v, src, width); }\n"
    "template <typename T>\n"
    "__device__ inline T __hipwire_shfl_up(T v, unsigned int d, int width = 32)\n"
    "{ return __shfl_up_sync(__HIPWIRE_FULL_MASK, v, d, width); }\n"
    "template <typename T>\n"
    "__device__ inline T __hipwire_shfl_down(T v, unsigned int d, int width = 32)\n"
    "{ return __shfl_down_sync(__HIPWIRE_FULL_MASK, v, d, width); }\n"
    "template <typename T> __device__ inline T __hipwire_shfl_xor(T v, int m, int width = 32)\n"
    "{ return __shfl_xor_sync(__HIPWIRE_FULL_MASK, v, m, width); }\n"
    /* HIP's ballot is 64 bits wide (a wavefront may be 64 lanes). */
    "__device__ inline unsigned long long __hipwire_ballot(int p)\n"
    "{ return __ballot_sync(__HIPWIRE_FULL_MASK, p); }\n"
    "__device__ inline int __hipwire_any(int p) { return __any_sync(__HIPWIRE_FULL_MASK, p); }\n"
    "__device__ inline int __hipwire_all(int p) { return __all_sync(__HIPWIRE_FULL_MASK, p); }\n"
    "#define __shfl(...) __hipwire_shfl(__VA_ARGS__)\n"
    "#define __shfl_up(...) __hipwire_shfl_up(__VA_ARGS__)\n"
    "#define __shfl_down(...) __hipwire_shfl_down(__VA_ARGS__)\n"
    "#define __shfl_xor(...) __hipwire_shfl_xor(__VA_ARGS__)\n"
    "#define __ballot(p) __hipwire_ballot(p)\n"
    "#define __any(p) __hipwire_any(p)\n"
    "#define __all(p) __hipwire_all(p)\n"
    "#include <hip/hip_vector_types.h>\n";

/* A minimal half type: NVRTC has no cuda_fp16.h of its own (it is a
 * toolkit file), and a worker path is never put on the include path.
 * Arithmetic goes through float: binary32 holds a binary16 sum, difference
 * or product closely enough that rounding it once more is exact. */
static const char hip_fp16_h[] =
    "#pragma once\n"
    "struct __half { unsigned short __x; };\n"
    "__device__ inline __half __float2half(float f)\n"
    "{ __half h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h.__x) : \"f\"(f)); return h; }\n"
    "__device__ inline float __half2float(__half h)\n"
    "{ float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h.__x)); return f; }\n"
    "__device__ inline __half __hadd(__half a, __half b)\n"
    "{ return __float2half(__half2float(a) + __half2float(b)); }\n"
    "__device__ inline __half __hsub(__half a, __half b)\n"
    "{ return __float2half(__half2float(a) - __half2float(b)); }\n"
    "__device__ inline __half __hmul(__half a, __half b)\n"
    "{ return __float2half(__half2float(a) * __half2float(b)); }\n";

const char *const hw_cuda_rtc_prelude_names[] = { "hip/hip_runtime.h", "hip/hip_fp16.h",
                                                  "hip/hip_vector_types.h" };
const char *const hw_cuda_rtc_prelude_texts[] = { hip_runtime_h, hip_fp16_h,
                                                  (const char *)rtc_prelude_hip_vector_types_h };
const int hw_cuda_rtc_prelude_count = 3;
