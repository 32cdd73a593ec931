/*
 * test_admission - clients past --max-sessions wait their turn, a full
 * admission queue says "busy" and the client retries, and a slow device
 * start is not bounded by TF_CONNECT_TIMEOUT_MS (docs/worker.md,
 * "Admission"; docs/client.md).
 *
 *   test_admission queue N HOLD_MS   N clients at once against --max-sessions 2
 *                                    (TF_CONNECT_TIMEOUT_MS=500): all served,
 *                                    in turns, positions shown with TF_DEBUG
 *   test_admission busy              --max-sessions 1 --admission-queue 0: a
 *                                    second client is told "busy", retries,
 *                                    and is served once the first leaves; one
 *                                    with TF_ADMISSION_TIMEOUT_MS=200 gives up
 *   test_admission leave             --admission-queue 1: a queued client that
 *                                    gives up frees its place for the next
 *   test_admission slow              a device start of 1500 ms under
 *                                    TF_CONNECT_TIMEOUT_MS=300 works; with
 *                                    TF_DEVICE_START_TIMEOUT_MS=500 it fails
 *                                    with a line saying so
 */
#include <fcntl.h>
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

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* A session's worth of real work, checked; holds the session hold_ms. */
static void work(int hold_ms, unsigned char tag)
{
    enum { N = 4096 };
    unsigned char *d, h[N];
    HIP_CHECK(hipMalloc((void **)&d, N));
    sleep_ms(hold_ms);
    HIP_CHECK(hipMemset(d, tag, N));
    HIP_CHECK(hipMemcpy(h, d, N, hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK_EQ(h[i], tag);
    HIP_CHECK(hipFree(d));
}

/* Runs fn in a child whose stderr goes to `log` (when given); its pid. */
static pid_t spawn(const char *log, void (*fn)(void *), void *arg)
{
    fflush(stdout); /* or each child prints it again at exit */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (log) {
            int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            CHECK(fd >= 0 && dup2(fd, 2) == 2);
            close(fd);
        }
        fn(arg);
        exit(0); /* not _exit: the proxy says GOODBYE on its way out */
    }
    return pid;
}

static int exit_code(pid_t pid)
{
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int file_has(const char *path, const char *what)
{
    char buf[65536];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, what) != NULL;
}

static int queue_hold_ms;

static void queue_client(void *arg)
{
    work(queue_hold_ms, (unsigned char)(uintptr_t)arg);
}

/* Highest "position N" a client's debug log shows. */
static int max_position(const char *path)
{
    char line[512];
    int best = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "queued for a session (all busy), position ");
        if (p) {
            int v = atoi(p + strlen("queued for a session (all busy), position "));
            best = v > best ? v : best;
        }
    }
    fclose(f);
    return best;
}

static int run_queue(int n, int hold_ms)
{
    char logs[64][64];
    pid_t pids[64];
    CHECK(n > 2 && n <= 64);
    queue_hold_ms = hold_ms;
    setenv("TF_DEBUG", "1", 1);
    setenv("TF_CONNECT_TIMEOUT_MS", "500", 1);
    double t0 = now_ms();
    for (int i = 0; i < n; i++) {
        snprintf(logs[i], sizeof logs[i], "/tmp/hipwire-admission-%d-%d.log", (int)getpid(), i);
        pids[i] = spawn(logs[i], queue_client, (void *)(uintptr_t)(i + 1));
    }
    int served = 0, maxpos = 0;
    for (int i = 0; i < n; i++) {
        int rc = exit_code(pids[i]);
        int pos = max_position(logs[i]);
        if (rc != 0) {
            fprintf(stderr, "client %d failed (%d); its log:\n", i, rc);
            char cmd[128];
            snprintf(cmd, sizeof cmd, "cat %s >&2", logs[i]);
            CHECK(system(cmd) >= 0);
        }
        served += rc == 0;
        maxpos = pos > maxpos ? pos : maxpos;
        unlink(logs[i]);
    }
    double took = now_ms() - t0;
    printf("queue: %d of %d clients served in %.0f ms (2 sessions at a time, each held %d ms); "
           "highest queue position shown: %d\n",
           served, n, took, hold_ms, maxpos);
    CHECK_EQ(served, n);
    /* Two at a time: n/2 turns of hold_ms each, so they really queued ... */
    CHECK(took >= (n / 2) * hold_ms * 0.9);
    /* ... past the connect timeout, and were told where they stood. */
    CHECK(took > 500);
    CHECK(maxpos >= 2);
    printf("admission queue: ok\n");
    return 0;
}

static void holder(void *arg)
{
    int *fds = arg;
    char c = 0;
    void *p;
    HIP_CHECK(hipMalloc(&p, 4096)); /* holds the only session */
    CHECK(write(fds[1], &c, 1) == 1);
    sleep_ms(1500);
    HIP_CHECK(hipFree(p));
}

static void retrier(void *arg)
{
    (void)arg;
    work(0, 0x5a);
}

static void impatient(void *arg)
{
    (void)arg;
    setenv("TF_ADMISSION_TIMEOUT_MS", "200", 1);
    int n = -1;
    HIP_EXPECT(hipGetDeviceCount(&n), hipErrorNotInitialized);
}

