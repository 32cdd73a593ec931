// fatbin_basic: an unmodified hipcc program (two translation units, so two
// fat binaries) against a CPU-device worker through the proxy.
//  - __device__ and __constant__ variables: sizes, addresses and initial
//    bytes from the code object; hipMemcpyToSymbol/FromSymbol and their
//    Async forms, offsets, wrong directions, unknown symbols;
//  - hipFuncGetAttributes on host stubs: values from the code object's
//    metadata (__launch_bounds__, static shared memory);
//  - launches: <<<>>>, hipLaunchKernelGGL, hipLaunchKernel,
//    hipLaunchCooperativeKernel, hipExtLaunchKernel, templates, structs by
//    value, a created stream: each fails with exactly hipErrorNoBinaryForGpu
//    (fatbin_check.h) and nothing else fails.
#include "fatbin_check.h"
#include "fatbin_kernels.h"

#include <vector>

__device__ float dtable[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
__device__ int dcounter;                  // zero-initialised (.bss)
__constant__ int ctab[8] = { 10, 11, 12, 13, 14, 15, 16, 17 };
__constant__ double cz[3];
__device__ char dbig[40000];              // larger than one page

__global__ void scale(float *p, float f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= f * dtable[i % 4] + ctab[i % 8] + cz[0] + dbig[i];
    atomicAdd(&dcounter, 1);
}

__global__ void __launch_bounds__(256) bounded(int *p)
{
    __shared__ int tile[300];
    tile[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void no_args()
{
    dcounter = 1;
}

static int host_only_variable = 3;

static void symbols()
{
    size_t size = 0;
    void *addr = nullptr;
    CHECK_OK(hipGetSymbolSize(&size, HIP_SYMBOL(dtable)));
    CHECK(size == sizeof(float) * 4, "dtable size %zu", size);
    CHECK_OK(hipGetSymbolSize(&size, HIP_SYMBOL(ctab)));
    CHECK(size == sizeof(int) * 8, "ctab size %zu", size);
    CHECK_OK(hipGetSymbolSize(&size, HIP_SYMBOL(dbig)));
    CHECK(size == 40000, "dbig size %zu", size);
    CHECK_OK(hipGetSymbolAddress(&addr, HIP_SYMBOL(dtable)));
    CHECK(addr != nullptr, "dtable address");
    void *again = nullptr;
    CHECK_OK(hipGetSymbolAddress(&again, HIP_SYMBOL(dtable)));
    CHECK(again == addr, "dtable address changed: %p then %p", addr, again);

    // Initial bytes come from the code object.
    float t[4] = { 0 };
    CHECK_OK(hipMemcpyFromSymbol(t, HIP_SYMBOL(dtable), sizeof t, 0, hipMemcpyDeviceToHost));
    CHECK(t[0] == 1.0f && t[1] == 2.0f && t[2] == 3.0f && t[3] == 4.0f,
          "dtable initial %g %g %g %g", t[0], t[1], t[2], t[3]);
    int c[8] = { 0 };
    CHECK_OK(hipMemcpyFromSymbol(c, HIP_SYMBOL(ctab), sizeof c));
    for (int i = 0; i < 8; i++)
        CHECK(c[i] == 10 + i, "ctab[%d] = %d", i, c[i]);
    int counter = -1;
    CHECK_OK(hipMemcpyFromSymbol(&counter, HIP_SYMBOL(dcounter), sizeof counter));
    CHECK(counter == 0, "dcounter initial %d", counter);
    std::vector<char> big(40000, 'x');
    CHECK_OK(hipMemcpyFromSymbol(big.data(), HIP_SYMBOL(dbig), big.size()));
    bool zero = true;
    for (char ch : big)
        zero = zero && ch == 0;
    CHECK(zero, "dbig is not zero-initialised");

    // The address is ordinary device memory.
    float via_ptr[4] = { 0 };
    CHECK_OK(hipMemcpy(via_ptr, addr, sizeof via_ptr, hipMemcpyDeviceToHost));
    CHECK(std::memcmp(via_ptr, t, sizeof t) == 0, "read through hipGetSymbolAddress differs");

    // Writes, with an offset, then read back.
    int patch[3] = { 100, 101, 102 };
    CHECK_OK(hipMemcpyToSymbol(HIP_SYMBOL(ctab), patch, sizeof patch, 2 * sizeof(int),
                               hipMemcpyHostToDevice));
    CHECK_OK(hipMemcpyFromSymbol(c, HIP_SYMBOL(ctab), sizeof c, 0, hipMemcpyDeviceToHost));
    int want[8] = { 10, 11, 100, 101, 102, 15, 16, 17 };
    CHECK(std::memcmp(c, want, sizeof c) == 0, "ctab after patch: %d %d %d %d %d %d %d %d",
          c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
    double d3[3] = { 0.25, -1.5, 1e300 }, d3b[3] = { 0 };
    CHECK_OK(hipMemcpyToSymbol(HIP_SYMBOL(cz), d3, sizeof d3));
    CHECK_OK(hipMemcpyFromSymbol(d3b, HIP_SYMBOL(cz), sizeof d3b));
    CHECK(std::memcmp(d3, d3b, sizeof d3) == 0, "cz round trip");

    // Async forms on a stream, and device-to-device.
    hipStream_t s;
    CHECK_OK(hipStreamCreate(&s));
    float nt[4] = { -1, -2, -3, -4 }, back[4] = { 0 };
    CHECK_OK(hipMemcpyToSymbolAsync(HIP_SYMBOL(dtable), nt, sizeof nt, 0,
                                    hipMemcpyHostToDevice, s));
    CHECK_OK(hipMemcpyFromSymbolAsync(back, HIP_SYMBOL(dtable), sizeof back, 0,
                                      hipMemcpyDeviceToHost, s));
    CHECK_OK(hipStreamSynchronize(s));
    CHECK(std::memcmp(nt, back, sizeof nt) == 0, "dtable async round trip");
    float *dev = nullptr;
    CHECK_OK(hipMalloc(&dev, sizeof nt));
    CHECK_OK(hipMemcpyFromSymbol(dev, HIP_SYMBOL(dtable), sizeof nt, 0,
                                 hipMemcpyDeviceToDevice));
    CHECK_OK(hipMemcpy(back, dev, sizeof back, hipMemcpyDeviceToHost));
    CHECK(std::memcmp(nt, back, sizeof nt) == 0, "dtable to device memory");
    CHECK_OK(hipFree(dev));
    CHECK_OK(hipStreamDestroy(s));

    // The other translation unit's constant, with its initial bytes.
    float w[16];
    CHECK_OK(hipMemcpyFromSymbol(w, tu2_weights_symbol(), sizeof w));
    for (int i = 0; i < 16; i++)
        CHECK(w[i] == 0.5f + i, "tu2_weights[%d] = %g", i, w[i]);

    // Bad requests: a clear error, and the variable is unchanged.
    CHECK(hipMemcpyToSymbol(HIP_SYMBOL(ctab), patch, sizeof patch, 7 * sizeof(int)) ==
              hipErrorInvalidValue, "copy past the end of ctab accepted");
    CHECK(hipGetLastError() == hipErrorInvalidValue, "last error after the bad copy");
    CHECK(hipMemcpyToSymbol(HIP_SYMBOL(ctab), patch, sizeof patch, 0, hipMemcpyDeviceToHost) ==
              hipErrorInvalidMemcpyDirection, "wrong direction accepted");
    CHECK(hipGetSymbolSize(&size, &host_only_variable) == hipErrorInvalidSymbol,
          "a host variable is not a symbol");
    CHECK(hipGetSymbolAddress(&addr, nullptr) == hipErrorInvalidSymbol, "NULL symbol");
    (void)hipGetLastError();
    CHECK_OK(hipMemcpyFromSymbol(c, HIP_SYMBOL(ctab), sizeof c));
    CHECK(std::memcmp(c, want, sizeof c) == 0, "ctab changed by a refused copy");
}

static void attributes()
{
    hipFuncAttributes a;
    CHECK_OK(hipFuncGetAttributes(&a, reinterpret_cast<const void *>(&bounded)));
    CHECK(a.maxThreadsPerBlock == 256, "bounded: maxThreadsPerBlock %d (launch bounds 256)",
          a.maxThreadsPerBlock);
    CHECK(a.sharedSizeBytes == 300 * sizeof(int), "bounded: sharedSizeBytes %zu",
          a.sharedSizeBytes);
    CHECK(a.numRegs > 0, "bounded: numRegs %d", a.numRegs);
    CHECK_OK(hipFuncGetAttributes(&a, reinterpret_cast<const void *>(&scale)));
    CHECK(a.maxThreadsPerBlock == 1024, "scale: maxThreadsPerBlock %d", a.maxThreadsPerBlock);
    CHECK(a.sharedSizeBytes == 0, "scale: sharedSizeBytes %zu", a.sharedSizeBytes);
    CHECK(hipFuncGetAttributes(&a, reinterpret_cast<const void *>(&host_only_variable)) ==
              hipErrorInvalidDeviceFunction, "a host address has attributes");
    (void)hipGetLastError();
}

static void launches()
{
    const int n = 256;
    float *p = nullptr;
    int *q = nullptr;
    CHECK_OK(hipMalloc(&p, n * sizeof(float)));
    CHECK_OK(hipMalloc(&q, n * sizeof(int)));

    EXPECT_NO_BINARY_LAUNCH((scale<<<dim3(n / 64), dim3(64)>>>(p, 2.0f, n)), nullptr);
    EXPECT_NO_BINARY_LAUNCH((bounded<<<1, 256>>>(q)), nullptr);
    EXPECT_NO_BINARY_LAUNCH((no_args<<<1, 1>>>()), nullptr);
    EXPECT_NO_BINARY_LAUNCH((fill<float><<<4, 64>>>(p, 1.5f, n)), nullptr);
    EXPECT_NO_BINARY_LAUNCH((fill<double><<<1, 1, 128>>>(nullptr, 2.5, 0)), nullptr);
    EXPECT_NO_BINARY_LAUNCH((fill<int><<<4, 64>>>(q, 3, n)), nullptr);
    EXPECT_NO_BINARY_LAUNCH(hipLaunchKernelGGL(scale, dim3(2), dim3(128), 0, 0, p, 0.5f, n),
                            nullptr);

    float f = 3.0f;
    int count = n;
    void *args[] = { &p, &f, &count };
    EXPECT_NO_BINARY_CALL(hipLaunchKernel(reinterpret_cast<const void *>(&scale), dim3(1),
                                          dim3(n), args, 0, nullptr),
                          nullptr);
    EXPECT_NO_BINARY_CALL(hipLaunchCooperativeKernel(reinterpret_cast<const void *>(&scale),
                                                     dim3(1), dim3(64), args, 0, nullptr),
                          nullptr);
    hipEvent_t start, stop;
    CHECK_OK(hipEventCreate(&start));
    CHECK_OK(hipEventCreate(&stop));
    EXPECT_NO_BINARY_CALL(hipExtLaunchKernel(reinterpret_cast<const void *>(&scale), dim3(1),
                                             dim3(64), args, 0, nullptr, start, stop, 0),
                          nullptr);
    CHECK_OK(hipEventDestroy(start));
    CHECK_OK(hipEventDestroy(stop));

    hipStream_t s;
    CHECK_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    EXPECT_NO_BINARY_LAUNCH((scale<<<1, 64, 0, s>>>(p, 1.0f, 64)), s);
    g_failures += tu2_run(q, s);
    CHECK_OK(hipStreamDestroy(s));

    // A launch that could never be valid is refused for that reason first.
    scale<<<dim3(0), dim3(64)>>>(p, 1.0f, 0);
    CHECK(hipGetLastError() == hipErrorInvalidConfiguration, "empty grid");
    CHECK(hipLaunchKernel(reinterpret_cast<const void *>(&host_only_variable), dim3(1), dim3(1),
                          nullptr, 0, nullptr) == hipErrorInvalidDeviceFunction,
          "launch of a host address");
    (void)hipGetLastError();

    // Nothing a launch did not do: memory intact, the device usable.
    std::vector<int> host(n, 5), back(n, 0);
    CHECK_OK(hipMemcpy(q, host.data(), n * sizeof(int), hipMemcpyHostToDevice));
    CHECK_OK(hipMemcpy(back.data(), q, n * sizeof(int), hipMemcpyDeviceToHost));
    CHECK(host == back, "device memory round trip after launches");
    CHECK_OK(hipFree(p));
    CHECK_OK(hipFree(q));
}

int main()
{
    hipDeviceProp_t prop;
    CHECK_OK(hipGetDeviceProperties(&prop, 0));
    symbols();
    attributes();
    launches();
    CHECK_OK(hipDeviceSynchronize());
    CHECK(hipGetLastError() == hipSuccess, "an error left over at the end");
    if (g_failures) {
        std::fprintf(stderr, "fatbin basic: %d failure(s)\n", g_failures);
        return 1;
    }
    std::printf("fatbin basic: ok on '%s' (%s)\n", prop.name, via_relay() ? "relay" : "direct");
    return 0;
}
