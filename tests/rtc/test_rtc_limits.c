/*
 * test_rtc_limits - a hostile program cannot hang the worker or fill its
 * disk.   test_rtc_limits time|output DIR
 *  - time (worker: --rtc-timeout=2 --rtc-dir=DIR): a source whose
 *    preprocessing never ends is stopped at the limit, with
 *    HIPRTC_ERROR_COMPILATION and a log that says so, in bounded time;
 *  - output (worker: --rtc-max-output=1M --rtc-dir=DIR): a program whose
 *    code object would be 8 MiB is stopped at the file limit, likewise;
 *  - either way DIR is empty afterwards (every private directory was
 *    removed) and the session still works.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
static const char *huge_output =
    "__device__ char big[8 << 20] = { 1 };\n"
    "extern \"C\" __global__ void touch(int i) { big[i] = 2; }\n";

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
    CHECK(dir_entries(argv[2]) == 0);
    printf("compile directory %s: empty afterwards\n", argv[2]);
    HIP_CHECK(hipDeviceSynchronize());
    printf("rtc limits (%s): ok\n", argv[1]);
    return 0;
}
