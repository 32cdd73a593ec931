// A translation unit whose fat binary is registered at start-up and never
// used: it must never be uploaded (two kernels: fatbin_libs' worker log
// must show no code object of two kernels).
#include <hip/hip_runtime.h>

__device__ float never_read[1024];

__global__ void unused_a(float *p) { p[threadIdx.x] = never_read[threadIdx.x]; }
__global__ void unused_b(float *p, int n) { p[n] = 0; }

// Referenced from main so the linker keeps this unit.
const void *unused_kernel() { return reinterpret_cast<const void *>(&unused_a); }
