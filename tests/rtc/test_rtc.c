/*
 * test_rtc - hiprtc through the proxy against a real worker that compiles
 * with hipcc: a program with a header, a template, an extern "C" kernel, a
 * struct by value and a __device__ variable; its code object parsed with
 * src/codeobj (kernels there with the argument layout C gives them); the
 * lowered names of name expressions; the code loaded with hipModuleLoadData;
 * compile errors, refused options and header names, an oversized program and
 * a source that tries to read a worker file, each with its status and a log
 * that says why, and the session still working after all of them; several
 * threads compiling at once.
 */
#include <linux/landlock.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include "codeobj.h"
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

static const char *helpers_h = "#pragma once\n"
                               "__device__ inline float twice(float x) { return 2.0f * x; }\n";

static const char *program = "#include \"util/helpers.h\"\n"
                             "struct pair { int a; double b; };\n"
                             "__device__ int counter;\n"
                             "template <typename T, int N> __global__ void scale(T *p, T f)\n"
                             "{ int i = threadIdx.x; if (i < N) p[i] = twice(p[i]) * f; }\n"
                             "namespace ns { template <typename T> __global__ void fill(T *p, T v) "
                             "{ p[threadIdx.x] = v; } }\n"
                             "extern \"C\" __global__ void take_pair(pair s, char c, int *out)\n"
                             "{ out[0] = s.a + (int)s.b + c; atomicAdd(&counter, 1); }\n";

