/*
 * A stream of one device waits for an event recorded on another device's
 * stream behind long work (hipStreamWaitEvent across devices). The waiting
 * stream must resume when that work completes: on the CPU device the
 * completion was signalled only to its own device's waiters, and the wait
 * never ended (found by fuzz_request_decoder).
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { BIG = 64 << 20, SMALL = 4096, ROUNDS = 20 };

int main(void)
{
    int n = 0;
    HIP_CHECK(hipGetDeviceCount(&n));
    CHECK(n >= 2);
    uint8_t *big, *small, back[SMALL];
    hipStream_t s0, s1;
    hipEvent_t e;
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipMalloc((void **)&big, BIG));
    HIP_CHECK(hipStreamCreateWithFlags(&s0, hipStreamNonBlocking));
    HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipMalloc((void **)&small, SMALL));
    HIP_CHECK(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
    for (int round = 0; round < ROUNDS; round++) {
        /* Long work on device 0, then the event the other device waits for. */
        for (int k = 0; k < 4; k++)
            HIP_CHECK(hipMemsetAsync(big, round + k, BIG, s0));
        HIP_CHECK(hipEventRecord(e, s0));
        HIP_CHECK(hipStreamWaitEvent(s1, e, 0));
        HIP_CHECK(hipMemsetAsync(small, round, SMALL, s1));
        HIP_CHECK(hipStreamSynchronize(s1)); /* hung here before the fix */
        HIP_CHECK(hipEventQuery(e));         /* the wait ended after the event */
        HIP_CHECK(hipMemcpy(back, small, SMALL, hipMemcpyDeviceToHost));
        for (int i = 0; i < SMALL; i++)
            CHECK_EQ(back[i], (uint8_t)round);
    }
    HIP_CHECK(hipStreamDestroy(s1));
    HIP_CHECK(hipFree(small));
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipStreamDestroy(s0));
    HIP_CHECK(hipEventDestroy(e));
    HIP_CHECK(hipFree(big));
    printf("cross-device wait: ok\n");
    return 0;
}
