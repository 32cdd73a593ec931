/*
 * cuda_rtc.c - run-time compiles on an NVIDIA GPU worker: HIP device source
 * through NVRTC to PTX, which the backend's module load takes
 * (docs/hiprtc.md, docs/backend-cuda.md).
 *
 * NVRTC runs inside the session process, like hiprtc on the hip backend, so
 * the worker's time and file limits of the hipcc path do not apply; the
 * core's option allowlist and compile slots do. HIP's options are mapped to
 * NVRTC's here; the ones that mean nothing on NVIDIA are dropped, and the
 * ones that cannot be honoured (an AMD target) are refused in the log.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rtc.h"
#include "hw_alloc.h"
#include "nvrtc_api.h"

static struct hwnv_api nv;
static int nv_state; /* 0: not tried, 1: loaded, -1: none */
static pthread_mutex_t nv_lock = PTHREAD_MUTEX_INITIALIZER;

static int resolve(void *dl)
{
    if (!dl)
        return 0;
    int ok = 1;
#define HWNV_SYM_(name, args)              \
    *(void **)&nv.name = dlsym(dl, #name); \
    ok = ok && nv.name;
    HWNV_FUNCS(HWNV_SYM_)
#undef HWNV_SYM_
    if (!ok)
        dlclose(dl);
    return ok;
}

static int load(void)
{
    static const char *const names[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so" };
    pthread_mutex_lock(&nv_lock);
    if (nv_state == 0) {
        nv_state = -1;
        for (size_t i = 0; i < sizeof names / sizeof names[0] && nv_state < 0; i++)
            if (resolve(dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
                nv_state = 1;
    }
    int ok = nv_state == 1;
    pthread_mutex_unlock(&nv_lock);
    return ok;
}

/* HIP options that mean nothing to NVRTC's code generation for NVIDIA. */
static const char *const dropped_options[] = {
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "-Os",
    "-Oz",
    "-g0",
    "-pedantic",
    "-fno-fast-math",
    "-fno-gpu-rdc",
    "-funsafe-math-optimizations",
    "-fno-unsafe-math-optimizations",
    "-ffinite-math-only",
    "-fno-finite-math-only",
    "-fno-exceptions",
    "-fno-rtti",
    "-mcumode",
    "-mno-cumode",
    "-mno-wavefrontsize64",
    "-munsafe-fp-atomics",
    "-mno-unsafe-fp-atomics",
};

/* HIP options with an NVRTC spelling. */
static const char *const mapped_options[][2] = {
    { "-ffast-math", "--use_fast_math" },
    { "-w", "-w" },
    { "-g", "--generate-line-info" },
    { "-fgpu-flush-denormals-to-zero", "--ftz=true" },
    { "-fno-gpu-flush-denormals-to-zero", "--ftz=false" },
    { "-fhip-fp32-correctly-rounded-divide-sqrt", "--prec-div=true" },
    { "-fno-hip-fp32-correctly-rounded-divide-sqrt", "--prec-div=false" },
    { "-ffp-contract=fast", "--fmad=true" },
    { "-ffp-contract=on", "--fmad=true" },
    { "-ffp-contract=fast-honor-pragmas", "--fmad=true" },
    { "-ffp-contract=off", "--fmad=false" },
};

/* An NVIDIA target a program may name: sm_XY[a|f] or compute_XY[a|f]. */
static int nvidia_target(const char *v)
{
    const char *d = !strncmp(v, "sm_", 3) ? v + 3 : !strncmp(v, "compute_", 8) ? v + 8 : NULL;
    if (!d || d[0] < '1' || d[0] > '9')
        return 0;
    size_t n = strspn(d, "0123456789");
    return n >= 2 && n <= 3 && (d[n] == '\0' || ((d[n] == 'a' || d[n] == 'f') && !d[n + 1]));
}

struct nv_opts {
    const char **argv; /* points into the input, the static tables and own[] */
    int argc;
    char *own[2];
    int has_arch;
    int has_std;
};

/* Translates HIP's options to NVRTC's into o; -1 with why filled when one
 * cannot be honoured. */
static int map_options(const struct hw_rtc_input *in, int major, int minor, struct nv_opts *o,
                       char *why, size_t why_len)
{
    o->argv = hw_calloc(in->option_count + 4, sizeof *o->argv);
    if (!o->argv)
        return -2;
    for (uint32_t i = 0; i < in->option_count; i++) {
        const char *opt = in->options[i];
        const char *v = NULL;
        int done = 0;
        for (size_t k = 0; !done && k < sizeof dropped_options / sizeof dropped_options[0]; k++)
            done = !strcmp(opt, dropped_options[k]);
        for (size_t k = 0; !done && k < sizeof mapped_options / sizeof mapped_options[0]; k++)
            if (!strcmp(opt, mapped_options[k][0])) {
                o->argv[o->argc++] = mapped_options[k][1];
                done = 1;
            }
        if (done)
            continue;
        if (!strncmp(opt, "-D", 2) || !strncmp(opt, "-U", 2)) {
            o->argv[o->argc++] = opt;
        } else if (!strncmp(opt, "-std=", 5) || !strncmp(opt, "--std=", 6)) {
            o->argv[o->argc++] = opt[1] == '-' ? opt + 1 : opt;
            o->has_std = 1;
        } else if (!strncmp(opt, "-I", 2)) {
            continue; /* the program's headers are found through it below */
        } else if (!strncmp(opt, "-W", 2)) {
            continue; /* clang's warning names are not NVRTC's */
        } else if ((v = !strncmp(opt, "--offload-arch=", 15)       ? opt + 15
                        : !strncmp(opt, "--gpu-architecture=", 19) ? opt + 19
                                                                   : NULL)) {
            if (!nvidia_target(v)) {
                snprintf(why, why_len,
                         "hipwire: option '%.100s' names a target this NVIDIA device "
                         "(sm_%d%d) cannot run; name sm_XY or compute_XY, or none\n",
                         opt, major, minor);
                return -1;
            }
            if (!o->has_arch) {
                o->own[0] = hw_malloc(strlen(v) + 24);
                if (!o->own[0])
                    return -2;
                sprintf(o->own[0], "--gpu-architecture=%s", v);
                o->argv[o->argc++] = o->own[0];
                o->has_arch = 1;
            }
        } else {
            snprintf(why, why_len,
                     "hipwire: option '%.100s' has no meaning for NVRTC on the cuda backend "
                     "(docs/hiprtc.md)\n",
                     opt);
            return -1;
        }
    }
    if (!o->has_arch) {
        o->own[1] = hw_malloc(40);
        if (!o->own[1])
            return -2;
        snprintf(o->own[1], 40, "--gpu-architecture=compute_%d%d", major, minor);
        o->argv[o->argc++] = o->own[1];
    }
    if (!o->has_std)
        o->argv[o->argc++] = "-std=c++17";
    /* hiprtc gives every program the HIP runtime header without asking. */
    o->argv[o->argc++] = "--pre-include=hip/hip_runtime.h";
    return 0;
}

/* The program's headers, each also under the names its -I directories make
 * of it (-Ifoo: "foo/x.h" is also "x.h"), then the prelude. */
static int gather_headers(const struct hw_rtc_input *in, const char ***texts, const char ***names,
                          int *count)
{
    uint32_t ndirs = 0;
    for (uint32_t i = 0; i < in->option_count; i++)
        ndirs += !strncmp(in->options[i], "-I", 2);
    size_t cap = (size_t)in->header_count * (1 + ndirs) + (size_t)hw_cuda_rtc_prelude_count;
    const char **t = hw_calloc(cap ? cap : 1, sizeof *t);
    const char **n = hw_calloc(cap ? cap : 1, sizeof *n);
    if (!t || !n) {
        free(t);
        free(n);
        return -1;
    }
    int c = 0;
    for (uint32_t h = 0; h < in->header_count; h++) {
        t[c] = in->headers[h];
        n[c++] = in->header_names[h];
        for (uint32_t i = 0; i < in->option_count; i++) {
            const char *dir = in->options[i] + 2;
            size_t len = strlen(dir);
            if (strncmp(in->options[i], "-I", 2) || strncmp(in->header_names[h], dir, len) ||
                in->header_names[h][len] != '/')
                continue;
            t[c] = in->headers[h];
            n[c++] = in->header_names[h] + len + 1;
        }
    }
    for (int p = 0; p < hw_cuda_rtc_prelude_count; p++) {
        t[c] = hw_cuda_rtc_prelude_texts[p];
        n[c++] = hw_cuda_rtc_prelude_names[p];
    }
    *texts = t;
    *names = n;
    *count = c;
    return 0;
}

static int hip_result(int r)
{
    switch (r) {
    case HWNV_SUCCESS: return HW_RTC_SUCCESS;
    case HWNV_ERROR_OUT_OF_MEMORY: return HW_RTC_OUT_OF_MEMORY;
    case HWNV_ERROR_INVALID_INPUT: return HW_RTC_INVALID_INPUT;
    case HWNV_ERROR_INVALID_OPTION: return HW_RTC_INVALID_OPTION;
    case HWNV_ERROR_COMPILATION: return HW_RTC_COMPILATION;
    default: return HW_RTC_INTERNAL_ERROR;
    }
}

static void set_log(struct hw_rtc_output *out, int result, const char *text)
{
    out->result = result;
    out->log = hw_strdup(text);
    out->log_size = out->log ? strlen(out->log) : 0;
}

int hw_cuda_rtc_compile(int major, int minor, const struct hw_rtc_input *in,
                        struct hw_rtc_output *out)
{
    int rc = HW_ENOMEM;
    hwnv_program prog = NULL;
    struct nv_opts o = { 0 };
    const char **texts = NULL, **names = NULL;
    int nheaders = 0;
    char why[256];
    char **lowered = hw_calloc(in->name_count ? in->name_count : 1, sizeof *lowered);
    if (!lowered)
        return HW_ENOMEM;
    memset(out, 0, sizeof *out);
    out->lowered = lowered;
    if (!load()) {
        set_log(out, HW_RTC_INTERNAL_ERROR,
                "hipwire: this worker has no NVRTC (libnvrtc.so.13, .so.12 or .so), so the "
                "cuda backend cannot compile HIP source\n");
        rc = HW_OK;
        goto cleanup;
    }
    int m = map_options(in, major, minor, &o, why, sizeof why);
    if (m == -1) {
        set_log(out, HW_RTC_INVALID_OPTION, why);
        rc = HW_OK;
        goto cleanup;
    }
    if (m < 0 || gather_headers(in, &texts, &names, &nheaders) < 0)
        goto cleanup;
    int r = nv.nvrtcCreateProgram(&prog, in->source, in->name, nheaders, texts, names);
    for (uint32_t i = 0; r == HWNV_SUCCESS && i < in->name_count; i++)
        r = nv.nvrtcAddNameExpression(prog, in->name_exprs[i]);
    if (r == HWNV_SUCCESS)
        r = nv.nvrtcCompileProgram(prog, o.argc, o.argv);
    out->result = hip_result(r);
    size_t n = 0;
    if (prog && nv.nvrtcGetProgramLogSize(prog, &n) == HWNV_SUCCESS && n > 1 &&
        n <= HIPR_CAP_RTC_LOG && (out->log = hw_malloc(n)) &&
        nv.nvrtcGetProgramLog(prog, out->log) == HWNV_SUCCESS)
        out->log_size = strnlen(out->log, n);
    n = 0;
    /* The PTX keeps its NUL: the driver's module load wants a C string. */
    if (r == HWNV_SUCCESS && nv.nvrtcGetPTXSize(prog, &n) == HWNV_SUCCESS && n > 0) {
        if (n > in->max_output || n > HIPR_CAP_RTC_CODE || !(out->code = hw_malloc(n)) ||
            nv.nvrtcGetPTX(prog, (char *)out->code) != HWNV_SUCCESS) {
            free(out->code);
            out->code = NULL;
            out->result = HW_RTC_COMPILATION;
        } else {
            out->code_size = n;
        }
    }
    for (uint32_t i = 0; r == HWNV_SUCCESS && i < in->name_count; i++) {
        const char *name = NULL;
        if (nv.nvrtcGetLoweredName(prog, in->name_exprs[i], &name) == HWNV_SUCCESS && name)
            lowered[i] = hw_strdup(name);
    }
    rc = HW_OK;
cleanup:
    if (prog)
        nv.nvrtcDestroyProgram(&prog);
    free(texts);
    free(names);
    free(o.argv);
    free(o.own[0]);
    free(o.own[1]);
    if (rc != HW_OK) {
        free(lowered);
        memset(out, 0, sizeof *out);
    }
    return rc;
}
