// libfatbin_lib.so: a shared library with its own kernels and variables; its
// module constructor registers them with whatever libamdhip64 is loaded.
// Three kernels (the worker log of fatbin_libs counts uploads by that).
#include "fatbin_check.h"

__device__ unsigned lib_magic[2] = { 0xC0DEu, 0xBEEFu };

__global__ void lib_k1(unsigned *p) { p[0] = lib_magic[0]; }
__global__ void lib_k2(unsigned *p, unsigned v) { p[1] = v; }
__global__ void lib_k3(double *p, double a, double b) { p[0] = a * b; }

// Runs the library's checks; returns the number of failures.
extern "C" int lib_run(int round)
{
    int before = g_failures;
    unsigned m[2] = { 0, 0 };
    CHECK_OK(hipMemcpyFromSymbol(m, HIP_SYMBOL(lib_magic), sizeof m));
    // Each load of the library starts from the code object's bytes.
    CHECK(m[0] == 0xC0DEu && m[1] == 0xBEEFu, "round %d: lib_magic %x %x", round, m[0], m[1]);
    unsigned mine[2] = { unsigned(round), 7u };
    CHECK_OK(hipMemcpyToSymbol(HIP_SYMBOL(lib_magic), mine, sizeof mine));
    CHECK_OK(hipMemcpyFromSymbol(m, HIP_SYMBOL(lib_magic), sizeof m));
    CHECK(m[0] == unsigned(round) && m[1] == 7u, "round %d: write back", round);
    unsigned *dev = nullptr;
    CHECK_OK(hipMalloc(&dev, 8));
    EXPECT_NO_BINARY_LAUNCH((lib_k1<<<1, 1>>>(dev)), nullptr);
    EXPECT_NO_BINARY_LAUNCH((lib_k2<<<1, 1>>>(dev, 3u)), nullptr);
    EXPECT_NO_BINARY_LAUNCH((lib_k3<<<1, 1>>>(nullptr, 1.0, 2.0)), nullptr);
    hipFuncAttributes a;
    CHECK_OK(hipFuncGetAttributes(&a, reinterpret_cast<const void *>(&lib_k3)));
    CHECK_OK(hipFree(dev));
    return g_failures - before;
}
