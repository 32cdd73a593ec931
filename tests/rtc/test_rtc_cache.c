/* test_rtc_cache.c VARIANT [PAD_BYTES] - one session's compile of a
 * program (variant VARIANT, with a __device__ array of PAD_BYTES to size its
 * code), run and checked, and the compile's wall time printed. Run several
 * times against one worker with --rtc-cache-dir (check_rtc_cache.sh): each
 * run is a new session, so a second compile of the same variant is answered
 * from the cache that outlived the first. */
#include <time.h>

#include "rtc_cpu_util.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int variant = atoi(argv[1]);
    long pad = argc > 2 ? atol(argv[2]) : 1;
    char src[1024];
    snprintf(src, sizeof src,
             "__device__ unsigned char pad[%ld] = { 1 };\n"
             "extern \"C\" __global__ void k(int *out) {\n"
             "    out[threadIdx.x] = (int)threadIdx.x * %d + pad[0];\n"
             "}\n",
             pad, variant);
    hiprtcProgram p;
    RTC_CHECK(hiprtcCreateProgram(&p, src, "cache_test.hip", 0, NULL, NULL), HIPRTC_SUCCESS);
    double t0 = now_ms();
    hiprtcResult r = hiprtcCompileProgram(p, 0, NULL);
    double ms = now_ms() - t0;
    if (r != HIPRTC_SUCCESS) {
        fprintf(stderr, "compile failed: %s\n%s\n", hiprtcGetErrorString(r), rtc_log(p));
        return 1;
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
    int *d, h[64];
    HIP_CHECK(hipMalloc((void **)&d, sizeof h));
    void *args[] = { &d };
    HIP_CHECK(rtc_launch(m, "k", D3(1, 1, 1), D3(64, 1, 1), 0, args));
    HIP_CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++)
        CHECK(h[i] == i * variant + 1);
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipModuleUnload(m));
    printf("rtc cache: variant %d compiled and ran in one session (compile %.1f ms)\n", variant,
           ms);
    return 0;
}
