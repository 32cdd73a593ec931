/*
 * test_worker_shutdown - a worker told to stop (SIGTERM) says so to its
 * clients (GOING_AWAY), so a resumable client fails at once with a line
 * naming the shutdown instead of trying to resume for
 * TF_WORKER_RESUME_TIMEOUT_MS (the worker's --resume-grace, 60 s).
 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "testutil.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
    const char *wpid = getenv("HIPWIRE_WORKER_PID");
    CHECK(wpid != NULL);
    float *d = NULL, h[256] = { 0 };
    HIP_CHECK(hipMalloc((void **)&d, sizeof h));
    HIP_CHECK(hipMemcpy(d, h, sizeof h, hipMemcpyHostToDevice));
    HIP_CHECK(hipDeviceSynchronize());

    CHECK(kill((pid_t)atol(wpid), SIGTERM) == 0);
    double t0 = now_ms();
    hipError_t e = hipSuccess;
    while (e == hipSuccess && now_ms() - t0 < 20000) {
        e = hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
        if (e == hipSuccess)
            usleep(10 * 1000);
    }
    double took = now_ms() - t0;
    fprintf(stderr, "worker shutdown: calls failed %.0f ms after SIGTERM with %s\n", took,
            hipGetErrorName(e));
    CHECK(e == hipErrorLaunchFailure);
    CHECK(took < 1000);
    printf("worker shutdown: ok\n");
    return 0;
}
