/*
 * test_prewarm - --prewarm 2 with a device start of 1000 ms
 * (HIPWIRE_CPU_START_DELAY_MS): a client that gets a prewarmed session
 * process makes its first call far sooner than the device could start
 * (< 500 ms), a client past the pool waits for a device start (>= 800 ms:
 * the hook is on, so the fast ones really were prewarmed), and the pool
 * refills: once it reports 2 more ready processes, a new client is fast
 * again. Reads the worker's log (HIPWIRE_WORKER_LOG) for the "ready" lines.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int ready_lines(const char *log)
{
    char line[1024];
    int n = 0;
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, "prewarm: session process") && strstr(line, " ready after ");
    fclose(f);
    return n;
}

static void wait_ready(const char *log, int n)
{
    double t0 = now_ms();
    while (ready_lines(log) < n) {
        CHECK(now_ms() - t0 < 20000);
        usleep(20 * 1000);
    }
}

static int hold_ms; /* how long each client keeps its session */

/* Forks a client whose first HIP call's latency (ms) comes back on fd. */
static pid_t client(int fd)
{
    fflush(stdout); /* or each child prints it again at exit */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        void *p;
        double t0 = now_ms();
        HIP_CHECK(hipMalloc(&p, 4096));
        double ms = now_ms() - t0;
        HIP_CHECK(hipMemset(p, 7, 4096));
        usleep((useconds_t)hold_ms * 1000);
        HIP_CHECK(hipDeviceSynchronize());
        HIP_CHECK(hipFree(p));
        CHECK(write(fd, &ms, sizeof ms) == sizeof ms);
        exit(0); /* the proxy says GOODBYE on its way out */
    }
    return pid;
}

static void round_of(int n, double *ms)
{
    int fds[2];
    pid_t pids[8];
    CHECK(n <= 8 && pipe(fds) == 0);
    for (int i = 0; i < n; i++)
        pids[i] = client(fds[1]);
    for (int i = 0; i < n; i++) {
        int st;
        CHECK(waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    for (int i = 0; i < n; i++)
        CHECK(read(fds[0], &ms[i], sizeof ms[i]) == sizeof ms[i]);
    close(fds[0]);
    close(fds[1]);
    for (int i = 1; i < n; i++) /* ascending */
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            double t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
}

/* --max-sessions 2 --prewarm 2: while 2 sessions are open the pool stays
 * empty (a warm process could only wait for a place); it refills when they
 * end. */
static int run_cap(const char *log)
{
    double ms[8];
    wait_ready(log, 2);
    hold_ms = 1500; /* longer than a device start: a refill would show */
    double t0 = now_ms();
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t a = client(fds[1]), b = client(fds[1]);
    usleep(1300 * 1000);
    int during = ready_lines(log);
    int st;
    CHECK(waitpid(a, &st, 0) == a && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(waitpid(b, &st, 0) == b && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(read(fds[0], &ms[0], sizeof ms[0]) == sizeof ms[0]);
    CHECK(read(fds[0], &ms[1], sizeof ms[1]) == sizeof ms[1]);
    wait_ready(log, 4);
    printf("prewarm 2, --max-sessions 2: first calls %.1f and %.1f ms; ready processes while "
           "both sessions were open: %d (no refill); refilled %.0f ms after the start\n",
           ms[0], ms[1], during, now_ms() - t0);
    CHECK(ms[0] < 500 && ms[1] < 500);
    CHECK_EQ(during, 2);
    printf("prewarm cap: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *log = getenv("HIPWIRE_WORKER_LOG");
    double ms[8];
    CHECK(log != NULL);
    if (argc > 1 && !strcmp(argv[1], "cap"))
        return run_cap(log);
    wait_ready(log, 2);
    round_of(3, ms);
    printf("prewarm 2, device start 1000 ms, 3 clients at once: first call %.1f, %.1f, %.1f ms\n",
           ms[0], ms[1], ms[2]);
    CHECK(ms[0] < 500 && ms[1] < 500); /* the pool's two */
    CHECK(ms[2] >= 800);               /* past the pool: a device start */
    wait_ready(log, 4);                /* two replacements */
    round_of(2, ms);
    printf("after the pool refilled, 2 clients at once: first call %.1f, %.1f ms\n", ms[0], ms[1]);
    CHECK(ms[0] < 500 && ms[1] < 500);
    printf("prewarm: ok\n");
    return 0;
}
