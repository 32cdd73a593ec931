/*
 * hipwire-bench-rtc - HIP source compiled on the worker by hiprtc, against
 * the same kernels compiled by nvcc, side by side in one session
 * (docs/benchmarks.md, "hiprtc against nvcc"); and hiprtcCompileProgram's
 * latency, cold and again (a compiled-kernel cache hit when the worker has
 * --rtc-cache-dir).
 *
 *   hipwire-bench-rtc --source rtc_kernels.hip [--ptx rtc_kernels.ptx]
 *                     [--n N] [--reduce-n N] [--rounds R] [--iters I]
 *
 * An application of the proxy (TF_WORKER_HOST/PORT name the worker). Without
 * --ptx (the CPU device, or no nvcc) only the hiprtc column is measured.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#define CHECK_HIP(call)                                                                          \
    do {                                                                                         \
        hipError_t e_ = (call);                                                                  \
        if (e_ != hipSuccess) {                                                                  \
            fprintf(stderr, "hipwire-bench-rtc: %s failed: %s\n", #call, hipGetErrorString(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

struct kernels {
    hipModule_t mod;
    hipFunction_t matmul, reduce;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto out;
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
        goto out;
    }
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
out:
    if (f)
        fclose(f);
    if (!buf) {
        fprintf(stderr, "hipwire-bench-rtc: cannot read %s\n", path);
        exit(1);
    }
    return buf;
}

/* One hiprtcCompileProgram with option opt, timed; the code when code_out
 * is not NULL. */
static double compile(const char *src, const char *opt, char **code_out)
{
    hiprtcProgram prog;
    if (hiprtcCreateProgram(&prog, src, "rtc_kernels.hip", 0, NULL, NULL) != HIPRTC_SUCCESS) {
        fprintf(stderr, "hipwire-bench-rtc: hiprtcCreateProgram failed\n");
        exit(1);
    }
    double t0 = now_ms();
    const char *opts[] = { opt };
    hiprtcResult r = hiprtcCompileProgram(prog, 1, opts);
    double took = now_ms() - t0;
    if (r != HIPRTC_SUCCESS) {
        size_t n = 0;
        hiprtcGetProgramLogSize(prog, &n);
        char *log = calloc(1, n + 1);
        if (log)
            hiprtcGetProgramLog(prog, log);
        fprintf(stderr, "hipwire-bench-rtc: compile failed: %s\n%s\n", hiprtcGetErrorString(r),
                log ? log : "");
        exit(1);
    }
    if (code_out) {
        size_t n = 0;
        hiprtcGetCodeSize(prog, &n);
        *code_out = malloc(n);
        if (!*code_out || hiprtcGetCode(prog, *code_out) != HIPRTC_SUCCESS) {
            fprintf(stderr, "hipwire-bench-rtc: hiprtcGetCode failed\n");
            exit(1);
        }
    }
    hiprtcDestroyProgram(&prog);
    return took;
}

