/*
 * test_heartbeat_proxy - the proxy's half of dead-peer detection, with
 * TF_WORKER_HEARTBEAT=200: an idle connection and a 1.5 s kernel are not
 * mistaken for a dead worker; a worker whose session process is stopped
 * (its kernel still ACKs, so TCP alone sees nothing wrong) is given up
 * within 4 intervals, with a line that says so, and later calls fail with
 * hipErrorLaunchFailure.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "testutil.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The worker's only child: our session process. */
static pid_t session_pid(void)
{
    char path[128];
    const char *w = getenv("HIPWIRE_WORKER_PID");
    CHECK(w != NULL);
    snprintf(path, sizeof path, "/proc/%s/task/%s/children", w, w);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int pid = 0, n = fscanf(f, "%d", &pid);
    fclose(f);
    CHECK(n == 1 && pid > 0);
    return (pid_t)pid;
}

int main(void)
{
    hipModule_t m;
    hipFunction_t k;
    void *p;
    HIP_CHECK(hipModuleLoad(&m, getenv("HIPWIRE_KERNELS")));
    HIP_CHECK(hipModuleGetFunction(&k, m, "sleep_ms"));
    HIP_CHECK(hipMalloc(&p, 4096));

    /* Idle for 6 intervals: heartbeats keep both sides content. */
    usleep(1200 * 1000);
    HIP_CHECK(hipMemset(p, 1, 4096));
    HIP_CHECK(hipDeviceSynchronize());

    /* A kernel that runs 1.5 s (7.5 intervals): the wait is not a silence. */
    int ms = 1500;
    void *args[] = { &ms };
    double t0 = now_s();
    HIP_CHECK(hipModuleLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    HIP_CHECK(hipDeviceSynchronize());
    printf("1.5 s kernel finished after %.2f s\n", now_s() - t0);

    /* Now the worker hangs. */
    pid_t sp = session_pid();
    CHECK(kill(sp, SIGSTOP) == 0);
    t0 = now_s();
    HIP_EXPECT(hipDeviceSynchronize(), hipErrorLaunchFailure);
    double took = now_s() - t0;
    printf("hung worker given up after %.2f s (4 intervals = 0.80 s)\n", took);
    CHECK(took > 0.5 && took < 5.0);
    HIP_EXPECT(hipMalloc(&p, 16), hipErrorLaunchFailure);
    CHECK(kill(sp, SIGCONT) == 0);
    printf("heartbeat proxy: ok\n");
    return 0;
}
