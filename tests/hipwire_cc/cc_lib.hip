// A shared library whose kernels are registered when it is loaded; its
// extern "C" entry point launches them.
#include <hip/hip_runtime.h>

__global__ void square(int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * v[i];
}

extern "C" int cc_lib_square(int *host, int n)
{
    int *d;
    if (hipMalloc(&d, n * sizeof(int)) != hipSuccess)
        return -1;
    hipMemcpy(d, host, n * sizeof(int), hipMemcpyHostToDevice);
    square<<<(n + 127) / 128, 128>>>(d, n);
    hipError_t e = hipGetLastError();
    if (e == hipSuccess)
        e = hipMemcpy(host, d, n * sizeof(int), hipMemcpyDeviceToHost);
    hipFree(d);
    return e == hipSuccess ? 0 : (int)e;
}
