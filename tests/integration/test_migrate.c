/*
 * test_migrate - planned migration (`hipwire drain A --to B`, docs/worker.md
 * "Migration") with two real workers: B started by the outer with_worker
 * (its port in HIPWIRE_TARGET_PORT), A by the inner one (TF_WORKER_PORT),
 * which this program talks to.
 *
 *   test_migrate HIPWIRE run       a program in mid-run - allocations, a
 *                                  module with a kernel and a __device__
 *                                  global, a stream, an event, a captured
 *                                  graph, thousands of launches - is moved
 *                                  from A to B by a drain in another process
 *                                  and ends bit-exact: every launch counted
 *                                  once, through device pointers stored in
 *                                  device memory and the global's address;
 *                                  A's log says it moved, B holds the session.
 *   test_migrate HIPWIRE many N    N such programs at once, all moved.
 *   test_migrate HIPWIRE refused   B refuses (its --mem-limit is too small,
 *                                  or it wants a token A does not have): the
 *                                  session stays on A and ends bit-exact.
 *   test_migrate HIPWIRE sigterm   A runs with --migrate-to B and gets
 *                                  SIGTERM mid-run: the session moves to B
 *                                  and ends bit-exact, A exits.
 */
#include <hip/hip_runtime_api.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

enum { N = 1 << 20, G = 64 }; /* 4 MiB of data, the 64 ints of hw_global_table */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The kernel's step on the host (tests/kernels/vadd_kernels.c, mig_step). */
static void step_ref(int *data, int *table, int n, int k)
{
    for (int i = 0; i < n; i++)
        data[i] = (int)((unsigned)data[i] * 31u + (unsigned)k + (unsigned)table[i % 64]);
    for (int j = 0; j < 64; j++)
        table[j] += j + 1;
}

/* `hipwire drain A --to B` after delay_ms, in a child; its output in the log.
 * hipwire NULL: SIGTERM to A instead (started with --migrate-to B). */
static pid_t drain_later(const char *hipwire, int delay_ms)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        usleep((useconds_t)delay_ms * 1000);
        if (!hipwire)
            _exit(kill((pid_t)atoi(getenv("HIPWIRE_WORKER_PID")), SIGTERM) == 0 ? 0 : 1);
        char a[64], b[64];
        snprintf(a, sizeof a, "127.0.0.1:%s", getenv("TF_WORKER_PORT"));
        snprintf(b, sizeof b, "127.0.0.1:%s", getenv("HIPWIRE_TARGET_PORT"));
        execl(hipwire, hipwire, "drain", "--to", b, a, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int log_count(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    int n = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strstr(line, what))
            n++;
    fclose(f);
    return n;
}

/* run() starts the move (drain_later(trigger_with, 300)) once 200 launches
 * are done, so that it always comes mid-run; trigger 0: it does not. */
static int trigger;
static const char *trigger_with;
static pid_t trigger_pid;
static int ready_fd = -1; /* many: a child says it is 200 launches in */
static int stop_fd = -1;  /* many: the parent closes it when the children may stop */

static int stop_said(void)
{
    struct pollfd p = { .fd = stop_fd, .events = POLLIN };
    return poll(&p, 1, 0) > 0;
}

/* One program's work for `seconds`; returns the launches made. Checks the
 * result bit-exact at the end and prints the addresses it used. */