static char *log_of(hiprtcProgram p)
{
    size_t n = 0;
    RTC_CHECK(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
    CHECK(n >= 1);
    char *log = malloc(n);
    CHECK(log != NULL);
    RTC_CHECK(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
    CHECK(strlen(log) == n - 1);
    return log;
}

/* Compiles src alone with the given options; returns the result, *log the log. */
static hiprtcResult compile(const char *src, const char *name, int nopt, const char **opts,
                            char **log)
{
    hiprtcProgram p;
    RTC_CHECK(hiprtcCreateProgram(&p, src, name, 0, NULL, NULL), HIPRTC_SUCCESS);
    hiprtcResult r = hiprtcCompileProgram(p, nopt, opts);
    *log = log_of(p);
    RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
    return r;
}

static void expect_arg(const hw_cob_kernel *k, uint32_t i, uint32_t offset, uint32_t size,
                       hw_cob_arg_kind kind)
{
    CHECK(i < k->nargs);
    if (k->args[i].offset != offset || k->args[i].size != size || k->args[i].kind != kind) {
        fprintf(stderr, "kernel %s arg %u: offset %u size %u kind %d, expected %u %u %d\n", k->name,
                i, k->args[i].offset, k->args[i].size, (int)k->args[i].kind, offset, size,
                (int)kind);
        exit(1);
    }
}

static void check_program(void)
{
    hiprtcProgram p;
    const char *hdrs[] = { helpers_h };
    const char *names[] = { "util/helpers.h" };
    const char *lowered = NULL;
    RTC_CHECK(hiprtcCreateProgram(&p, program, "good.hip", 1, hdrs, names), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcGetLoweredName(p, "&take_pair", &lowered),
              HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION);
    /* The template is instantiated only because it is named here. */
    RTC_CHECK(hiprtcAddNameExpression(p, "scale<float, 4>"), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcAddNameExpression(p, "&ns::fill<int>"), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcAddNameExpression(p, "&take_pair"), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcAddNameExpression(p, "counter"), HIPRTC_SUCCESS);
    const char *opts[] = { "-O2", "-DUNUSED_MACRO=1", "--gpu-architecture=gfx90a", "-Iutil" };
    RTC_CHECK(hiprtcCompileProgram(p, 4, opts), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcAddNameExpression(p, "scale<float, 8>"),
              HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION);
    free(log_of(p));

    size_t size = 0;
    RTC_CHECK(hiprtcGetCodeSize(p, &size), HIPRTC_SUCCESS);
    CHECK(size > 64);
    char *code = malloc(size);
    CHECK(code != NULL);
    RTC_CHECK(hiprtcGetCode(p, code), HIPRTC_SUCCESS);
    CHECK(hw_cob_detect(code, size) == HW_COB_KIND_ELF);

    /* The Itanium manglings, and each one a kernel of the code object. */
    const char *l_scale = NULL, *l_fill = NULL, *l_pair = NULL, *l_counter = NULL;
    RTC_CHECK(hiprtcGetLoweredName(p, "scale<float, 4>", &l_scale), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcGetLoweredName(p, "&ns::fill<int>", &l_fill), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcGetLoweredName(p, "&take_pair", &l_pair), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcGetLoweredName(p, "counter", &l_counter), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcGetLoweredName(p, "scale<float, 8>", &lowered),
              HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID);
    printf("lowered: %s %s %s %s\n", l_scale, l_fill, l_pair, l_counter);
    CHECK(strcmp(l_scale, "_Z5scaleIfLi4EEvPT_S0_") == 0);
    CHECK(strcmp(l_fill, "_ZN2ns4fillIiEEvPT_S1_") == 0);
    CHECK(strcmp(l_pair, "take_pair") == 0);
    CHECK(strcmp(l_counter, "counter") == 0);

    hw_cob_metadata md;
    hw_cob_err err;
    CHECK(hw_cob_elf_metadata(code, size, &md, &err) == HW_COB_OK);
    CHECK(md.target && strstr(md.target, "gfx90a"));
    const hw_cob_kernel *k = hw_cob_find_kernel(&md, l_scale);
    CHECK(k != NULL && k->nargs == 2);
    expect_arg(k, 0, 0, 8, HW_COB_ARG_GLOBAL_BUFFER);
    expect_arg(k, 1, 8, 4, HW_COB_ARG_BY_VALUE);
    k = hw_cob_find_kernel(&md, l_fill);
    CHECK(k != NULL && k->nargs == 2);
    expect_arg(k, 0, 0, 8, HW_COB_ARG_GLOBAL_BUFFER);
    expect_arg(k, 1, 8, 4, HW_COB_ARG_BY_VALUE);
    /* struct pair { int; double; } is 16 bytes, char at 16, pointer at 24. */
    k = hw_cob_find_kernel(&md, l_pair);
    CHECK(k != NULL && k->nargs == 3);
    expect_arg(k, 0, 0, 16, HW_COB_ARG_BY_VALUE);
    expect_arg(k, 1, 16, 1, HW_COB_ARG_BY_VALUE);
    expect_arg(k, 2, 24, 8, HW_COB_ARG_GLOBAL_BUFFER);
    CHECK(hw_cob_find_kernel(&md, "_Z5scaleIfLi8EEvPT_S0_") == NULL);
    hw_cob_metadata_free(&md);
    printf("code object: %zu bytes, kernels and argument layouts as expected\n", size);

    /* The worker takes the code. The CPU device runs no AMD code: it refuses
     * the module, or (with foreign modules) resolves the kernel and refuses
     * its launch; either way as hipErrorNoBinaryForGpu, never as garbage. */
    hipModule_t mod;
    hipError_t e = hipModuleLoadData(&mod, code);
    if (e == hipSuccess) {
        hipFunction_t f;
        HIP_CHECK(hipModuleGetFunction(&f, mod, l_scale));
        int *dp;
        float fv = 2.0f;
        HIP_CHECK(hipMalloc((void **)&dp, 64));
        void *args[] = { &dp, &fv };
        e = hipModuleLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL);
        if (e == hipSuccess)
            e = hipDeviceSynchronize();
        HIP_EXPECT(e, hipErrorNoBinaryForGpu);
        HIP_CHECK(hipFree(dp));
        HIP_CHECK(hipModuleUnload(mod));
        printf("module: kernel %s resolved; launch on the CPU device: hipErrorNoBinaryForGpu\n",
               l_scale);
    } else {
        HIP_EXPECT(e, hipErrorNoBinaryForGpu);
        printf("module: the CPU device refuses the AMD code object: hipErrorNoBinaryForGpu\n");
    }
    free(code);
    RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_ERROR_INVALID_PROGRAM);
}

