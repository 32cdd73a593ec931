// Built by Debian's hipcc for a real AMD target (gfx90a) and linked against
// the real libamdhip64.so.5; at run time the loader finds hipwire's proxy
// first (LD_LIBRARY_PATH), so this unmodified binary runs against hip-worker.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                   \
    do {                                                                           \
        hipError_t e_ = (x);                                                       \
        if (e_ != hipSuccess) {                                                    \
            std::fprintf(stderr, "%s failed: %s\n", #x, hipGetErrorString(e_));   \
            return 1;                                                              \
        }                                                                          \
    } while (0)

// A kernel, so the binary carries a real gfx90a code object; it is not
// launched (the CPU device cannot run AMD code).
__global__ void scale(float *p, float f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= f;
}

int main()
{
    int count = 0;
    CHECK(hipGetDeviceCount(&count));
    if (count < 1)
        return 1;
    hipDeviceProp_t prop;
    CHECK(hipGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s, %zu MiB, %d SMs\n", prop.name, prop.totalGlobalMem >> 20,
                prop.multiProcessorCount);
    int value = 0;
    CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeMaxThreadsPerBlock, 0));
    if (value != prop.maxThreadsPerBlock)
        return 1;

    const int n = 1 << 20;
    std::vector<float> host(n), back(n);
    for (int i = 0; i < n; i++)
        host[i] = 0.5f * i;
    float *dev = nullptr;
    CHECK(hipMalloc(&dev, n * sizeof(float)));
    CHECK(hipMemcpy(dev, host.data(), n * sizeof(float), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(back.data(), dev, n * sizeof(float), hipMemcpyDeviceToHost));
    CHECK(hipFree(dev));
    if (std::memcmp(host.data(), back.data(), n * sizeof(float)) != 0) {
        std::fprintf(stderr, "round trip through the device differs\n");
        return 1;
    }
    std::printf("hipcc binary: 4 MiB round trip ok on '%s'\n", prop.name);
    return 0;
}
