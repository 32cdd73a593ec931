/*
 * Asynchronous work is fire-and-forget, so its errors surface later: at the
 * next synchronising call and through hipGetLastError, as HIP does.
 */
#include <hip/hip_runtime_api.h>

#include "testutil.h"

int main(void)
{
    hipModule_t m;
    hipFunction_t vadd;
    HIP_CHECK(hipModuleLoad(&m, getenv("HIPWIRE_KERNELS")));
    HIP_CHECK(hipModuleGetFunction(&vadd, m, "vadd"));
    float *a;
    int n = 16;
    HIP_CHECK(hipMalloc((void **)&a, 64));
    void *args[] = { &a, &a, &a, &n };

    /* 2048 threads per block: legal to enqueue, refused by the worker. */
    HIP_CHECK(hipModuleLaunchKernel(vadd, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL));
    HIP_EXPECT(hipDeviceSynchronize(), hipErrorInvalidConfiguration);
    CHECK_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
    CHECK_EQ(hipGetLastError(), hipSuccess);
    HIP_CHECK(hipDeviceSynchronize()); /* reported once, then gone */

    /* The same through hipGetLastError alone, with a sync reply in between
     * that carries the deferred error to the client. */
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipModuleLaunchKernel(vadd, 1, 1, 1, 4096, 1, 1, 0, s, args, NULL));
    size_t fr, tot;
    HIP_CHECK(hipMemGetInfo(&fr, &tot)); /* a round trip that is not a sync point */
    CHECK_EQ(hipPeekAtLastError(), hipErrorInvalidConfiguration);
    CHECK_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
    CHECK_EQ(hipGetLastError(), hipSuccess);

    /* A function runs only on its module's device: the worker refuses a
     * launch on another device's stream, and the stream's next synchronize
     * reports it. */
    HIP_CHECK(hipModuleLaunchKernel(vadd, 1, 1, 1, 16, 1, 1, 0, s, args, NULL));
    HIP_CHECK(hipStreamSynchronize(s));
    hipStream_t other;
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipStreamCreate(&other));
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipModuleLaunchKernel(vadd, 1, 1, 1, 16, 1, 1, 0, other, args, NULL));
    HIP_EXPECT(hipStreamSynchronize(other), hipErrorInvalidHandle);
    HIP_CHECK(hipStreamDestroy(other));

    /* After hipModuleUnload a stale function handle fails at once. */
    HIP_CHECK(hipModuleUnload(m));
    HIP_EXPECT(hipModuleLaunchKernel(vadd, 1, 1, 1, 16, 1, 1, 0, s, args, NULL),
               hipErrorInvalidResourceHandle);
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipDeviceSynchronize());
    printf("deferred errors: ok\n");
    return 0;
}