static void functions(struct kernels *k)
{
    CHECK_HIP(hipModuleGetFunction(&k->matmul, k->mod, "matmul_tiled"));
    CHECK_HIP(hipModuleGetFunction(&k->reduce, k->mod, "block_reduce"));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct bufs {
    float *a, *b, *c, *in, *out;
    int n, rn, rblocks;
};

static void launch_matmul(const struct kernels *k, struct bufs *b)
{
    void *args[] = { &b->a, &b->b, &b->c, &b->n };
    CHECK_HIP(hipModuleLaunchKernel(k->matmul, (unsigned)b->n / 16, (unsigned)b->n / 16, 1, 16, 16,
                                    1, 0, NULL, args, NULL));
}

static void launch_reduce(const struct kernels *k, struct bufs *b)
{
    void *args[] = { &b->in, &b->out, &b->rn };
    CHECK_HIP(hipModuleLaunchKernel(k->reduce, (unsigned)b->rblocks, 1, 1, 256, 1, 1, 0, NULL, args,
                                    NULL));
}

/* Median over rounds of the mean time of one launch (µs), device events. */
static double time_kernel(const struct kernels *k, struct bufs *b,
                          void (*launch)(const struct kernels *, struct bufs *), int rounds,
                          int iters)
{
    hipEvent_t e0, e1;
    double *t = calloc((size_t)rounds, sizeof *t);
    CHECK_HIP(hipEventCreate(&e0));
    CHECK_HIP(hipEventCreate(&e1));
    for (int i = 0; i < 3; i++)
        launch(k, b);
    CHECK_HIP(hipDeviceSynchronize());
    for (int r = 0; r < rounds; r++) {
        CHECK_HIP(hipEventRecord(e0, NULL));
        for (int i = 0; i < iters; i++)
            launch(k, b);
        CHECK_HIP(hipEventRecord(e1, NULL));
        CHECK_HIP(hipEventSynchronize(e1));
        float ms = 0;
        CHECK_HIP(hipEventElapsedTime(&ms, e0, e1));
        t[r] = (double)ms * 1e3 / iters;
    }
    qsort(t, (size_t)rounds, sizeof *t, cmp_double);
    double med = t[rounds / 2];
    free(t);
    hipEventDestroy(e0);
    hipEventDestroy(e1);
    return med;
}

/* Both results on the host, for comparing the two builds of a kernel. */
static void results(struct bufs *b, float *c, float *out)
{
    CHECK_HIP(hipMemcpy(c, b->c, (size_t)b->n * b->n * sizeof *c, hipMemcpyDeviceToHost));
    CHECK_HIP(hipMemcpy(out, b->out, (size_t)b->rblocks * sizeof *out, hipMemcpyDeviceToHost));
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hipwire-bench-rtc --source FILE.hip [--ptx FILE.ptx] [--n N] [--reduce-n N]\n"
            "                         [--rounds R] [--iters I]\n"
            "Times HIP source compiled by hiprtc on the worker against the same kernels\n"
            "compiled by nvcc (--ptx), and hiprtcCompileProgram cold and again.\n");
}

