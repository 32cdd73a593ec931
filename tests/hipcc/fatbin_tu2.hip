// The second translation unit of fatbin_basic: a fat binary of its own.
#include "fatbin_check.h"
#include "fatbin_kernels.h"

__constant__ float tu2_weights[16] = { 0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f,
                                       8.5f, 9.5f, 10.5f, 11.5f, 12.5f, 13.5f, 14.5f, 15.5f };

__global__ void tu2_add(int *p, pair_arg x)
{
    p[threadIdx.x] += x.a + (int)x.b + (int)tu2_weights[threadIdx.x % 16];
}

const void *tu2_weights_symbol()
{
    return (const void *)&tu2_weights;
}

// Launches from this unit: its own kernel and the shared template.
int tu2_run(int *dev, hipStream_t stream)
{
    int before = g_failures;
    pair_arg x = { 1, 2.0 };
    EXPECT_NO_BINARY_LAUNCH((tu2_add<<<1, 64, 0, stream>>>(dev, x)), stream);
    EXPECT_NO_BINARY_LAUNCH((fill<int><<<2, 32, 0, stream>>>(dev, 7, 64)), stream);
    hipLaunchKernelGGL(fill<int>, dim3(1), dim3(64), 0, stream, dev, 9, 64);
    expect_no_binary_at(hipGetLastError(), true, stream, "hipLaunchKernelGGL(fill<int>) in tu2",
                        __FILE__, __LINE__);
    return g_failures - before;
}
