/* rtc_cpu_util.h - compile HIP source with hiprtc and load it, for the CPU
 * device tests (test_rtc_cpu.c, test_rtc_cpu_fault.c). */
#ifndef RTC_CPU_UTIL_H
#define RTC_CPU_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include "testutil.h"

#define RTC_CHECK(call, expected)                                                              \
    do {                                                                                       \
        hiprtcResult r_ = (call);                                                              \
        if (r_ != (expected)) {                                                                \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call, \
                    hiprtcGetErrorString(r_), #expected);                                      \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#define D3(x, y, z) ((dim3){ (x), (y), (z) })

static inline char *rtc_log(hiprtcProgram p)
{
    size_t n = 0;
    RTC_CHECK(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
    char *log = malloc(n ? n : 1);
    CHECK(log != NULL);
    RTC_CHECK(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
    return log;
}

/* Compiles src (which must compile) and loads it. */
static inline hipModule_t rtc_load(const char *src, const char *name)
{
    hiprtcProgram p;
    RTC_CHECK(hiprtcCreateProgram(&p, src, name, 0, NULL, NULL), HIPRTC_SUCCESS);
    hiprtcResult r = hiprtcCompileProgram(p, 0, NULL);
    if (r != HIPRTC_SUCCESS) {
        fprintf(stderr, "compile of %s failed (%s):\n%s\n", name, hiprtcGetErrorString(r),
                rtc_log(p));
        exit(1);
    }
    if (getenv("RTC_CPU_SHOW_LOG")) {
        char *log = rtc_log(p);
        fprintf(stderr, "compile log of %s:\n%s\n", name, log);
        free(log);
    }
    size_t n = 0;
    RTC_CHECK(hiprtcGetCodeSize(p, &n), HIPRTC_SUCCESS);
    char *code = malloc(n);
    CHECK(code != NULL);
    RTC_CHECK(hiprtcGetCode(p, code), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
    hipModule_t m;
    HIP_CHECK(hipModuleLoadData(&m, code));
    free(code);
    return m;
}

static inline hipError_t rtc_launch(hipModule_t m, const char *kernel, dim3 grid, dim3 block,
                                    unsigned shared, void **args)
{
    hipFunction_t f;
    HIP_CHECK(hipModuleGetFunction(&f, m, kernel));
    return hipModuleLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, NULL,
                                 args, NULL);
}

#endif