int main(int argc, char **argv)
{
    const char *source = NULL, *ptx = NULL;
    int n = 1024, rn = 1 << 24, rounds = 7, iters = 20;
    static const struct option opts[] = {
        { "source", required_argument, NULL, 's' },
        { "ptx", required_argument, NULL, 'p' },
        { "n", required_argument, NULL, 'n' },
        { "reduce-n", required_argument, NULL, 'r' },
        { "rounds", required_argument, NULL, 'R' },
        { "iters", required_argument, NULL, 'i' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': source = optarg; break;
        case 'p': ptx = optarg; break;
        case 'n': n = atoi(optarg); break;
        case 'r': rn = atoi(optarg); break;
        case 'R': rounds = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("hipwire-bench-rtc %s\n", HIPWIRE_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!source || n < 16 || n % 16 || rn < 256 || rounds < 1 || iters < 1) {
        usage(stderr);
        return 2;
    }
    size_t len;
    char *src = read_file(source, &len);
    char *code = NULL;
    hipDeviceProp_t prop;
    CHECK_HIP(hipGetDeviceProperties(&prop, 0));
    printf("== hiprtc against nvcc on %s (%s)\n", prop.name, prop.gcnArchName);
    /* A define no earlier run used makes the first compile a real one. */
    char nonce[64];
    snprintf(nonce, sizeof nonce, "-DHIPWIRE_BENCH_RUN=%lld", (long long)time(NULL));
    double cold = compile(src, nonce, &code);
    /* Again: the median of several, so one scheduling hiccup is not the figure. */
    double again[7];
    for (int i = 0; i < 7; i++)
        again[i] = compile(src, nonce, NULL);
    qsort(again, 7, sizeof again[0], cmp_double);
    double warm = again[3];
    printf("hiprtcCompileProgram: first %.1f ms (compiled), again %.3f ms (the same program; "
           "median of 7, %.3f-%.3f)\n",
           cold, warm, again[0], again[6]);

    struct kernels rtc = { 0 }, nv = { 0 };
    CHECK_HIP(hipModuleLoadData(&rtc.mod, code));
    functions(&rtc);
    if (ptx) {
        CHECK_HIP(hipModuleLoad(&nv.mod, ptx));
        functions(&nv);
    }

    struct bufs b = { .n = n, .rn = rn, .rblocks = 1024 };
    size_t mat = (size_t)n * n;
    float *ha = malloc(mat * sizeof *ha), *hb = malloc(mat * sizeof *hb);
    float *hin = malloc((size_t)rn * sizeof *hin);
    float *c1 = malloc(mat * sizeof *c1), *c2 = malloc(mat * sizeof *c2);
    float *o1 = malloc(1024 * sizeof *o1), *o2 = malloc(1024 * sizeof *o2);
    if (!ha || !hb || !hin || !c1 || !c2 || !o1 || !o2) {
        fprintf(stderr, "hipwire-bench-rtc: out of host memory\n");
        return 1;
    }
    srand(1);
    for (size_t i = 0; i < mat; i++) {
        ha[i] = (float)(rand() % 17 - 8) / 8.0f;
        hb[i] = (float)(rand() % 13 - 6) / 8.0f;
    }
    double want = 0;
    for (int i = 0; i < rn; i++) {
        hin[i] = (float)(rand() % 9) / 4.0f;
        want += hin[i];
    }
    CHECK_HIP(hipMalloc((void **)&b.a, mat * sizeof *ha));
    CHECK_HIP(hipMalloc((void **)&b.b, mat * sizeof *hb));
    CHECK_HIP(hipMalloc((void **)&b.c, mat * sizeof *ha));
    CHECK_HIP(hipMalloc((void **)&b.in, (size_t)rn * sizeof *hin));
    CHECK_HIP(hipMalloc((void **)&b.out, 1024 * sizeof(float)));
    CHECK_HIP(hipMemcpy(b.a, ha, mat * sizeof *ha, hipMemcpyHostToDevice));
    CHECK_HIP(hipMemcpy(b.b, hb, mat * sizeof *hb, hipMemcpyHostToDevice));
    CHECK_HIP(hipMemcpy(b.in, hin, (size_t)rn * sizeof *hin, hipMemcpyHostToDevice));

    /* Correct first: the hiprtc build against the host, then against nvcc's. */
    launch_matmul(&rtc, &b);
    launch_reduce(&rtc, &b);
    CHECK_HIP(hipDeviceSynchronize());
    results(&b, c1, o1);
    double got = 0;
    for (int i = 0; i < 1024; i++)
        got += o1[i];
    int bad = fabs(got - want) > 1e-3 * want;
    for (int r = 0; r < n && !bad; r += n / 8) {
        for (int col = 0; col < n; col += n / 8) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += (double)ha[(size_t)r * n + k] * hb[(size_t)k * n + col];
            bad |= fabs(s - c1[(size_t)r * n + col]) > 1e-3 * (1 + fabs(s));
        }
    }
    if (ptx) {
        launch_matmul(&nv, &b);
        launch_reduce(&nv, &b);
        CHECK_HIP(hipDeviceSynchronize());
        results(&b, c2, o2);
        bad |= memcmp(c1, c2, mat * sizeof *c1) != 0;
        double got2 = 0;
        for (int i = 0; i < 1024; i++)
            got2 += o2[i];
        bad |= fabs(got2 - got) > 1e-3 * want;
    }
    printf("results: %s\n", bad   ? "WRONG"
                            : ptx ? "checked (host reference, and hiprtc = nvcc)"
                                  : "checked (host reference)");

    double m1 = time_kernel(&rtc, &b, launch_matmul, rounds, iters);
    double r1 = time_kernel(&rtc, &b, launch_reduce, rounds, iters);
    printf("%-28s %12s %12s %8s\n", "kernel (median per launch)", "hiprtc us", "nvcc us", "ratio");
    if (ptx) {
        double m2 = time_kernel(&nv, &b, launch_matmul, rounds, iters);
        double r2 = time_kernel(&nv, &b, launch_reduce, rounds, iters);
        printf("%-28s %12.2f %12.2f %8.3f\n", "matmul tiled 16x16", m1, m2, m1 / m2);
        printf("%-28s %12.2f %12.2f %8.3f\n", "block reduce (shuffles)", r1, r2, r1 / r2);
        printf("Targets\n");
        printf("  hiprtc within 5%% of nvcc, matmul: %.3f (<= 1.05) %s\n", m1 / m2,
               m1 / m2 <= 1.05 ? "met" : "MISSED");
        printf("  hiprtc within 5%% of nvcc, reduce: %.3f (<= 1.05) %s\n", r1 / r2,
               r1 / r2 <= 1.05 ? "met" : "MISSED");
    } else {
        printf("%-28s %12.2f %12s %8s\n", "matmul tiled 16x16", m1, "-", "-");
        printf("%-28s %12.2f %12s %8s\n", "block reduce (shuffles)", r1, "-", "-");
        printf("Targets\n");
    }
    printf("  compile again (cache hit with --rtc-cache-dir): %.3f ms (<= 1 ms) %s\n", warm,
           warm <= 1.0 ? "met" : "MISSED");
    return bad;
}
