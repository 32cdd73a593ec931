/*
 * test_rtc_limits - a hostile program cannot hang the worker or fill its
 * disk.   test_rtc_limits time|output DIR
 *  - time (worker: --rtc-timeout=2 --rtc-dir=DIR): a source whose
 *    preprocessing never ends is stopped at the limit, with
 *    HIPRTC_ERROR_COMPILATION and a log that says so, in bounded time;
 *  - output (worker: --rtc-max-output=1M --rtc-dir=DIR): a program whose
 *    code object would be 8 MiB is stopped at the file limit, likewise;
 *  - memory (worker: --rtc-max-memory=256M): a source that makes the
 *    compiler allocate over 1 GiB ends with HIPRTC_ERROR_COMPILATION and
 *    a log naming the limit; a small program still compiles;
 *  - concurrent (worker: --rtc-max-concurrent=1 --rtc-queue-timeout=1
 *    --rtc-timeout=6): while another client process compiles the endless
 *    source, a second one waits its second and is refused with the limit
 *    named; once the first is done a third compile succeeds;
 *  - queue (worker: --rtc-max-concurrent=1 --rtc-timeout=4): the second
 *    compile waits for the first to end, then succeeds;
 *  - killed (worker: --rtc-max-concurrent=1 --rtc-queue-timeout=20
 *    --rtc-timeout=60): the session process holding the only slot is
 *    killed (SIGKILL); a new compile gets the slot at once, not after 20 s;
 *  - every mode but killed: DIR is empty afterwards (every private
 *    directory was removed); every mode: the session still works.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include "testutil.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static hiprtcResult compile(const char *src, char **log)
{
    hiprtcProgram p;
    size_t n = 0;
    CHECK(hiprtcCreateProgram(&p, src, "limits.hip", 0, NULL, NULL) == HIPRTC_SUCCESS);
    hiprtcResult r = hiprtcCompileProgram(p, 0, NULL);
    CHECK(hiprtcGetProgramLogSize(p, &n) == HIPRTC_SUCCESS);
    *log = malloc(n);
    CHECK(*log && hiprtcGetProgramLog(p, *log) == HIPRTC_SUCCESS);
    CHECK(hiprtcDestroyProgram(&p) == HIPRTC_SUCCESS);
    return r;
}

/* 2^32 copies of "1+": the preprocessor alone would run for hours. */
static const char *endless =
    "#define A0(x) x x\n#define A1(x) A0(A0(x))\n#define A2(x) A1(A1(x))\n"
    "#define A3(x) A2(A2(x))\n#define A4(x) A3(A3(x))\n#define A5(x) A4(A4(x))\n"
    "__device__ int v = A5(1+) 0;\n";

/* 8 MiB of initialised device data: the code object would be over 8 MiB. */
static const char *huge_output = "__device__ char big[8 << 20] = { 1 };\n"
                                 "extern \"C\" __global__ void touch(int i) { big[i] = 2; }\n";

/* 4M ints from doubling macros: clang takes 1.1 GiB for it, g++ 2.2 GiB. */
static const char *memory_hungry =
    "#define D0(x) x\n#define D1(x) D0(x),D0(x)\n#define D2(x) D1(x),D1(x)\n"
    "#define D3(x) D2(x),D2(x)\n#define D4(x) D3(x),D3(x)\n#define D5(x) D4(x),D4(x)\n"
    "#define D6(x) D5(x),D5(x)\n#define D7(x) D6(x),D6(x)\n#define D8(x) D7(x),D7(x)\n"
    "#define D9(x) D8(x),D8(x)\n#define D10(x) D9(x),D9(x)\n#define D11(x) D10(x),D10(x)\n"
    "#define D12(x) D11(x),D11(x)\n#define D13(x) D12(x),D12(x)\n"
    "#define D14(x) D13(x),D13(x)\n#define D15(x) D14(x),D14(x)\n"
    "#define D16(x) D15(x),D15(x)\n#define D17(x) D16(x),D16(x)\n"
    "#define D18(x) D17(x),D17(x)\n#define D19(x) D18(x),D18(x)\n"
    "#define D20(x) D19(x),D19(x)\n#define D21(x) D20(x),D20(x)\n"
    "#define D22(x) D21(x),D21(x)\n"
    "__device__ int big[] = { D22(1) };\n";

static const char *small = "extern \"C\" __global__ void inc(int *p) { p[threadIdx.x] += 1; }\n";

static void expect_log(const char *log, const char *what, const char *why)
{
    if (!strstr(log, what)) {
        fprintf(stderr, "log: %s\n", log);
        CHECK(!why);
    }
}

/* A client process of its own (its own connection, so its own session)
 * compiling the endless source; it writes a byte to the pipe first. */
static pid_t endless_client(const int ready[2])
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char *log;
        CHECK(write(ready[1], "x", 1) == 1);
        hiprtcResult r = compile(endless, &log);
        _exit(r == HIPRTC_ERROR_COMPILATION && strstr(log, "--rtc-timeout") ? 0 : 1);
    }
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    /* Its request reaches the worker and takes the slot meanwhile. */
    struct timespec ts = { 2, 0 };
    nanosleep(&ts, NULL);
    return pid;
}

/* The worker's only child process: the one session there is. */
static pid_t only_session(void)
{
    const char *w = getenv("HIPWIRE_WORKER_PID");
    CHECK(w != NULL);
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/task/%s/children", w, w);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int a = 0, b = 0;
    int n = fscanf(f, "%d %d", &a, &b);
    fclose(f);
    CHECK(n == 1 && a > 0);
    return a;
}

