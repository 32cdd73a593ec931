/* hiprtc through the proxy on a cuda worker: HIP source compiled by NVRTC
 * to PTX (src/backends/cuda/cuda_rtc.c), loaded with hipModuleLoadData and
 * run on the GPU, results bit-exact. */
#include <hip/hiprtc.h>

#include "gpu_test.h"

#define RTC_CHECK(call, expected)                                                              \
    do {                                                                                       \
        hiprtcResult r_ = (call);                                                              \
        if (r_ != (expected)) {                                                                \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call, \
                    hiprtcGetErrorString(r_), #expected);                                      \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* No #include: hiprtc gives every program hip/hip_runtime.h. */
static const char program[] =
    "extern \"C\" __global__ void vadd(const float *a, const float *b, float *c, int n)\n"
    "{\n"
    "    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;\n"
    "    if (i < n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n"
    /* Each warp sums its 32 values with HIP's maskless __shfl_down. */
    "extern \"C\" __global__ void warp_sum(const int *in, int *sums, unsigned long long *ballots)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int v = in[i];\n"
    "    unsigned long long b = __ballot(v & 1);\n"
    "    for (int off = warpSize / 2; off > 0; off /= 2)\n"
    "        v += __shfl_down(v, off);\n"
    "    if (threadIdx.x % warpSize == 0) {\n"
    "        sums[i / warpSize] = v;\n"
    "        ballots[i / warpSize] = b;\n"
    "    }\n"
    "}\n"
    "template <typename T> __global__ void reverse_add(T *d, T k)\n"
    "{\n"
    "    HIP_DYNAMIC_SHARED(T, s)\n"
    "    unsigned t = hipThreadIdx_x, n = hipBlockDim_x;\n"
    "    s[t] = d[t];\n"
    "    __syncthreads();\n"
    "    d[t] = s[n - 1 - t] + k;\n"
    "}\n";

static char *log_of(hiprtcProgram p)
{
    size_t n = 0;
    RTC_CHECK(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
    char *log = calloc(1, n + 1);
    CHECK(log);
    if (n)
        RTC_CHECK(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
    return log;
}

static void check_errors(void)
{
    hiprtcProgram p;
    const char *bad =
        "extern \"C\" __global__ void broken(int *p)\n{\n    p[0] = no_such_name;\n}\n";
    RTC_CHECK(hiprtcCreateProgram(&p, bad, "broken.hip", 0, NULL, NULL), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcCompileProgram(p, 0, NULL), HIPRTC_ERROR_COMPILATION);
    char *log = log_of(p);
    CHECK(strstr(log, "broken.hip(3)") != NULL);
    free(log);
    RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);

    const char *amd[] = { "--offload-arch=gfx90a" };
    RTC_CHECK(hiprtcCreateProgram(&p, program, "amd.hip", 0, NULL, NULL), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcCompileProgram(p, 1, amd), HIPRTC_ERROR_INVALID_OPTION);
    log = log_of(p);
    CHECK(strstr(log, "gfx90a") != NULL);
    free(log);
    RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
}

int main(void)
{
    gpu_require();
    hiprtcProgram p;
    RTC_CHECK(hiprtcCreateProgram(&p, program, "gpu_rtc.hip", 0, NULL, NULL), HIPRTC_SUCCESS);
    RTC_CHECK(hiprtcAddNameExpression(p, "reverse_add<int>"), HIPRTC_SUCCESS);
    const char *opts[] = { "-O3", "-std=c++17" };
    hiprtcResult cr = hiprtcCompileProgram(p, 2, opts);
    if (cr != HIPRTC_SUCCESS) {
        char *log = log_of(p);
        fprintf(stderr, "compile: %s\n%s\n", hiprtcGetErrorString(cr), log);
        return 1;
    }
    size_t size = 0;
    RTC_CHECK(hiprtcGetCodeSize(p, &size), HIPRTC_SUCCESS);
    CHECK(size > 0);
    char *code = malloc(size);
    CHECK(code);
    RTC_CHECK(hiprtcGetCode(p, code), HIPRTC_SUCCESS);
    const char *lowered = NULL;
    RTC_CHECK(hiprtcGetLoweredName(p, "reverse_add<int>", &lowered), HIPRTC_SUCCESS);
    CHECK(lowered && strcmp(lowered, "_Z11reverse_addIiEvPT_S0_") == 0);
    char rev_name[64];
    snprintf(rev_name, sizeof rev_name, "%s", lowered);
    RTC_CHECK(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);

    hipModule_t mod;
    HIP_CHECK(hipModuleLoadData(&mod, code));
    free(code);
    hipFunction_t vadd = gpu_fn(mod, "vadd"), warp_sum = gpu_fn(mod, "warp_sum"),
                  rev = gpu_fn(mod, rev_name);

    enum { N = 1 << 20, W = N / 32 };
    float *ha = malloc(N * sizeof(float)), *hb = malloc(N * sizeof(float)),
          *hc = malloc(N * sizeof(float));
    int *hin = malloc(N * sizeof(int)), *hs = malloc(W * sizeof(int));
    unsigned long long *hbal = malloc(W * sizeof *hbal);
    CHECK(ha && hb && hc && hin && hs && hbal);
    for (int i = 0; i < N; i++) {
        ha[i] = (float)(i % 10007) * 0.5f;
        hb[i] = (float)(i % 331) * 0.25f;
        hin[i] = (int)((i * 2654435761u) >> 8) % 100003 - 50000;
    }
    float *a, *b, *c;
    int *in, *sums;
    unsigned long long *ballots;
    HIP_CHECK(hipMalloc((void **)&a, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&b, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&c, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&in, N * sizeof(int)));
    HIP_CHECK(hipMalloc((void **)&sums, W * sizeof(int)));
    HIP_CHECK(hipMalloc((void **)&ballots, W * sizeof *ballots));
    HIP_CHECK(hipMemcpy(a, ha, N * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(b, hb, N * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(in, hin, N * sizeof(int), hipMemcpyHostToDevice));

    int n = N;
    void *vargs[] = { &a, &b, &c, &n };
    HIP_CHECK(hipModuleLaunchKernel(vadd, N / 256, 1, 1, 256, 1, 1, 0, NULL, vargs, NULL));
    HIP_CHECK(hipMemcpy(hc, c, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (hc[i] != ha[i] + hb[i]) {
            fprintf(stderr, "vadd: c[%d] = %a, expected %a\n", i, hc[i], ha[i] + hb[i]);
            return 1;
        }

    void *sargs[] = { &in, &sums, &ballots };
    HIP_CHECK(hipModuleLaunchKernel(warp_sum, N / 256, 1, 1, 256, 1, 1, 0, NULL, sargs, NULL));
    HIP_CHECK(hipMemcpy(hs, sums, W * sizeof(int), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(hbal, ballots, W * sizeof *hbal, hipMemcpyDeviceToHost));
    for (int w = 0; w < W; w++) {
        int want = 0;
        unsigned long long bits = 0;
        for (int l = 0; l < 32; l++) {
            want += hin[w * 32 + l];
            bits |= (unsigned long long)(hin[w * 32 + l] & 1) << l;
        }
        if (hs[w] != want || hbal[w] != bits) {
            fprintf(stderr, "warp %d: sum %d ballot %llx, expected %d %llx\n", w, hs[w], hbal[w],
                    want, bits);
            return 1;
        }
    }

    /* The template by its lowered name, with dynamic shared memory. */
    int k = 7;
    void *rargs[] = { &in, &k };
    HIP_CHECK(hipModuleLaunchKernel(rev, 1, 1, 1, 512, 1, 1, 512 * sizeof(int), NULL, rargs, NULL));
    int back[512];
    HIP_CHECK(hipMemcpy(back, in, sizeof back, hipMemcpyDeviceToHost));
    for (int t = 0; t < 512; t++)
        CHECK_EQ(back[t], hin[511 - t] + 7);

    check_errors();
    HIP_CHECK(hipModuleUnload(mod));
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(c));
    HIP_CHECK(hipFree(in));
    HIP_CHECK(hipFree(sums));
    HIP_CHECK(hipFree(ballots));
    printf("gpu_hiprtc: vadd, warp_sum (%d warps) and %s bit-exact\n", W, rev_name);
    return 0;
}
