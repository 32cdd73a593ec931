// __constant__ and __device__ variables set and read from the host through
// hipMemcpyToSymbol / hipMemcpyFromSymbol and hipGetSymbolAddress.
#include <hip/hip_runtime.h>
#include <vector>

#include "cc_check.h"

__constant__ float coeff[4];
__device__ int hits;

__global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = coeff[0] + v * (coeff[1] + v * (coeff[2] + v * coeff[3]));
        atomicAdd(&hits, 1);
    }
}

int main()
{
    const int n = 4096;
    const float c[4] = { 1.0f, -2.0f, 0.5f, 0.25f };
    HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeff), c, sizeof c));
    int zero = 0;
    HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(hits), &zero, sizeof zero));
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 13) * 0.5f;
    float *dx, *dy;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    poly<<<n / 256, 256>>>(dx, dy, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float v = x[i];
        bad += y[i] != c[0] + v * (c[1] + v * (c[2] + v * c[3]));
    }
    int got = 0;
    HIP_CHECK(hipMemcpyFromSymbol(&got, HIP_SYMBOL(hits), sizeof got));
    bad += got != n;
    void *addr = nullptr;
    size_t size = 0;
    HIP_CHECK(hipGetSymbolAddress(&addr, HIP_SYMBOL(coeff)));
    HIP_CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(coeff)));
    bad += addr == nullptr || size != sizeof c;
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    return cc_report("hipwire-cc constant", bad);
}
