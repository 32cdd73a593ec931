// module_kernels.hip - kernels and variables loaded through the module API
// (test_amd_module.c) as an AMD code object, bare and bundled. Never run.
#include <hip/hip_runtime.h>
#include "kernel_types.h"

__constant__ int mk_table[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
__device__ double mk_scale = 2.5;
__device__ char mk_zero[100];
__device__ char mk_huge[4 << 20]; // more than hostile_bundles' --mem-limit

extern "C" __global__ void mk_scalars(char a, short b, int c, long long d, float e, double f,
                                      bool g, int *out)
{
    out[0] = a + b + c + (int)d + (int)e + (int)f + g + mk_table[0] + (int)mk_scale + mk_zero[0] +
             mk_huge[c];
}

extern "C" __global__ void mk_struct(hw_s1 s, int n, hw_s2 t, char c, hw_vec3 v, double *out)
{
    out[0] = s.c + s.d + s.i + n + t.a + t.b + c + v.x + v.y + v.z;
}

extern "C" __global__ void mk_big(char c, hw_big b, double d, int *out)
{
    out[threadIdx.x] = c + b.bytes[threadIdx.x] + b.tail + (int)d;
}

extern "C" __global__ void mk_none() {}
