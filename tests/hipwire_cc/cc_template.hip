// Template kernels instantiated only by host launches: by type, by value,
// inside a namespace, and two instances of one template in one program.
#include <hip/hip_runtime.h>
#include <vector>

#include "cc_check.h"

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

namespace kern {
template <int K, typename T>
__global__ void fill_k(T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (T)(K * i);
}
} // namespace kern

template <typename T>
static int run_axpy(int n)
{
    std::vector<T> x(n), y(n);
    for (int i = 0; i < n; i++) {
        x[i] = (T)i;
        y[i] = (T)1;
    }
    T *dx, *dy;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(T)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(T)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(T), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dy, y.data(), n * sizeof(T), hipMemcpyHostToDevice));
    axpy<T><<<(n + 63) / 64, 64>>>((T)3, dx, dy, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(y.data(), dy, n * sizeof(T), hipMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += y[i] != (T)(3 * i + 1);
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    return bad;
}

int main()
{
    const int n = 5000;
    int bad = run_axpy<float>(n) + run_axpy<int>(n) + run_axpy<double>(n);
    long long *out;
    HIP_CHECK(hipMalloc(&out, n * sizeof(long long)));
    kern::fill_k<7, long long><<<dim3((n + 127) / 128), dim3(128)>>>(out, n);
    HIP_CHECK(hipGetLastError());
    long long *h = (long long *)std::malloc(n * sizeof(long long));
    HIP_CHECK(hipMemcpy(h, out, n * sizeof(long long), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        bad += h[i] != 7LL * i;
    std::free(h);
    HIP_CHECK(hipFree(out));
    return cc_report("hipwire-cc template", bad);
}
