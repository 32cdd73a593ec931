/*
 * test_drain - `hipwire drain` against a real worker (docs/protocol.md
 * "Drain"), run under with_worker:
 *
 *   test_drain HIPWIRE timeout   a live session keeps working after the drain,
 *                                a new session is refused, and when the
 *                                drain's 2 s run out the session's next call
 *                                fails within a second (GOING_AWAY DRAIN), not
 *                                after the resume timeout.
 *   test_drain HIPWIRE wait      without a timeout the worker waits for its
 *                                one session (a child that works 1.5 s) and
 *                                exits once it has ended.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs `hipwire VERB ARGS WORKER`; its stdout in out. */
static int cli(const char *hipwire, const char *verb, const char *args, char *out, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s %s 127.0.0.1:%s", hipwire, verb, args,
             getenv("TF_WORKER_PORT"));
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    printf("%s", out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int drain(const char *hipwire, const char *args, char *out, size_t cap)
{
    return cli(hipwire, "drain", args, out, cap);
}

/* A fresh process's first HIP call: its status. */
static hipError_t new_session_status(const char *self)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        execl(self, self, "-", "probe", (char *)NULL);
        _exit(127);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    return (hipError_t)WEXITSTATUS(st);
}

static void work(float *d, float *h, size_t n)
{
    HIP_CHECK(hipMemcpy(d, h, n * sizeof *h, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(h, d, n * sizeof *h, hipMemcpyDeviceToHost));
}

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    if (!strcmp(argv[2], "probe")) {
        int n = 0;
        return (int)hipGetDeviceCount(&n);
    }
    enum { N = 4096 };
    static float h[N];
    float *d;
    char out[1024];
    if (!strcmp(argv[2], "session")) {
        HIP_CHECK(hipMalloc((void **)&d, sizeof h));
        for (double end = now_s() + 1.5; now_s() < end;)
            work(d, h, N);
        HIP_CHECK(hipFree(d));
        return 0;
    }
    if (!strcmp(argv[2], "wait")) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            execl(argv[0], argv[0], "-", "session", (char *)NULL);
            _exit(127);
        }
        usleep(500 * 1000); /* its session is open */
        double t0 = now_s();
        CHECK_EQ(drain(argv[1], "--wait", out, sizeof out), 0);
        double took = now_s() - t0;
        CHECK(strstr(out, "draining: no new sessions; 1 session(s) to end (no time limit)"));
        CHECK(strstr(out, "exited"));
        int st;
        CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        /* It waited for the session (about 1 s left), then the worker went. */
        printf("the worker exited %.2f s after the drain\n", took);
        CHECK(took > 0.5 && took < 10.0);
        printf("drain wait: ok\n");
        return 0;
    }
    CHECK(!strcmp(argv[2], "timeout"));
    HIP_CHECK(hipMalloc((void **)&d, sizeof h));
    work(d, h, N);
    double t0 = now_s();
    CHECK_EQ(cli(argv[1], "status", "--worker", out, sizeof out), 0);
    CHECK(strstr(out, "backend") && !strstr(out, "draining"));
    CHECK_EQ(drain(argv[1], "--drain-timeout 2", out, sizeof out), 0);
    CHECK(strstr(out, "draining: no new sessions; 1 session(s) to end (sessions left after 2 s "
                      "are ended)"));
    /* `hipwire status` says so, in words and in JSON. */
    CHECK_EQ(cli(argv[1], "status", "--worker", out, sizeof out), 0);
    CHECK(strstr(out, "draining (no new sessions)"));
    CHECK_EQ(cli(argv[1], "status", "--json --worker", out, sizeof out), 0);
    CHECK(strstr(out, "\"draining\": true"));
    /* No new session; this one goes on. */
    CHECK_EQ(new_session_status(argv[0]), hipErrorNotInitialized);
    work(d, h, N);
    /* A second drain changes nothing and reports the first one's timeout. */
    CHECK_EQ(drain(argv[1], "", out, sizeof out), 0);
    CHECK(strstr(out, "after 2 s are ended"));
    hipError_t e = hipSuccess;
    while (e == hipSuccess && now_s() - t0 < 30)
        e = hipMemcpy(d, h, sizeof h, hipMemcpyHostToDevice);
    double took = now_s() - t0;
    printf("the session's calls failed %.2f s after the drain: %s\n", took, hipGetErrorName(e));
    CHECK_EQ(e, hipErrorLaunchFailure);
    CHECK(took >= 1.9 && took < 3.5);
    printf("drain timeout: ok\n");
    return 0;
}
