/*
 * hipwire-soak-client - one client of hipwire-soak's workload (docs/soak.md):
 * a HIP program on the proxy that, for SECONDS, allocates, copies H2D, D2D
 * and D2H, launches the test kernels, captures and replays a graph, creates
 * streams and events, and compiles a small kernel with hiprtc, checking
 * every result. The soak driver kills some clients with SIGKILL and cuts
 * links under others; a wrong result or a failed call exits 1.
 *
 *   hipwire-soak-client SECONDS SEED   (HIPWIRE_KERNELS names the kernels)
 */
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static const char rtc_src[] =
    "extern \"C\" __global__ void scale(float *x, float k, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= k; }\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fill(float *h, int n, unsigned seed)
{
    for (int i = 0; i < n; i++)
        h[i] = (float)((seed + (unsigned)i * 2654435761u) % 1000u);
}

/* Allocations of a random size, H2D, D2D, vadd, D2H, checked. */
static void copies_and_launch(hipFunction_t vadd, unsigned *seed)
{
    int n = 1024 + (int)(rand_r(seed) % (256 * 1024));
    size_t sz = (size_t)n * sizeof(float);
    float *ha = malloc(sz), *hc = malloc(sz);
    CHECK(ha && hc);
    fill(ha, n, *seed);
    float *a, *b, *c;
    HIP_CHECK(hipMalloc((void **)&a, sz));
    HIP_CHECK(hipMalloc((void **)&b, sz));
    HIP_CHECK(hipMalloc((void **)&c, sz));
    HIP_CHECK(hipMemcpy(a, ha, sz, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(b, a, sz, hipMemcpyDeviceToDevice));
    void *args[] = { &a, &b, &c, &n };
    HIP_CHECK(hipModuleLaunchKernel(vadd, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args,
                                    NULL));
    HIP_CHECK(hipMemcpy(hc, c, sz, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(hc[i] == 2.0f * ha[i]);
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(c));
    free(ha);
    free(hc);
}

/* A captured graph (H2D copy and a launch) replayed a few times. */
static void graph_replay(hipFunction_t count_once)
{
    hipStream_t s;
    hipEvent_t ev;
    unsigned long long *counter, got = 0, zero = 0;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipEventCreate(&ev));
    HIP_CHECK(hipMalloc((void **)&counter, sizeof *counter));
    HIP_CHECK(hipMemcpy(counter, &zero, sizeof zero, hipMemcpyHostToDevice));
    hipGraph_t g;
    hipGraphExec_t exec;
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
    void *args[] = { &counter };
    HIP_CHECK(hipModuleLaunchKernel(count_once, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
    HIP_CHECK(hipStreamEndCapture(s, &g));
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    enum { REPLAYS = 5 };
    for (int i = 0; i < REPLAYS; i++)
        HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipEventRecord(ev, s));
    HIP_CHECK(hipEventSynchronize(ev));
    HIP_CHECK(hipMemcpy(&got, counter, sizeof got, hipMemcpyDeviceToHost));
    CHECK_EQ(got, REPLAYS);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(g));
    HIP_CHECK(hipFree(counter));
    HIP_CHECK(hipEventDestroy(ev));
    HIP_CHECK(hipStreamDestroy(s));
}

/* hiprtc: compile (the worker's cache usually answers), load, run, unload. */
static void rtc_round(void)
{
    hiprtcProgram p;
    CHECK(hiprtcCreateProgram(&p, rtc_src, "scale.hip", 0, NULL, NULL) == HIPRTC_SUCCESS);
    hiprtcResult r = hiprtcCompileProgram(p, 0, NULL);
    if (r != HIPRTC_SUCCESS) {
        size_t ln = 0;
        char *log = NULL;
        if (hiprtcGetProgramLogSize(p, &ln) == HIPRTC_SUCCESS && (log = calloc(1, ln + 1)))
            hiprtcGetProgramLog(p, log);
        fprintf(stderr, "soak-client %d: hiprtc compile failed: %s\n%s\n", (int)getpid(),
                hiprtcGetErrorString(r), log ? log : "");
        exit(1);
    }
    size_t n = 0;
    CHECK(hiprtcGetCodeSize(p, &n) == HIPRTC_SUCCESS && n > 0);
    char *code = malloc(n);
    CHECK(code != NULL);
    CHECK(hiprtcGetCode(p, code) == HIPRTC_SUCCESS);
    CHECK(hiprtcDestroyProgram(&p) == HIPRTC_SUCCESS);
    hipModule_t m;
    hipFunction_t f;
    HIP_CHECK(hipModuleLoadData(&m, code));
    HIP_CHECK(hipModuleGetFunction(&f, m, "scale"));
    enum { N = 4096 };
    static float h[N];
    for (int i = 0; i < N; i++)
        h[i] = (float)i;
    float *d, k = 3.0f;
    int nn = N;
    HIP_CHECK(hipMalloc((void **)&d, sizeof h));
    HIP_CHECK(hipMemcpy(d, h, sizeof h, hipMemcpyHostToDevice));
    void *args[] = { &d, &k, &nn };
    HIP_CHECK(hipModuleLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    HIP_CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(h[i] == 3.0f * (float)i);
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipModuleUnload(m));
    free(code);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: hipwire-soak-client SECONDS SEED\n");
        return 2;
    }
    double until = now_s() + atof(argv[1]);
    unsigned seed = (unsigned)strtoul(argv[2], NULL, 10);
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    hipModule_t mod;
    hipFunction_t vadd, count_once;
    /* The first call opens the session: a link cut before the session can
     * resume fails it (exit 3, which the soak tells apart). */
    hipError_t e = hipModuleLoad(&mod, kernels);
    if (e != hipSuccess) {
        fprintf(stderr, "soak-client %d: opening the session failed: %s\n", (int)getpid(),
                hipGetErrorName(e));
        return 3;
    }
    HIP_CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    HIP_CHECK(hipModuleGetFunction(&count_once, mod, "count_once"));
    int no_rtc = getenv("HIPWIRE_SOAK_NO_RTC") != NULL;
    for (unsigned it = 0; now_s() < until; it++) {
        copies_and_launch(vadd, &seed);
        if (it % 4 == 0)
            graph_replay(count_once);
        if (!no_rtc && it % 16 == 0)
            rtc_round();
    }
    HIP_CHECK(hipModuleUnload(mod));
    return 0;
}
