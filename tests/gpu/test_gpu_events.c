/* Events time real GPU work; a wait on another stream's event orders work. */
#include "gpu_test.h"

#define SPIN_NS 200000000ull /* 200 ms */

int main(void)
{
    gpu_require();
    hipModule_t mod = gpu_kernels();
    hipFunction_t spin = gpu_fn(mod, "spin_ns");
    hipStream_t s1, s2;
    hipEvent_t start, stop, after;
    HIP_CHECK(hipStreamCreate(&s1));
    HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
    HIP_CHECK(hipEventCreate(&start));
    HIP_CHECK(hipEventCreate(&stop));
    HIP_CHECK(hipEventCreate(&after));
    gpu_spin(spin, s1, 1000000);
    HIP_CHECK(hipStreamSynchronize(s1));

    HIP_CHECK(hipEventRecord(start, s1));
    gpu_spin(spin, s1, SPIN_NS);
    HIP_CHECK(hipEventRecord(stop, s1));
    /* s2 is non-blocking: only the event orders it behind the spin. */
    HIP_CHECK(hipStreamWaitEvent(s2, stop, 0));
    HIP_CHECK(hipEventRecord(after, s2));
    HIP_EXPECT(hipEventQuery(stop), hipErrorNotReady);
    HIP_CHECK(hipEventSynchronize(after));
    HIP_CHECK(hipEventQuery(stop));

    float ms = 0, ms_after = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
    HIP_CHECK(hipEventElapsedTime(&ms_after, start, after));
    printf("events: 200 ms spin timed %.3f ms; event after the cross-stream wait at %.3f ms\n", ms,
           ms_after);
    CHECK(ms >= 195.0f && ms <= 260.0f);
    CHECK(ms_after >= ms);

    hipEvent_t nt;
    HIP_CHECK(hipEventCreateWithFlags(&nt, hipEventDisableTiming));
    HIP_CHECK(hipEventRecord(nt, s1));
    HIP_CHECK(hipEventSynchronize(nt));
    HIP_EXPECT(hipEventElapsedTime(&ms, start, nt), hipErrorInvalidHandle);

    HIP_CHECK(hipEventDestroy(start));
    HIP_CHECK(hipEventDestroy(stop));
    HIP_CHECK(hipEventDestroy(after));
    HIP_CHECK(hipEventDestroy(nt));
    HIP_CHECK(hipStreamDestroy(s1));
    HIP_CHECK(hipStreamDestroy(s2));
    HIP_CHECK(hipModuleUnload(mod));
    printf("gpu events: ok\n");
    return 0;
}
