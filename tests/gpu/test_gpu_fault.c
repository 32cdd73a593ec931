/*
 * A kernel that faults (illegal address) ends with an error in its own
 * session, while a second session on the same GPU keeps computing
 * correctly. Each child process is its own client, so its own session.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_test.h"

#define HEALTHY_MS 4000.0

static int faulter(void)
{
    alarm(60); /* a hang is a failure, not a stuck test */
    hipModule_t mod = gpu_kernels();
    hipFunction_t poke = gpu_fn(mod, "poke");
    usleep(500 * 1000);                      /* let the healthy session get going */
    void *where = (void *)(uintptr_t)0x1000; /* never mapped on the GPU */
    void *args[] = { &where };
    HIP_CHECK(hipModuleLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    double t0 = gpu_now_ms();
    hipError_t e = hipDeviceSynchronize();
    printf("faulting session: hipDeviceSynchronize -> %s (%d) after %.1f ms\n", hipGetErrorName(e),
           (int)e, gpu_now_ms() - t0);
    CHECK(e != hipSuccess);
    /* The context is gone: later calls fail too, promptly. */
    void *p = NULL;
    hipError_t e2 = hipMalloc(&p, 4096);
    hipError_t e3 = hipDeviceSynchronize();
    printf("faulting session: then hipMalloc -> %s, hipDeviceSynchronize -> %s\n",
           hipGetErrorName(e2), hipGetErrorName(e3));
    CHECK(e2 != hipSuccess || e3 != hipSuccess);
    return 0;
}

static int healthy(void)
{
    alarm(60);
    hipModule_t mod = gpu_kernels();
    hipFunction_t vadd = gpu_fn(mod, "vadd");
    enum { N = 1 << 20 };
    float *ha = malloc(N * sizeof(float)), *hc = malloc(N * sizeof(float)), *a, *c;
    CHECK(ha && hc);
    for (int i = 0; i < N; i++)
        ha[i] = (float)(i & 0xffff);
    HIP_CHECK(hipMalloc((void **)&a, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&c, N * sizeof(float)));
    HIP_CHECK(hipMemcpy(a, ha, N * sizeof(float), hipMemcpyHostToDevice));
    int n = N, rounds = 0;
    double t0 = gpu_now_ms();
    while (gpu_now_ms() - t0 < HEALTHY_MS) {
        void *args[] = { &a, &a, &c, &n };
        HIP_CHECK(hipModuleLaunchKernel(vadd, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
        HIP_CHECK(hipMemcpy(hc, c, N * sizeof(float), hipMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            CHECK(hc[i] == 2 * ha[i]);
        rounds++;
    }
    printf("healthy session: %d correct rounds over %.0f ms\n", rounds, gpu_now_ms() - t0);
    CHECK(rounds > 0);
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(c));
    return 0;
}

int main(void)
{
    /* Forked before any HIP call, so each child opens its own session. */
    pid_t ph = fork();
    if (ph == 0) {
        gpu_require();
        int rc = healthy();
        fflush(stdout); /* _exit skips stdio's buffers */
        _exit(rc);
    }
    pid_t pf = fork();
    if (pf == 0) {
        gpu_require();
        int rc = faulter();
        fflush(stdout);
        _exit(rc);
    }
    int sh = 0, sf = 0;
    waitpid(pf, &sf, 0);
    waitpid(ph, &sh, 0);
    if ((WIFEXITED(sh) && WEXITSTATUS(sh) == GPU_SKIP) ||
        (WIFEXITED(sf) && WEXITSTATUS(sf) == GPU_SKIP))
        return GPU_SKIP;
    printf("gpu fault: faulting child status 0x%x, healthy child status 0x%x\n", sf, sh);
    CHECK(WIFEXITED(sf) && WEXITSTATUS(sf) == 0);
    CHECK(WIFEXITED(sh) && WEXITSTATUS(sh) == 0);
    printf("gpu fault: ok\n");
    return 0;
}