static void expect_log(const char *log, const char *needle)
{
    if (!strstr(log, needle)) {
        fprintf(stderr, "log lacks \"%s\":\n%s\n", needle, log);
        exit(1);
    }
}

static void check_errors(void)
{
    char *log;
    CHECK(compile("__global__ void k(int *p) { p[0] = undeclared_thing; }\n", "broken.hip", 0, NULL,
                  &log) == HIPRTC_ERROR_COMPILATION);
    expect_log(log, "broken.hip:1:");
    expect_log(log, "undeclared_thing");
    free(log);
    printf("compile error: HIPRTC_ERROR_COMPILATION, the log names the line\n");

    static const char *refused[] = { "-fplugin=/tmp/evil.so",
                                     "-o/tmp/out",
                                     "@/etc/passwd",
                                     "-Xclang",
                                     "-Wl,-z,now",
                                     "-I/etc",
                                     "-I../..",
                                     "-mllvm",
                                     "--save-temps",
                                     "-include/etc/passwd",
                                     "-DX=line\nbreak" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *opt[] = { "-O1", refused[i] };
        CHECK(compile("__global__ void k() {}\n", "opt.hip", 2, opt, &log) ==
              HIPRTC_ERROR_INVALID_OPTION);
        expect_log(log, "hipwire:");
        if (!strchr(refused[i], '\n'))
            expect_log(log, refused[i]);
        free(log);
    }
    printf("%zu refused options: HIPRTC_ERROR_INVALID_OPTION, each named in the log\n",
           sizeof refused / sizeof refused[0]);

    /* hipcc hands its arguments to a shell: a macro value that is shell
     * code stays a macro value. */
    char marker[96], shell[400];
    snprintf(marker, sizeof marker, "/tmp/hipwire-rtc-shell-%d", (int)getpid());
    unlink(marker);
    snprintf(shell, sizeof shell, "-DPWN=$(touch %s);`touch %s`;touch %s", marker, marker, marker);
    const char *shell_opt[] = { shell };
    CHECK(compile("__global__ void k(int *p) { *p = 1; }\n", "shell.hip", 1, shell_opt, &log) ==
          HIPRTC_SUCCESS);
    free(log);
    CHECK(access(marker, F_OK) != 0);
    printf("a macro value made of shell code: compiled as a macro, nothing ran\n");

    hiprtcProgram p;
    const char *hdr[] = { "int x;\n" };
    const char *bad_names[] = { "../../etc/passwd", "/etc/passwd", "a//b.h", "", "dir/" };
    for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++) {
        const char *nm[] = { bad_names[i] };
        RTC_CHECK(hiprtcCreateProgram(&p, "__global__ void k() {}\n", "hdr.hip", 1, hdr, nm),
                  HIPRTC_SUCCESS);
        RTC_CHECK(hiprtcCompileProgram(p, 0, NULL), HIPRTC_ERROR_INVALID_INPUT);
        log = log_of(p);
        expect_log(log, "header name");
        free(log);
        RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
    }
    printf("%zu bad header names: HIPRTC_ERROR_INVALID_INPUT\n",
           sizeof bad_names / sizeof bad_names[0]);

    /* Over the protocol's cap: refused before anything is sent. */
    size_t big = (17u << 20);
    char *huge = malloc(big + 1);
    CHECK(huge != NULL);
    memset(huge, ' ', big);
    huge[big] = '\0';
    CHECK(compile(huge, "huge.hip", 0, NULL, &log) == HIPRTC_ERROR_INVALID_INPUT);
    expect_log(log, "16 MiB");
    free(log);
    free(huge);
    printf("17 MiB source: HIPRTC_ERROR_INVALID_INPUT before sending\n");

    /* Bad arguments, locally. */
    RTC_CHECK(hiprtcCreateProgram(NULL, "x", "n", 0, NULL, NULL), HIPRTC_ERROR_INVALID_INPUT);
    RTC_CHECK(hiprtcCreateProgram(&p, NULL, "n", 0, NULL, NULL), HIPRTC_ERROR_INVALID_INPUT);
    RTC_CHECK(hiprtcCreateProgram(&p, "x", "n", -1, NULL, NULL), HIPRTC_ERROR_INVALID_INPUT);
    RTC_CHECK(hiprtcCompileProgram(NULL, 0, NULL), HIPRTC_ERROR_INVALID_PROGRAM);
    RTC_CHECK(hiprtcCreateProgram(&p, "__global__ void k() {}\n", NULL, 0, NULL, NULL),
              HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcCompileProgram(p, 1, NULL), HIPRTC_ERROR_INVALID_INPUT);
    RTC_CHECK(hiprtcAddNameExpression(p, NULL), HIPRTC_ERROR_INVALID_INPUT);
    RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
    int major = -1, minor = -1;
    RTC_CHECK(hiprtcVersion(&major, &minor), HIPRTC_SUCCESS);
    CHECK(major == HIP_VERSION_MAJOR && minor == HIP_VERSION_MINOR);
    CHECK(strcmp(hiprtcGetErrorString(HIPRTC_ERROR_COMPILATION), "HIPRTC_ERROR_COMPILATION") == 0);
}

