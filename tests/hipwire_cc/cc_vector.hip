// Kernels whose parameters are HIP vector types (float4 by pointer and by
// value, int2) and a user struct by value: the device compile must name
// them as the host compile registered them, and lay the arguments out
// alike (float4 is 16-byte aligned, float3 takes 16 bytes).
#include <hip/hip_runtime.h>
#include <vector>

#include "cc_check.h"

struct params {
    float scale;
    int n;
    double bias;
};

__global__ void axpy4(float4 *y, const float4 *x, float4 a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = x[i];
        y[i] = make_float4(a.x * v.x + y[i].x, a.y * v.y + y[i].y, a.z * v.z + y[i].z,
                           a.w * v.w + y[i].w);
    }
}

__global__ void apply(float *out, params p, int2 offset, float3 tail)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n)
        out[i] = p.scale * (float)(i + offset.x - offset.y) + (float)p.bias + tail.z;
}

int main()
{
    const int n = 1000;
    std::vector<float4> x(n), y(n), r(n);
    for (int i = 0; i < n; i++) {
        x[i] = make_float4((float)i, 1.0f, -2.0f, 0.5f * (float)i);
        y[i] = make_float4(1.0f, (float)(i % 5), 3.0f, 0.0f);
    }
    float4 *dx, *dy;
    float *dout;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float4)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(float4)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float4), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dy, y.data(), n * sizeof(float4), hipMemcpyHostToDevice));
    float4 a = make_float4(2.0f, 3.0f, 4.0f, 5.0f);
    axpy4<<<(n + 127) / 128, 128>>>(dy, dx, a, n);
    HIP_CHECK(hipGetLastError());
    params p = { 0.5f, n, 10.0 };
    apply<<<(n + 255) / 256, 256>>>(dout, p, make_int2(7, 3), make_float3(0.0f, 0.0f, 0.25f));
    HIP_CHECK(hipGetLastError());
    std::vector<float> out(n);
    HIP_CHECK(hipMemcpy(r.data(), dy, n * sizeof(float4), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        bad += r[i].x != a.x * x[i].x + y[i].x || r[i].y != a.y * x[i].y + y[i].y ||
               r[i].z != a.z * x[i].z + y[i].z || r[i].w != a.w * x[i].w + y[i].w;
        bad += out[i] != 0.5f * (float)(i + 4) + 10.0f + 0.25f;
    }
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    HIP_CHECK(hipFree(dout));
    return cc_report("hipwire-cc vector", bad);
}
