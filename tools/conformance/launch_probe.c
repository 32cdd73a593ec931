/*
 * LD_PRELOAD probe for the conformance runner: notes on stderr that a test
 * case tried to run a kernel (a launch, or a kernel node in a graph), then
 * forwards the call to the proxy unchanged.
 *
 * hip-tests kernels are gfx90a code, which a CPU-device worker cannot run.
 * A case that launches one and then fails is "needs-kernel", not a wrong
 * result, even when its launch went through <<<>>> whose return value the
 * test ignores and the failure shows up later as a value mismatch.
 *
 * Built by run.sh with the system C compiler; never part of hipwire.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <hip/hip_runtime_api.h>

/* hip_ext.h is C++ only; these two are declared here with its signatures. */
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                    uint32_t lx, uint32_t ly, uint32_t lz, size_t shmem,
                                    hipStream_t stream, void **params, void **extra,
                                    hipEvent_t start, hipEvent_t stop, uint32_t flags);
hipError_t hipHccModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                    uint32_t lx, uint32_t ly, uint32_t lz, size_t shmem,
                                    hipStream_t stream, void **params, void **extra,
                                    hipEvent_t start, hipEvent_t stop);

/* One line per function and kind of outcome (success, no binary for the
 * device, any other error) is enough to classify a case, and keeps the log
 * small for cases that launch in a loop. */
static atomic_uint reported[3];

static void *next_symbol(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        fprintf(stderr, "hipwire-probe: %s not found in the next library\n", name);
        abort();
    }
    return p;
}

static hipError_t note(unsigned bit, const char *name, hipError_t rc)
{
    atomic_uint *seen = &reported[rc == hipSuccess ? 0 : rc == hipErrorNoBinaryForGpu ? 1 : 2];
    if (!(atomic_fetch_or(seen, 1u << bit) & (1u << bit)))
        fprintf(stderr, "hipwire-probe: kernel use %s -> %d\n", name, (int)rc);
    return rc;
}

#define FORWARD(bit, name, params, args)          \
    hipError_t name params                        \
    {                                             \
        static hipError_t(*real) params;          \
        if (!real)                                \
            *(void **)&real = next_symbol(#name); \
        return note(bit, #name, real args);       \
    }

FORWARD(0, hipLaunchKernel,
        (const void *f, dim3 g, dim3 b, void **args, size_t shmem, hipStream_t s),
        (f, g, b, args, shmem, s))
FORWARD(1, hipLaunchCooperativeKernel,
        (const void *f, dim3 g, dim3 b, void **args, unsigned int shmem, hipStream_t s),
        (f, g, b, args, shmem, s))
FORWARD(2, hipLaunchCooperativeKernelMultiDevice,
        (hipLaunchParams * list, int n, unsigned int flags), (list, n, flags))
FORWARD(3, hipExtLaunchMultiKernelMultiDevice, (hipLaunchParams * list, int n, unsigned int flags),
        (list, n, flags))
FORWARD(4, hipExtLaunchKernel,
        (const void *f, dim3 g, dim3 b, void **args, size_t shmem, hipStream_t s, hipEvent_t start,
         hipEvent_t stop, int flags),
        (f, g, b, args, shmem, s, start, stop, flags))
FORWARD(5, hipModuleLaunchKernel,
        (hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
         unsigned int by, unsigned int bz, unsigned int shmem, hipStream_t s, void **params,
         void **extra),
        (f, gx, gy, gz, bx, by, bz, shmem, s, params, extra))
FORWARD(6, hipExtModuleLaunchKernel,
        (hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t lx, uint32_t ly,
         uint32_t lz, size_t shmem, hipStream_t s, void **params, void **extra, hipEvent_t start,
         hipEvent_t stop, uint32_t flags),
        (f, gx, gy, gz, lx, ly, lz, shmem, s, params, extra, start, stop, flags))
FORWARD(7, hipHccModuleLaunchKernel,
        (hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t lx, uint32_t ly,
         uint32_t lz, size_t shmem, hipStream_t s, void **params, void **extra, hipEvent_t start,
         hipEvent_t stop),
        (f, gx, gy, gz, lx, ly, lz, shmem, s, params, extra, start, stop))
FORWARD(8, hipGraphAddKernelNode,
        (hipGraphNode_t * node, hipGraph_t g, const hipGraphNode_t *deps, size_t ndeps,
         const hipKernelNodeParams *p),
        (node, g, deps, ndeps, p))