static int concurrent_modes(const char *mode)
{
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    char *log;
    int st;
    if (strcmp(mode, "queue") == 0) {
        pid_t first = endless_client(pfd);
        double t0 = now_s();
        hiprtcResult r = compile(small, &log);
        double took = now_s() - t0;
        if (r != HIPRTC_SUCCESS)
            fprintf(stderr, "log: %s\n", log);
        CHECK(r == HIPRTC_SUCCESS);
        free(log);
        /* The first holds the slot until its 4 s limit, ~2 s after this began. */
        printf("a compile queued behind a running one: succeeded after %.1f s\n", took);
        CHECK(took >= 1.0);
        CHECK(waitpid(first, &st, 0) == first && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    } else if (strcmp(mode, "concurrent") == 0) {
        pid_t first = endless_client(pfd);
        pid_t second = fork();
        CHECK(second >= 0);
        if (second == 0) {
            double t0 = now_s();
            hiprtcResult r = compile(small, &log);
            double took = now_s() - t0;
            printf("second client: result %d after %.1f s\n", (int)r, took);
            CHECK(r == HIPRTC_ERROR_COMPILATION);
            expect_log(log, "--rtc-max-concurrent", "the log does not name the concurrency limit");
            expect_log(log, "--rtc-queue-timeout", "the log does not name the queue timeout");
            CHECK(took >= 0.9); /* it waited for a slot first */
            _exit(0);
        }
        CHECK(waitpid(second, &st, 0) == second && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        printf("a second compile while one runs: refused, log names --rtc-max-concurrent\n");
        CHECK(waitpid(first, &st, 0) == first && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    } else {
        CHECK(strcmp(mode, "killed") == 0);
        pid_t first = endless_client(pfd);
        pid_t session = only_session();
        printf("killing session process %d while it holds the only compile slot\n", (int)session);
        CHECK(kill(session, SIGKILL) == 0);
        CHECK(kill(first, SIGKILL) == 0);
        CHECK(waitpid(first, &st, 0) == first);
    }
    /* This process's own connection: a third compile gets the slot. */
    double t0 = now_s();
    hiprtcResult r = compile(small, &log);
    double took = now_s() - t0;
    if (r != HIPRTC_SUCCESS)
        fprintf(stderr, "log: %s\n", log);
    CHECK(r == HIPRTC_SUCCESS);
    free(log);
    printf("then a compile succeeds after %.1f s\n", took);
    CHECK(took < 15.0);
    close(pfd[0]);
    close(pfd[1]);
    return 0;
}

static int dir_entries(const char *path)
{
    DIR *d = opendir(path);
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++, fprintf(stderr, "left in the compile directory: %s\n", e->d_name);
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    char *log;
    if (strcmp(argv[1], "time") == 0) {
        double t0 = now_s();
        CHECK(compile(endless, &log) == HIPRTC_ERROR_COMPILATION);
        double took = now_s() - t0;
        if (!strstr(log, "--rtc-timeout")) {
            fprintf(stderr, "log: %s\n", log);
            CHECK(!"the log does not name the time limit");
        }
        free(log);
        printf("endless source: stopped after %.1f s (limit 2 s), HIPRTC_ERROR_COMPILATION\n",
               took);
        CHECK(took < 15.0);
    } else if (strcmp(argv[1], "memory") == 0) {
        double t0 = now_s();
        CHECK(compile(memory_hungry, &log) == HIPRTC_ERROR_COMPILATION);
        expect_log(log, "--rtc-max-memory", "the log does not name the memory limit");
        free(log);
        printf("memory-hungry source: refused after %.1f s at the 256M limit, "
               "HIPRTC_ERROR_COMPILATION\n",
               now_s() - t0);
        hiprtcResult r = compile(small, &log);
        if (r != HIPRTC_SUCCESS)
            fprintf(stderr, "log: %s\n", log);
        CHECK(r == HIPRTC_SUCCESS);
        free(log);
        printf("a small program then compiles under the same limit\n");
    } else if (strcmp(argv[1], "concurrent") == 0 || strcmp(argv[1], "killed") == 0 ||
               strcmp(argv[1], "queue") == 0) {
        concurrent_modes(argv[1]);
    } else {
        CHECK(strcmp(argv[1], "output") == 0);
        CHECK(compile(huge_output, &log) == HIPRTC_ERROR_COMPILATION);
        if (!strstr(log, "--rtc-max-output")) {
            fprintf(stderr, "log: %s\n", log);
            CHECK(!"the log does not name the output limit");
        }
        free(log);
        printf("8 MiB code object: stopped at the 1 MiB file limit, HIPRTC_ERROR_COMPILATION\n");
    }
    if (strcmp(argv[1], "killed") == 0) {
        /* A killed session cannot remove its compile directory (docs/hiprtc.md);
         * clear it so the next run starts empty. */
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'/hipwire-rtc-*", argv[2]);
        CHECK(system(cmd) == 0);
    } else {
        CHECK(dir_entries(argv[2]) == 0);
        printf("compile directory %s: empty afterwards\n", argv[2]);
    }
    HIP_CHECK(hipDeviceSynchronize());
    printf("rtc limits (%s): ok\n", argv[1]);
    return 0;
}
