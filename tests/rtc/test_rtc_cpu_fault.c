/*
 * test_rtc_cpu_fault - a kernel that faults, or runs past the worker's
 * HIPWIRE_CPU_KERNEL_TIMEOUT, ends only its own session, with an error to
 * its client: a session in another process started afterwards runs a kernel
 * normally (docs/hip-source.md).
 *   test_rtc_cpu_fault fault | hang
 */
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rtc_cpu_util.h"

static const char *src = "extern \"C\" __global__ void poke(int *p, int mode)\n"
                         "{\n"
                         "  if (mode == 0) { p[threadIdx.x + 4096] = 1; return; }\n"
                         "  volatile int spin = 1;\n"
                         "  while (spin) { }\n"
                         "}\n"
                         "extern \"C\" __global__ void twice(int *p) { p[threadIdx.x] *= 2; }\n";

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* In a process of its own (its own session): the bad launch. */
static int bad_session(int mode)
{
    hipModule_t m = rtc_load(src, "fault.hip");
    int *p = (int *)(uintptr_t)0x1000; /* no device memory there */
    void *args[] = { &p, &mode };
    double t0 = now_s();
    hipError_t e = rtc_launch(m, "poke", D3(1, 1, 1), D3(64, 1, 1), 0, args);
    if (e == hipSuccess)
        e = hipDeviceSynchronize();
    printf("%s kernel: %s (%d) after %.1f s\n", mode == 0 ? "faulting" : "endless",
           hipGetErrorName(e), (int)e, now_s() - t0);
    fflush(stdout);
    /* The session is gone: later calls fail too, none hangs. */
    int *d = NULL;
    hipError_t e2 = hipMalloc((void **)&d, 16);
    printf("then hipMalloc: %s\n", hipGetErrorName(e2));
    fflush(stdout);
    return e != hipSuccess && e2 != hipSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    int mode = strcmp(argv[1], "fault") == 0 ? 0 : 1;
    /* No HIP call before fork: the child opens its own session. */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(bad_session(mode));
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    /* The worker still serves: a new session runs a kernel. */
    hipModule_t m = rtc_load(src, "after.hip");
    int h[64], *d = NULL;
    for (int i = 0; i < 64; i++)
        h[i] = i;
    HIP_CHECK(hipMalloc((void **)&d, sizeof h));
    HIP_CHECK(hipMemcpyHtoD(d, h, sizeof h));
    void *args[] = { &d };
    HIP_CHECK(rtc_launch(m, "twice", D3(1, 1, 1), D3(64, 1, 1), 0, args));
    HIP_CHECK(hipMemcpyDtoH(h, d, sizeof h));
    for (int i = 0; i < 64; i++)
        CHECK_EQ(h[i], 2 * i);
    printf("another session afterwards: ok\n");
    return 0;
}
