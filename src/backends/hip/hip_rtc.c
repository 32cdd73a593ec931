/*
 * hip_rtc.c - run-time compiles on an AMD GPU worker: the real hiprtc, which
 * compiles for the current device (docs/hiprtc.md).
 *
 * hiprtc runs inside the session process, as it does in any HIP program, so
 * unlike the hipcc path (src/backends/rtc) its time and files are not
 * limited by the worker; the core's option allowlist still applies. In the
 * relay, the runtime is hipwire's proxy and the compile goes on to the next
 * worker, whose limits apply.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hip_rtc.h" /* first: it selects the AMD platform */
#include "hip_rtc_soname.h"

#include <hip/hiprtc.h>

#define HW_RTC_FUNCS(X)        \
    X(hiprtcCreateProgram)     \
    X(hiprtcDestroyProgram)    \
    X(hiprtcAddNameExpression) \
    X(hiprtcCompileProgram)    \
    X(hiprtcGetProgramLogSize) \
    X(hiprtcGetProgramLog)     \
    X(hiprtcGetCodeSize)       \
    X(hiprtcGetCode)           \
    X(hiprtcGetLoweredName)

static struct {
#define HW_RTC_PTR_(name) __typeof__(&name) name;
    HW_RTC_FUNCS(HW_RTC_PTR_)
#undef HW_RTC_PTR_
    int state; /* 0: not tried, 1: loaded, -1: none */
} rtc;
static pthread_mutex_t rtc_lock = PTHREAD_MUTEX_INITIALIZER;

static int resolve(void *dl)
{
    int ok = 1;
#define HW_RTC_SYM_(name)                               \
    *(void **)&rtc.name = dl ? dlsym(dl, #name) : NULL; \
    ok = ok && rtc.name;
    HW_RTC_FUNCS(HW_RTC_SYM_)
#undef HW_RTC_SYM_
    return ok;
}

/* hiprtc lives in libamdhip64 up to ROCm 6.x (and in hipwire's proxy), in
 * libhiprtc.so.<major> from 5.3 on, and only there from ROCm 7.0. */
static int load(struct hw_hip_api *api)
{
    pthread_mutex_lock(&rtc_lock);
    if (rtc.state == 0) {
        char names[HW_HIPRTC_NAMES][HW_HIPRTC_NAME_SZ];
        int version = 0;
        if (api->hipRuntimeGetVersion(&version) != hipSuccess)
            version = 0;
        size_t n = hw_hiprtc_sonames(version, HIP_VERSION_MAJOR, names);
        rtc.state = resolve(api->dl) ? 1 : -1;
        for (size_t i = 0; i < n && rtc.state != 1; i++)
            if (resolve(dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
                rtc.state = 1;
    }
    int ok = rtc.state == 1;
    pthread_mutex_unlock(&rtc_lock);
    return ok;
}

int hw_hip_rtc_compile(struct hw_hip_api *api, int dev, const struct hw_rtc_input *in,
                       struct hw_rtc_output *out)
{
    hiprtcProgram prog = NULL;
    char **lowered = hw_calloc(in->name_count ? in->name_count : 1, sizeof *lowered);
    if (!lowered)
        return HW_ENOMEM;
    memset(out, 0, sizeof *out);
    out->lowered = lowered;
    if (!load(api)) {
        out->result = HW_RTC_INTERNAL_ERROR;
        out->log = hw_strdup("hipwire: the HIP runtime on this worker has no hiprtc (neither "
                             "libamdhip64 nor libhiprtc.so exports it)\n");
        out->log_size = out->log ? strlen(out->log) : 0;
        return HW_OK;
    }
    /* hiprtc compiles for the calling thread's current device. */
    api->hipSetDevice(dev);
    hiprtcResult r =
        rtc.hiprtcCreateProgram(&prog, in->source, in->name, (int)in->header_count,
                                (const char **)in->headers, (const char **)in->header_names);
    for (uint32_t i = 0; r == HIPRTC_SUCCESS && i < in->name_count; i++)
        r = rtc.hiprtcAddNameExpression(prog, in->name_exprs[i]);
    if (r == HIPRTC_SUCCESS)
        r = rtc.hiprtcCompileProgram(prog, (int)in->option_count, (const char **)in->options);
    out->result = (int)r;
    size_t n = 0;
    if (prog && rtc.hiprtcGetProgramLogSize(prog, &n) == HIPRTC_SUCCESS && n > 1 &&
        n <= HIPR_CAP_RTC_LOG && (out->log = hw_malloc(n)) &&
        rtc.hiprtcGetProgramLog(prog, out->log) == HIPRTC_SUCCESS)
        out->log_size = strnlen(out->log, n);
    n = 0;
    if (r == HIPRTC_SUCCESS && rtc.hiprtcGetCodeSize(prog, &n) == HIPRTC_SUCCESS && n > 0) {
        if (n > in->max_output || n > HIPR_CAP_RTC_CODE || !(out->code = hw_malloc(n)) ||
            rtc.hiprtcGetCode(prog, (char *)out->code) != HIPRTC_SUCCESS) {
            free(out->code);
            out->code = NULL;
            out->result = HW_RTC_COMPILATION;
        } else {
            out->code_size = n;
        }
    }
    for (uint32_t i = 0; r == HIPRTC_SUCCESS && i < in->name_count; i++) {
        const char *name = NULL;
        if (rtc.hiprtcGetLoweredName(prog, in->name_exprs[i], &name) == HIPRTC_SUCCESS && name)
            lowered[i] = hw_strdup(name);
    }
    if (prog)
        rtc.hiprtcDestroyProgram(&prog);
    return HW_OK;
}
