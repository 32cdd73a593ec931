/*
 * gpu_test.h - shared by the GPU test programs: the skip rule, a clock and
 * the PTX module (HIPWIRE_GPU_KERNELS, set by tests/gpu/CMakeLists.txt).
 */
#ifndef HIPWIRE_GPU_TEST_H
#define HIPWIRE_GPU_TEST_H

#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

#define GPU_SKIP 77 /* ctest's SKIP_RETURN_CODE for these tests */

/* Skips (exit 77) unless the worker serves at least one CUDA device. */
static inline void gpu_require(void)
{
    int n = 0;
    hipError_t e = hipGetDeviceCount(&n);
    if (e != hipSuccess || n == 0) {
        printf("SKIPPED: no CUDA GPU (hipGetDeviceCount: %s, %d device(s))\n", hipGetErrorName(e),
               n);
        exit(GPU_SKIP);
    }
    hipDeviceProp_t p;
    HIP_CHECK(hipGetDeviceProperties(&p, 0));
    if (strncmp(p.gcnArchName, "sm_", 3) != 0) {
        printf("SKIPPED: no CUDA GPU (worker device 0 is %s, %s)\n", p.name, p.gcnArchName);
        exit(GPU_SKIP);
    }
}

static inline double gpu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline hipModule_t gpu_kernels(void)
{
    const char *path = getenv("HIPWIRE_GPU_KERNELS");
    hipModule_t m;
    CHECK(path != NULL);
    HIP_CHECK(hipModuleLoad(&m, path));
    return m;
}

static inline hipFunction_t gpu_fn(hipModule_t m, const char *name)
{
    hipFunction_t f;
    HIP_CHECK(hipModuleGetFunction(&f, m, name));
    return f;
}

/* One thread busy for ns nanoseconds of GPU time. */
static inline void gpu_spin(hipFunction_t spin, hipStream_t s, unsigned long long ns)
{
    void *done = NULL;
    void *args[] = { &ns, &done };
    HIP_CHECK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

#endif
