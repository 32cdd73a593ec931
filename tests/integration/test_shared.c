/*
 * test_shared - hip-worker --isolation shared (docs/worker.md, "Isolation
 * modes"), run with --mem-limit=96M and HIPWIRE_WORKER_LOG set:
 *
 *  1. many clients at once are all served, by one device process: while
 *     they hold their sessions the worker has exactly one child;
 *  2. a session cannot use another's device pointer (the worker's checks),
 *     --mem-limit holds per session, and a session that ends frees its
 *     memory (the device process's RSS falls by what it had touched) while
 *     another session's data stays bit-exact;
 *  3. killing the device process gives its client an error (not a hang: its
 *     resume finds no session), and a new client is served by a fresh one.
 */
#include <ctype.h>
#include <dirent.h>
#include <hip/hip_runtime_api.h>
#include <signal.h>
#include <stdint.h>
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

/* The pid of the n-th (from 1) "device process P: devices open" line. */
static int device_pid(const char *log, int nth)
{
    double t0 = now_ms();
    for (;;) {
        char line[1024];
        int n = 0, pid = 0;
        FILE *f = fopen(log, "r");
        while (f && fgets(line, sizeof line, f)) {
            const char *p = strstr(line, "device process ");
            if (p && strstr(line, ": devices open") && ++n == nth)
                pid = atoi(p + strlen("device process "));
        }
        if (f)
            fclose(f);
        if (pid > 0)
            return pid;
        CHECK(now_ms() - t0 < 20000);
        usleep(20 * 1000);
    }
}

static int log_has(const char *log, const char *what)
{
    char line[1024];
    int found = 0;
    FILE *f = fopen(log, "r");
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return found;
}

static int log_count(const char *log, const char *what)
{
    char line[1024];
    int n = 0;
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return n;
}

/* Every session the worker opened has ended and freed what it held. */
static void wait_all_ended(const char *log)
{
    double t0 = now_ms();
    while (log_count(log, ": freed ") < log_count(log, ": client pid "))
        CHECK(now_ms() - t0 < 10000);
}

static int parent_of(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    int ppid = -1;
    if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
        return -1;
    return ppid;
}

static int children_of(int pid)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (isdigit((unsigned char)e->d_name[0]) && parent_of(atoi(e->d_name)) == pid)
            n++;
    if (d)
        closedir(d);
    return n;
}

static double rss_mib(int pid)
{
    char path[64], line[256];
    double kib = -1;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = strtod(line + 6, NULL);
    if (f)
        fclose(f);
    return kib / 1024.0;
}

static void put(int fd, uint64_t v)
{
    CHECK(write(fd, &v, sizeof v) == sizeof v);
}

static uint64_t get(int fd)
{
    uint64_t v = 0;
    CHECK(read(fd, &v, sizeof v) == sizeof v);
    return v;
}

/* ---- 1: many clients, one device process ---------------------------------- */

static void many_clients(int worker, int n)
{
    enum { SIZE = 1 << 20 };
    pid_t pids[64];
    int go[2];
    CHECK(n <= 64 && pipe(go) == 0);
    fflush(stdout);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        CHECK(pids[i] >= 0);
        if (pids[i] == 0) {
            char c;
            close(go[1]);
            CHECK(read(go[0], &c, 1) == 0); /* all at once */
            unsigned char *d, *h = malloc(SIZE);
            HIP_CHECK(hipMalloc((void **)&d, SIZE));
            HIP_CHECK(hipMemset(d, i + 1, SIZE));
            usleep(1200 * 1000); /* the parent counts processes meanwhile */
            HIP_CHECK(hipMemcpy(h, d, SIZE, hipMemcpyDeviceToHost));
            for (int k = 0; k < SIZE; k++)
                CHECK(h[k] == (unsigned char)(i + 1));
            HIP_CHECK(hipFree(d));
            free(h);
            exit(0);
        }
    }
    close(go[0]);
    close(go[1]);
    usleep(700 * 1000);
    int kids = children_of(worker);
    int served = 0;
    for (int i = 0; i < n; i++) {
        int st;
        CHECK(waitpid(pids[i], &st, 0) == pids[i]);
        served += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    printf("%d clients at once: %d served; the worker's processes while they held their "
           "sessions: %d\n",
           n, served, kids);
    CHECK_EQ(served, n);
    CHECK_EQ(kids, 1);
}

/* ---- 2: pointers, limits, freeing ------------------------------------------- */

enum { A_SIZE = 4 << 20, B_SIZE = 64 << 20 };

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 131u + (i >> 12) * 7u + 1u);
}

static void client_a(int to_parent, int from_parent)
{
    unsigned char *d, *h = malloc(A_SIZE);
    CHECK(h != NULL);
    for (size_t i = 0; i < A_SIZE; i++)
        h[i] = pattern(i);
    HIP_CHECK(hipMalloc((void **)&d, A_SIZE));
    HIP_CHECK(hipMemcpy(d, h, A_SIZE, hipMemcpyHostToDevice));
    put(to_parent, (uint64_t)(uintptr_t)d);
    CHECK(get(from_parent) == 1); /* B has come and gone */
    memset(h, 0, A_SIZE);
    HIP_CHECK(hipMemcpy(h, d, A_SIZE, hipMemcpyDeviceToHost));
    for (size_t i = 0; i < A_SIZE; i++)
        CHECK(h[i] == pattern(i));
    /* --mem-limit is per session: B's 64M did not count against this one */
    void *more;
    HIP_CHECK(hipMalloc(&more, 80 << 20));
    HIP_CHECK(hipFree(more));
    HIP_CHECK(hipFree(d));
    free(h);
    exit(0);
}

