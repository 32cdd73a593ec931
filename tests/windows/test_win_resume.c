/*
 * test_win_resume - a Windows program's session survives a cut link:
 * fault_relay (started with --cut-c2w) cuts the connection once, inside a
 * burst of fire-and-forget launches; the proxy must resume the session
 * (the test's pass pattern wants its "resumed session" line), every launch
 * must run exactly once, and a copy after the cut must be bit-exact.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "testutil.h"

int main(void)
{
    enum { LAUNCHES = 20000 };
    const size_t n = 32u << 20;
    hipModule_t m;
    hipFunction_t count_once;
    unsigned long long *counter, got = 0;
    HIP_CHECK(hipModuleLoad(&m, getenv("HIPWIRE_KERNELS")));
    HIP_CHECK(hipModuleGetFunction(&count_once, m, "count_once"));
    HIP_CHECK(hipMalloc((void **)&counter, sizeof *counter));
    HIP_CHECK(hipMemset(counter, 0, sizeof *counter));
    void *args[] = { &counter };
    for (int i = 0; i < LAUNCHES; i++)
        HIP_CHECK(hipModuleLaunchKernel(count_once, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemcpy(&got, counter, sizeof got, hipMemcpyDeviceToHost));
    CHECK_EQ(got, LAUNCHES);

    uint8_t *src = malloc(n), *back = calloc(1, n), *d;
    CHECK(src && back);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        src[i] = (uint8_t)(s >> 56);
    }
    HIP_CHECK(hipMalloc((void **)&d, n));
    HIP_CHECK(hipMemcpy(d, src, n, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(back, d, n, hipMemcpyDeviceToHost));
    CHECK(memcmp(src, back, n) == 0);
    HIP_CHECK(hipFree(d));
    free(src);
    free(back);
    printf("windows resume: %d launches ran once each, 32 MiB bit-exact: ok\n", LAUNCHES);
    return 0;
}