static int run_busy(void)
{
    int ready[2];
    char c, retry_log[64], imp_log[64];
    CHECK(pipe(ready) == 0);
    snprintf(retry_log, sizeof retry_log, "/tmp/hipwire-busy-%d-a.log", (int)getpid());
    snprintf(imp_log, sizeof imp_log, "/tmp/hipwire-busy-%d-b.log", (int)getpid());
    pid_t h = spawn(NULL, holder, ready);
    CHECK(read(ready[0], &c, 1) == 1);
    double t0 = now_ms();
    pid_t imp = spawn(imp_log, impatient, NULL);
    pid_t r = spawn(retry_log, retrier, NULL);
    CHECK_EQ(exit_code(imp), 0);
    int rc = exit_code(r);
    double took = now_ms() - t0;
    CHECK_EQ(exit_code(h), 0);
    int said_busy = file_has(retry_log, "busy") && file_has(retry_log, "retrying in");
    int imp_said = file_has(imp_log, "refused by hip-worker") && file_has(imp_log, "busy");
    unlink(retry_log);
    unlink(imp_log);
    printf("busy: the retrying client %s after %.0f ms; told busy: %s; the impatient one "
           "refused with a busy line: %s\n",
           rc == 0 ? "was served" : "FAILED", took, said_busy ? "yes" : "no",
           imp_said ? "yes" : "no");
    CHECK_EQ(rc, 0);
    CHECK(said_busy && imp_said);
    CHECK(took >= 900); /* it waited for the holder, at least one retry_after */
    printf("busy retry: ok\n");
    return 0;
}

static void gives_up(void *arg)
{
    (void)arg;
    setenv("TF_ADMISSION_TIMEOUT_MS", "300", 1);
    int n = -1;
    HIP_EXPECT(hipGetDeviceCount(&n), hipErrorNotInitialized);
}

/* --max-sessions 1 --admission-queue 1: a queued client that gives up
 * (TF_ADMISSION_TIMEOUT_MS) frees its place, so the next one queues instead
 * of being told busy, and is served once the holder leaves. */
static int run_leave(void)
{
    int ready[2];
    char c, q_log[64], r_log[64];
    CHECK(pipe(ready) == 0);
    snprintf(q_log, sizeof q_log, "/tmp/hipwire-leave-%d-q.log", (int)getpid());
    snprintf(r_log, sizeof r_log, "/tmp/hipwire-leave-%d-r.log", (int)getpid());
    setenv("TF_DEBUG", "1", 1);
    pid_t h = spawn(NULL, holder, ready);
    CHECK(read(ready[0], &c, 1) == 1);
    CHECK_EQ(exit_code(spawn(q_log, gives_up, NULL)), 0);
    usleep(500 * 1000); /* the worker notices the hang-up within 250 ms */
    pid_t r = spawn(r_log, retrier, NULL);
    int rc = exit_code(r);
    CHECK_EQ(exit_code(h), 0);
    int q_said = file_has(q_log, "still queued for a session after 300 ms");
    int r_queued = file_has(r_log, "queued for a session (all busy), position 1");
    int r_busy = file_has(r_log, "retry"); /* told busy: "retry after", "retrying in" */
    unlink(q_log);
    unlink(r_log);
    printf("leave: the impatient client gave up with the queue-timeout line: %s; the next one "
           "was queued (not told busy): %s, served: %s\n",
           q_said ? "yes" : "no", r_queued && !r_busy ? "yes" : "no", rc == 0 ? "yes" : "no");
    CHECK(q_said && r_queued && !r_busy);
    CHECK_EQ(rc, 0);
    printf("queue place freed: ok\n");
    return 0;
}

static void too_slow(void *arg)
{
    (void)arg;
    setenv("TF_DEVICE_START_TIMEOUT_MS", "500", 1);
    int n = -1;
    HIP_EXPECT(hipGetDeviceCount(&n), hipErrorNotInitialized);
}

static int run_slow(void)
{
    char log[64];
    snprintf(log, sizeof log, "/tmp/hipwire-slow-%d.log", (int)getpid());
    setenv("TF_CONNECT_TIMEOUT_MS", "300", 1);
    CHECK_EQ(exit_code(spawn(log, too_slow, NULL)), 0);
    int said = file_has(log, "did not start within 500 ms (TF_DEVICE_START_TIMEOUT_MS)");
    unlink(log);
    CHECK(said);
    double t0 = now_ms();
    work(0, 0x33);
    double took = now_ms() - t0;
    printf("slow start: first call after %.0f ms under TF_CONNECT_TIMEOUT_MS=300; with "
           "TF_DEVICE_START_TIMEOUT_MS=500 refused with a line saying why\n",
           took);
    CHECK(took >= 1000); /* the device start really was slower than the connect timeout */
    printf("slow device start: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "queue"))
        return run_queue(atoi(argv[2]), atoi(argv[3]));
    if (argc >= 2 && !strcmp(argv[1], "busy"))
        return run_busy();
    if (argc >= 2 && !strcmp(argv[1], "slow"))
        return run_slow();
    if (argc >= 2 && !strcmp(argv[1], "leave"))
        return run_leave();
    fprintf(stderr, "usage: test_admission queue N HOLD_MS | busy | slow | leave\n");
    return 2;
}
