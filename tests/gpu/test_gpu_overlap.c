/* Two long kernels on two streams run at the same time: together they take
 * clearly less than twice one of them. */
#include "gpu_test.h"

#define SPIN_NS 300000000ull /* 300 ms */

int main(void)
{
    gpu_require();
    hipModule_t mod = gpu_kernels();
    hipFunction_t spin = gpu_fn(mod, "spin_ns");
    hipStream_t s1, s2;
    HIP_CHECK(hipStreamCreate(&s1));
    HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));

    gpu_spin(spin, s1, 1000000); /* warm up: JIT, first launch */
    HIP_CHECK(hipStreamSynchronize(s1));

    double t0 = gpu_now_ms();
    gpu_spin(spin, s1, SPIN_NS);
    HIP_CHECK(hipStreamSynchronize(s1));
    double one = gpu_now_ms() - t0;

    t0 = gpu_now_ms();
    gpu_spin(spin, s1, SPIN_NS);
    gpu_spin(spin, s2, SPIN_NS);
    /* The launch calls returned at once: the dispatch loop does not wait. */
    double queued = gpu_now_ms() - t0;
    HIP_CHECK(hipStreamSynchronize(s1));
    HIP_CHECK(hipStreamSynchronize(s2));
    double two = gpu_now_ms() - t0;

    printf("overlap: one 300 ms kernel %.1f ms; two on two streams %.1f ms (ratio %.2f); "
           "both queued in %.2f ms\n",
           one, two, two / one, queued);
    CHECK(one >= 290.0);
    CHECK(two < 1.5 * one);
    CHECK(queued < 100.0);
    HIP_CHECK(hipStreamDestroy(s1));
    HIP_CHECK(hipStreamDestroy(s2));
    HIP_CHECK(hipModuleUnload(mod));
    printf("gpu overlap: ok\n");
    return 0;
}
