// kernels.hip - kernels with varied signatures for the code-object tests.
// Compiled by hipcc for several targets; never run (no AMD GPU here). The
// layout test (test_codeobj_hipcc.c) must list the same signatures.
#include <hip/hip_runtime.h>
#include "kernel_types.h"

__constant__ int hw_const_table[16];
__device__ float hw_dev_var;

extern "C" __global__ void k_scalars(char a, short b, char c, int d, char e,
                                     long long f, char g, float h, double i,
                                     bool j, unsigned char k, unsigned short l,
                                     unsigned int m, unsigned long long n,
                                     long long *out)
{
    out[0] = a + b + c + d + e + f + g + (long long)h + (long long)i + j + k +
             l + m + (long long)n;
}

extern "C" __global__ void k_pointers(float *a, const int *b, double *c,
                                      void *d, hw_s1 *e)
{
    a[0] = b[0] + c[0] + (d != nullptr) + e->d;
}

extern "C" __global__ void k_struct(hw_s1 s, int n, hw_s2 t, char c,
                                    hw_vec3 v, double *out)
{
    out[0] = s.c + s.d + s.i + n + t.a + t.b + c + v.x + v.y + v.z;
}

extern "C" __global__ void k_big(hw_big b, int *out)
{
    out[0] = b.bytes[0] + b.bytes[4099] + b.tail;
}

extern "C" __global__ void k_big_mixed(char c, hw_big b, double d, int *out)
{
    out[threadIdx.x] = c + b.bytes[threadIdx.x] + b.tail + (int)d;
}

extern "C" __global__ void k_none() {}

// Reads blockDim/gridDim: under code object v5 these come from hidden
// arguments, so this kernel has some.
extern "C" __global__ void k_dims(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = gridDim.x * blockDim.y + hw_const_table[i & 15] + hw_dev_var;
}

extern "C" __global__ void k_printf(int x)
{
    printf("x=%d\n", x);
}

template <typename T> __global__ void k_tmpl(T *p, T v, int n)
{
    if (n > 0)
        p[0] = v;
}
template __global__ void k_tmpl<char>(char *, char, int);
template __global__ void k_tmpl<double>(double *, double, int);
template __global__ void k_tmpl<hw_s2>(hw_s2 *, hw_s2, int);
