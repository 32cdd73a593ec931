// fatbin_kernels.h - declarations shared by the two translation units of
// fatbin_basic (fatbin_basic.hip, fatbin_tu2.hip).
#ifndef FATBIN_KERNELS_H
#define FATBIN_KERNELS_H

#include <hip/hip_runtime.h>

// A template kernel both units instantiate for int: one host stub (a COMDAT
// function), registered by both units' fat binaries.
template <typename T> __global__ void fill(T *p, T v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}

struct pair_arg {
    int a;
    double b;
};

// tu2: its own kernels and variables, used through these.
__global__ void tu2_add(int *p, pair_arg x);
extern __constant__ float tu2_weights[16];
const void *tu2_weights_symbol();
int tu2_run(int *dev, hipStream_t stream);

#endif