/* With Landlock, a compile reads only the toolchain: a worker file is out of
 * reach even though the worker's user could read it. */
static void check_confinement(void)
{
    if (syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) < 1) {
        printf("confinement: SKIPPED, this kernel has no Landlock (docs/hiprtc.md)\n");
        return;
    }
    char dir[] = "/tmp/hipwire-secret-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], src[256];
    snprintf(path, sizeof path, "%s/secret.h", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("#error THE_WORKER_SECRET_42\n", f);
    fclose(f);
    snprintf(src, sizeof src, "#include \"%s\"\n__global__ void k() {}\n", path);
    char *log;
    CHECK(compile(src, "peek.hip", 0, NULL, &log) == HIPRTC_ERROR_COMPILATION);
    expect_log(log, "Permission denied");
    CHECK(strstr(log, "THE_WORKER_SECRET_42") == NULL);
    free(log);
    unlink(path);
    rmdir(dir);
    printf("confinement: #include of a worker file is refused (Permission denied)\n");
}

static void *compile_one(void *arg)
{
    char *log;
    char src[128];
    snprintf(src, sizeof src, "extern \"C\" __global__ void k%d(int *p) { *p = %d; }\n",
             *(int *)arg, *(int *)arg);
    *(int *)arg = compile(src, "thread.hip", 0, NULL, &log);
    free(log);
    return NULL;
}

/* More compiles at once than the worker runs (RTC_MAX_JOBS is 2): every
 * thread gets its answer. */
static void check_concurrent(void)
{
    enum { N = 4 };
    pthread_t t[N];
    int v[N];
    for (int i = 0; i < N; i++) {
        v[i] = i;
        CHECK(pthread_create(&t[i], NULL, compile_one, &v[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK(v[i] == HIPRTC_SUCCESS);
    }
    printf("%d compiles from %d threads at once: all succeeded\n", N, N);
}

int main(void)
{
    check_program();
    check_errors();
    check_confinement();
    check_concurrent();
    /* The session is intact after every refusal. */
    char *log;
    CHECK(compile("extern \"C\" __global__ void again(int *p) { *p = 1; }\n", "again.hip", 0, NULL,
                  &log) == HIPRTC_SUCCESS);
    free(log);
    HIP_CHECK(hipDeviceSynchronize());
    printf("rtc: ok\n");
    return 0;
}
