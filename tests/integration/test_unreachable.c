/* No worker listening: every call fails cleanly with hipErrorNotInitialized,
 * one line on stderr, and the program keeps control. */
#include <hip/hip_runtime_api.h>

#include "testutil.h"

int main(void)
{
    int n = 7;
    void *p = (void *)1;
    HIP_EXPECT(hipGetDeviceCount(&n), hipErrorNotInitialized);
    CHECK_EQ(n, 7); /* out-params untouched on failure */
    HIP_EXPECT(hipMalloc(&p, 16), hipErrorNotInitialized);
    CHECK(p == (void *)1);
    HIP_EXPECT(hipDeviceSynchronize(), hipErrorNotInitialized);
    HIP_EXPECT(hipInit(0), hipErrorNotInitialized);
    CHECK_EQ(hipGetLastError(), hipErrorNotInitialized);
    printf("unreachable worker: ok\n");
    return 0;
}
