// Vector add launched both ways (<<<>>> and hipLaunchKernelGGL), with a
// __device__ helper and a __host__ __device__ function used on both sides.
#include <hip/hip_runtime.h>
#include <vector>

#include "cc_check.h"

__host__ __device__ inline float twice(float x) { return 2.0f * x; }

__device__ float add_twice(float a, float b) { return a + twice(b); }

__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = add_twice(a[i], b[i]);
}

extern "C" __global__ void vsub(const float *a, const float *b, float *c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] - b[i];
}

int main()
{
    const int n = 100000;
    std::vector<float> a(n), b(n), c(n), d(n);
    for (int i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = (float)(i % 7);
    }
    float *da, *db, *dc, *dd;
    HIP_CHECK(hipMalloc(&da, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&db, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dc, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dd, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));
    vadd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    HIP_CHECK(hipGetLastError());
    hipLaunchKernelGGL(vsub, dim3(13), dim3(128), 0, 0, da, db, dd, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(d.data(), dd, n * sizeof(float), hipMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += c[i] != a[i] + twice(b[i]) || d[i] != a[i] - b[i];
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
    HIP_CHECK(hipFree(dd));
    return cc_report("hipwire-cc vadd", bad);
}