static long run(double seconds, double *first_after_s)
{
    hipModule_t m;
    hipFunction_t step;
    int *d_data, *d_table;
    unsigned long long *d_ptrs;
    size_t gsize = 0;
    static int h_data[N], h_ref[N];
    int h_table[G], ref_table[G];
    hipStream_t s;
    hipEvent_t ev;

    HIP_CHECK(hipModuleLoad(&m, getenv("HIPWIRE_KERNELS")));
    HIP_CHECK(hipModuleGetFunction(&step, m, "mig_step"));
    HIP_CHECK(hipModuleGetGlobal((hipDeviceptr_t *)&d_table, &gsize, m, "hw_global_table"));
    CHECK_EQ(gsize, sizeof h_table);
    HIP_CHECK(hipMalloc((void **)&d_data, sizeof h_data));
    HIP_CHECK(hipMalloc((void **)&d_ptrs, 2 * sizeof *d_ptrs));
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipEventCreate(&ev));
    for (int i = 0; i < N; i++)
        h_data[i] = h_ref[i] = i * 7 + 3;
    for (int j = 0; j < G; j++)
        ref_table[j] = j * j;
    HIP_CHECK(hipMemcpy(d_data, h_data, sizeof h_data, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(d_table, ref_table, sizeof ref_table, hipMemcpyHostToDevice));
    unsigned long long ptrs[2] = { (uintptr_t)d_data, (uintptr_t)d_table };
    HIP_CHECK(hipMemcpy(d_ptrs, ptrs, sizeof ptrs, hipMemcpyHostToDevice));

    /* A graph of one step with k = 1000, replayed on the stream. */
    int n = 4096, k = 1000;
    void *gargs[] = { &d_ptrs, &n, &k };
    hipGraph_t graph;
    hipGraphExec_t exec;
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipModuleLaunchKernel(step, 1, 1, 1, 1, 1, 1, 0, s, gargs, NULL));
    HIP_CHECK(hipStreamEndCapture(s, &graph));
    HIP_CHECK(hipGraphInstantiate(&exec, graph, NULL, NULL, 0));
    HIP_CHECK(hipGraphDestroy(graph));

    long launches = 0;
    double t0 = now_s();
    *first_after_s = 0;
    while (stop_fd >= 0 ? !stop_said() : now_s() - t0 < seconds) {
        /* A few launches of their own, then the graph, then a check. */
        for (int r = 0; r < 20; r++, launches++) {
            int kk = (int)(launches % 97);
            void *args[] = { &d_ptrs, &n, &kk };
            HIP_CHECK(hipModuleLaunchKernel(step, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
            step_ref(h_ref, ref_table, n, kk);
        }
        HIP_CHECK(hipGraphLaunch(exec, s));
        step_ref(h_ref, ref_table, n, 1000);
        launches++;
        HIP_CHECK(hipEventRecord(ev, s));
        HIP_CHECK(hipEventSynchronize(ev));
        HIP_CHECK(hipMemcpy(h_table, d_table, sizeof h_table, hipMemcpyDeviceToHost));
        CHECK(memcmp(h_table, ref_table, sizeof h_table) == 0);
        if (ready_fd >= 0 && launches >= 200) {
            CHECK(write(ready_fd, "r", 1) == 1);
            close(ready_fd);
            ready_fd = -1;
            t0 = now_s(); /* the move comes while it runs, however slow the start */
        }
        if (trigger && launches >= 200) {
            trigger = 0;
            trigger_pid = drain_later(trigger_with, 300);
            t0 = now_s(); /* as long again after it */
        }
    }
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipMemcpy(h_data, d_data, sizeof h_data, hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(h_table, d_table, sizeof h_table, hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (h_data[i] != h_ref[i]) {
            fprintf(stderr, "data[%d] = %d, expected %d after %ld launches\n", i, h_data[i],
                    h_ref[i], launches);
            exit(1);
        }
    CHECK(memcmp(h_table, ref_table, sizeof h_table) == 0);
    /* The same addresses as before: the pointers the program holds still
     * name the same memory, and the global is where it was. */
    hipDeviceptr_t again;
    HIP_CHECK(hipModuleGetGlobal(&again, &gsize, m, "hw_global_table"));
    CHECK(again == (hipDeviceptr_t)d_table);
    unsigned long long back[2];
    HIP_CHECK(hipMemcpy(back, d_ptrs, sizeof back, hipMemcpyDeviceToHost));
    CHECK(back[0] == (uintptr_t)d_data && back[1] == (uintptr_t)d_table);
    printf("pid %d: %ld launches bit-exact; data at %p, global at %p\n", (int)getpid(), launches,
           (void *)d_data, (void *)d_table);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipEventDestroy(ev));
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFree(d_data));
    HIP_CHECK(hipFree(d_ptrs));
    HIP_CHECK(hipModuleUnload(m));
    return launches;
}

int main(int argc, char **argv)
{
    CHECK(argc >= 3);
    const char *hipwire = argv[1], *mode = argv[2];
    const char *alog = getenv("HIPWIRE_WORKER_LOG");
    double unused;
    if (!strcmp(mode, "child")) {
        ready_fd = argc > 4 ? atoi(argv[3]) : -1;
        stop_fd = argc > 4 ? atoi(argv[4]) : -1;
        run(2.5, &unused);
        return 0;
    }
    if (!strcmp(mode, "run") || !strcmp(mode, "refused") || !strcmp(mode, "sigterm")) {
        int refused = !strcmp(mode, "refused");
        trigger = 1;
        trigger_with = strcmp(mode, "sigterm") ? hipwire : NULL;
        long launches = run(2.5, &unused);
        pid_t d = trigger_pid;
        CHECK(d > 0);
        int st;
        CHECK(waitpid(d, &st, 0) == d && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK(launches > 200);
        if (alog) {
            CHECK_EQ(log_count(alog, ": moved to 127.0.0.1:"), refused ? 0 : 1);
            CHECK_EQ(log_count(alog, "not moved to"), refused ? 1 : 0);
        }
        printf("migrate %s: ok\n", mode);
        return 0;
    }
    CHECK(!strcmp(mode, "many") && argc == 4);
    int count = atoi(argv[3]);
    pid_t kids[64];
    int ready[2], stop[2];
    CHECK(count > 0 && count <= 64 && pipe(ready) == 0 && pipe(stop) == 0);
    char fd_s[16], stop_s[16];
    snprintf(fd_s, sizeof fd_s, "%d", ready[1]);
    snprintf(stop_s, sizeof stop_s, "%d", stop[0]);
    for (int i = 0; i < count; i++) {
        kids[i] = fork();
        CHECK(kids[i] >= 0);
        if (kids[i] == 0) {
            close(ready[0]);
            close(stop[1]);
            execl(argv[0], argv[0], hipwire, "child", fd_s, stop_s, (char *)NULL);
            _exit(127);
        }
    }
    close(ready[1]);
    close(stop[0]);
    /* Every program is 200 launches in: the move comes mid-run for all, and
     * they go on until the drain is done and a while after. */
    char c;
    for (int i = 0; i < count; i++)
        CHECK(read(ready[0], &c, 1) == 1);
    close(ready[0]);
    pid_t d = drain_later(hipwire, 100);
    int failed = 0, st;
    CHECK(waitpid(d, &st, 0) == d && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* Until every session has moved (A's log), then a little longer at B. */
    for (double end = now_s() + 60; alog && now_s() < end;) {
        if (log_count(alog, ": moved to 127.0.0.1:") >= count)
            break;
        usleep(100 * 1000);
    }
    usleep(500 * 1000);
    close(stop[1]);
    for (int i = 0; i < count; i++)
        if (waitpid(kids[i], &st, 0) != kids[i] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed++;
    CHECK_EQ(failed, 0);
    if (alog)
        CHECK_EQ(log_count(alog, ": moved to 127.0.0.1:"), count);
    printf("migrate many: %d programs moved, all bit-exact\n", count);
    return 0;
}