static void client_b(uint64_t a_ptr, int to_parent, int from_parent)
{
    void *theirs = (void *)(uintptr_t)a_ptr, *mine, *over;
    unsigned char buf[4096];
    /* Another session's device pointer is no pointer of this session's. */
    hipError_t e1 = hipMemset(theirs, 0xee, 4096);
    hipError_t e2 = hipMemcpy(buf, theirs, sizeof buf, hipMemcpyDeviceToHost);
    hipError_t e3 = hipDeviceSynchronize();
    printf("B on A's pointer: hipMemset %d, hipMemcpy %d, then %d\n", (int)e1, (int)e2, (int)e3);
    fflush(stdout);
    CHECK(e1 != hipSuccess && e2 != hipSuccess);
    HIP_CHECK(hipMalloc(&mine, B_SIZE));
    HIP_CHECK(hipMemset(mine, 0x5a, B_SIZE)); /* touched: the device process's RSS */
    HIP_CHECK(hipDeviceSynchronize());
    /* --mem-limit=96M: 64M more would be 128M */
    hipError_t e4 = hipMalloc(&over, B_SIZE);
    printf("B past --mem-limit: hipMalloc %d\n", (int)e4);
    CHECK(e4 == hipErrorOutOfMemory);
    (void)hipGetLastError();
    put(to_parent, 1);
    CHECK(get(from_parent) == 1);
    exit(0); /* the session ends with its memory still allocated: the worker frees it */
}

static void isolation_and_freeing(int dev)
{
    int a_out[2], a_in[2], b_out[2], b_in[2];
    CHECK(pipe(a_out) == 0 && pipe(a_in) == 0 && pipe(b_out) == 0 && pipe(b_in) == 0);
    fflush(stdout);
    pid_t a = fork();
    CHECK(a >= 0);
    if (a == 0)
        client_a(a_out[1], a_in[0]);
    uint64_t a_ptr = get(a_out[0]);
    double before = rss_mib(dev);
    pid_t b = fork();
    CHECK(b >= 0);
    if (b == 0)
        client_b(a_ptr, b_out[1], b_in[0]);
    CHECK(get(b_out[0]) == 1);
    double during = rss_mib(dev);
    put(b_in[1], 1);
    int st;
    CHECK(waitpid(b, &st, 0) == b && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    double after = during, t0 = now_ms();
    while ((after = rss_mib(dev)) > during - 48 && now_ms() - t0 < 5000)
        usleep(20 * 1000);
    printf("device process RSS: %.1f MiB before B, %.1f with B's 64M touched, %.1f after B "
           "ended\n",
           before, during, after);
    CHECK(during - before >= 56);
    CHECK(after <= during - 48);
    put(a_in[1], 1);
    CHECK(waitpid(a, &st, 0) == a && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("A's data bit-exact after B ended; A could then take 80M of its own\n");
}

/* ---- 3: the device process dies ------------------------------------------------ */

static void device_dies(const char *log, int dev)
{
    int out[2], in[2];
    CHECK(pipe(out) == 0 && pipe(in) == 0);
    fflush(stdout);
    pid_t a = fork();
    CHECK(a >= 0);
    if (a == 0) {
        /* A resume would find no session: give up soon. */
        setenv("TF_WORKER_RESUME_TIMEOUT_MS", "4000", 1);
        void *d;
        unsigned char h[64];
        HIP_CHECK(hipMalloc(&d, 4096));
        put(out[1], 1);
        CHECK(get(in[0]) == 1);
        double t0 = now_ms();
        hipError_t e = hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
        double ms = now_ms() - t0;
        printf("client of the killed device process: hipMemcpy -> %d (%s) after %.0f ms\n", (int)e,
               hipGetErrorName(e), ms);
        fflush(stdout);
        CHECK(e != hipSuccess);
        CHECK(ms < 30000);
        _exit(0); /* its session is gone: nothing to say GOODBYE to */
    }
    CHECK(get(out[0]) == 1);
    CHECK(kill(dev, SIGKILL) == 0);
    put(in[1], 1);
    int st;
    CHECK(waitpid(a, &st, 0) == a && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    int fresh = device_pid(log, 2);
    printf("device process %d killed; a fresh one: %d\n", dev, fresh);
    CHECK(fresh != dev);
    double t0 = now_ms();
    while (!log_has(log, "died from signal 9 with") && now_ms() - t0 < 5000)
        usleep(20 * 1000);
    CHECK(log_has(log, "died from signal 9 with"));
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        void *d;
        unsigned char h[4096];
        HIP_CHECK(hipMalloc(&d, sizeof h));
        HIP_CHECK(hipMemset(d, 3, sizeof h));
        HIP_CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
        CHECK(h[0] == 3 && h[sizeof h - 1] == 3);
        HIP_CHECK(hipFree(d));
        exit(0);
    }
    CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("a new client served by the fresh device process\n");
}

int main(void)
{
    const char *log = getenv("HIPWIRE_WORKER_LOG");
    const char *wp = getenv("HIPWIRE_WORKER_PID");
    CHECK(log != NULL && wp != NULL);
    int worker = atoi(wp);
    int dev = device_pid(log, 1);
    CHECK(log_has(log, "isolation shared"));
    many_clients(worker, 24);
    wait_all_ended(log);
    CHECK_EQ(device_pid(log, 1), dev);
    isolation_and_freeing(dev);
    wait_all_ended(log);
    device_dies(log, dev);
    printf("shared isolation: ok\n");
    return 0;
}
