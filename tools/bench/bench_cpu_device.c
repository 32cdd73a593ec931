/*
 * hipwire-bench-cpu-device: what HIP source costs on the CPU device
 * (docs/hip-source.md), in process, no network: the fiber switch, a
 * __syncthreads round, and two kernels compiled by the CPU hiprtc path and
 * run by the block scheduler, each against the same algorithm in plain C
 * (-O2) spread over the same number of threads; and a compile's cold and
 * warm (compiled-kernel cache hit) latency. Ratios are given by wall time and
 * by CPU time (the second holds on a loaded machine).
 *   hipwire-bench-cpu-device [--quick]
 */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cpu_fiber.h"
#include "cpu_sched.h"
#include "rtc_cache.h"
#include "rtc_compile.h"
#include "hw_cli.h"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* CPU time of the whole process (pool threads and the plain C threads,
 * finished ones included): on a shared, loaded machine the wall clock
 * counts the time other processes ran, and both sides of a ratio get a
 * different share of it; CPU time counts only this work. */
static double cpu_now(void)
{
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

/* ---- the fiber switch ---- */

static void *main_sp, *fib_sp;
static long rounds;

static void pingpong(void *arg)
{
    (void)arg;
    for (;;)
        hw_fiber_switch(&fib_sp, main_sp);
}

static double switch_ns(void)
{
    void *stack = hw_fiber_stack_alloc(HIPWIRE_CPU_FIBER_STACK);
    if (!stack)
        return -1;
    fib_sp = hw_fiber_prepare((char *)stack + HIPWIRE_CPU_FIBER_STACK, pingpong, NULL);
    rounds = 20 * 1000 * 1000;
    double t0 = cpu_now();
    for (long i = 0; i < rounds; i++)
        hw_fiber_switch(&main_sp, fib_sp);
    double t = cpu_now() - t0;
    hw_fiber_stack_free(stack, HIPWIRE_CPU_FIBER_STACK);
    return t * 1e9 / (double)(2 * rounds); /* two switches a round */
}

/* ---- device kernels ---- */

static const char *source =
    "#define T 16\n"
    "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C, int n)\n"
    "{\n"
    "  __shared__ float As[T][T];\n"
    "  __shared__ float Bs[T][T];\n"
    "  int tx = threadIdx.x, ty = threadIdx.y;\n"
    "  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;\n"
    "  float sum = 0.0f;\n"
    "  for (int t = 0; t < n / T; t++) {\n"
    "    As[ty][tx] = A[row * n + t * T + tx];\n"
    "    Bs[ty][tx] = B[(t * T + ty) * n + col];\n"
    "    __syncthreads();\n"
    "    for (int k = 0; k < T; k++) sum += As[ty][k] * Bs[k][tx];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  C[row * n + col] = sum;\n"
    "}\n"
    "extern \"C\" __global__ void block_sum(const float *in, float *out)\n"
    "{\n"
    "  __shared__ float partial[1024 / warpSize];\n"
    "  float v = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
    "  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down(v, off);\n"
    "  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;\n"
    "  if (lane == 0) partial[warp] = v;\n"
    "  __syncthreads();\n"
    "  if (warp == 0) {\n"
    "    v = lane < (int)(blockDim.x / warpSize) ? partial[lane] : 0.0f;\n"
    "    for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down(v, off);\n"
    "    if (lane == 0) out[blockIdx.x] = v;\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void barriers(int rounds, int *out)\n"
    "{\n"
    "  int x = 0;\n"
    "  for (int i = 0; i < rounds; i++) { x += i; __syncthreads(); }\n"
    "  if (threadIdx.x == 0) out[blockIdx.x] = x;\n"
    "}\n";

static void *load(const uint8_t *code, size_t n)
{
    int fd = memfd_create("bench-module", MFD_CLOEXEC);
    char path[64];
    if (fd < 0 || write(fd, code, n) != (ssize_t)n)
        return NULL;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    close(fd);
    return dl;
}

static const struct hipwire_cpu_kernel *kernel(void *dl, const char *name)
{
    char sym[128];
    snprintf(sym, sizeof sym, "hipwire_kernel_%s", name);
    const struct hipwire_cpu_kernel *k = dlsym(dl, sym);
    if (!k) {
        fprintf(stderr, "no kernel %s\n", name);
        exit(1);
    }
    return k;
}

/* Packs the arguments at the offsets the kernel's descriptor gives. */
static void launch(const struct hipwire_cpu_kernel *k, uint32_t gx, uint32_t gy, uint32_t bx,
                   uint32_t by, void **params)
{
    uint8_t buf[256] = { 0 };
    for (uint32_t i = 0; i < k->param_count; i++)
        memcpy(buf + k->params[i].offset, params[i], k->params[i].size);
    uint32_t grid[3] = { gx, gy, 1 }, block[3] = { bx, by, 1 };
    if (cpu_sched_launch(k, grid, block, 0, buf, NULL) < 0) {
        fprintf(stderr, "launch failed\n");
        exit(1);
    }
}

/* ---- the same algorithms in plain C, over the same number of threads ---- */

struct cjob {
    const float *A, *B;
    float *C;
    int n, first, step;
};

static void *c_matmul(void *arg)
{
    struct cjob *j = arg;
    int n = j->n;
    float As[16][16], Bs[16][16];
    for (int tile = j->first; tile < (n / 16) * (n / 16); tile += j->step) {
        int by = tile / (n / 16), bx = tile % (n / 16);
        float acc[16][16] = { { 0 } };
        for (int t = 0; t < n / 16; t++) {
            for (int y = 0; y < 16; y++)
                for (int x = 0; x < 16; x++) {
                    As[y][x] = j->A[(by * 16 + y) * n + t * 16 + x];
                    Bs[y][x] = j->B[(t * 16 + y) * n + bx * 16 + x];
                }
            for (int y = 0; y < 16; y++)
                for (int x = 0; x < 16; x++) {
                    float s = acc[y][x];
                    for (int k = 0; k < 16; k++)
                        s += As[y][k] * Bs[k][x];
                    acc[y][x] = s;
                }
        }
        for (int y = 0; y < 16; y++)
            for (int x = 0; x < 16; x++)
                j->C[(by * 16 + y) * n + bx * 16 + x] = acc[y][x];
    }
    return NULL;
}

static void *c_block_sum(void *arg)
{
    struct cjob *j = arg; /* A: input, C: one sum per 256 elements, n: blocks */
    for (int b = j->first; b < j->n; b += j->step) {
        float s = 0.0f;
        for (int i = 0; i < 256; i++)
            s += j->A[b * 256 + i];
        j->C[b] = s;
    }
    return NULL;
}

static double run_c(void *(*fn)(void *), const float *A, const float *B, float *C, int n,
                    int nthreads)
{
    pthread_t th[256];
    struct cjob jobs[256];
    double t0 = now();
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (struct cjob){ A, B, C, n, i, nthreads };
        pthread_create(&th[i], NULL, fn, &jobs[i]);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    return now() - t0;
}

/* The best wall time of reps runs; *cpu the best CPU time. */
static double best_of(int reps, double (*fn)(void *), void *arg, double *cpu)
{
    double best = 1e30;
    *cpu = 1e30;
    for (int i = 0; i < reps; i++) {
        double c0 = cpu_now();
        double t = fn(arg);
        double c = cpu_now() - c0;
        best = t < best ? t : best;
        *cpu = c < *cpu ? c : *cpu;
    }
    return best;
}

struct mm {
    const struct hipwire_cpu_kernel *k;
    float *A, *B, *C;
    int n, threads;
};

static double dev_matmul(void *p)
{
    struct mm *m = p;
    void *params[] = { &m->A, &m->B, &m->C, &m->n };
    double t0 = now();
    launch(m->k, (uint32_t)m->n / 16, (uint32_t)m->n / 16, 16, 16, params);
    return now() - t0;
}

static double host_matmul(void *p)
{
    struct mm *m = p;
    return run_c(c_matmul, m->A, m->B, m->C, m->n, m->threads);
}

static double dev_sum(void *p)
{
    struct mm *m = p;
    void *params[] = { &m->A, &m->C };
    double t0 = now();
    launch(m->k, (uint32_t)m->n, 1, 256, 1, params);
    return now() - t0;
}

static double host_sum(void *p)
{
    struct mm *m = p;
    return run_c(c_block_sum, m->A, NULL, m->C, m->n, m->threads);
}

/* What a second compile of the same program costs on a worker with
 * --rtc-cache-dir: the cache's store once, then its lookup (file read and
 * checksum; the network round trip comes on top). */
static void warm_compile(const struct hw_rtc_input *in, const struct hw_rtc_output *out,
                         double cold)
{
    char dir[] = "/tmp/hipwire-bench-cache.XXXXXX";
    if (!mkdtemp(dir))
        return;
    struct rtc_cache *c = rtc_cache_create(dir, 1ull << 30);
    uint8_t key[RTC_CACHE_KEY_LEN];
    struct hw_rtc_output hit = { 0 };
    if (c) {
        rtc_cache_key(in, "bench", key);
        rtc_cache_put(c, key, 0, out);
        double best = 1e9;
        for (int i = 0; i < 20; i++) {
            double t0 = now();
            int ok = rtc_cache_get(c, key, 0, &hit);
            double t = now() - t0;
            if (!ok)
                break;
            best = t < best ? t : best;
            free(hit.code);
            free(hit.log);
        }
        if (best < 1e9)
            printf("compile latency: cold %.0f ms, warm (cache hit, %llu bytes) %.3f ms\n",
                   cold * 1e3, (unsigned long long)out->code_size, best * 1e3);
        rtc_cache_destroy(c);
    }
    char path[sizeof dir + 80];
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "%s/%.64s", dir, e->d_name);
        if (e->d_name[0] != '.')
            unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    if (hw_cli_help_version(argc, argv, "hipwire-bench-cpu-device",
                            "usage: hipwire-bench-cpu-device [--quick]\n"
                            "The CPU device's fiber switch, barrier, tiled matmul and shuffle "
                            "reduction against plain C on the same cores.\n"))
        return 0;
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int reps = quick ? 1 : 5;
    int threads = cpu_sched_threads();
    printf("hipwire CPU device: %d pool threads, warpSize %d\n", threads, HIPWIRE_CPU_WARP_SIZE);
    printf("fiber switch: %.1f ns\n", switch_ns());

    struct hw_rtc_input in = {
        .name = "bench.hip", .source = source, .timeout_ms = 120000, .max_output = 64ull << 20
    };
    struct hw_rtc_output out = { 0 };
    double t0 = now();
    if (rtc_host_compile(&in, &out) != HW_OK || out.result != HW_RTC_SUCCESS) {
        fprintf(stderr, "compile failed:\n%s\n", out.log ? out.log : "");
        return 1;
    }
    double cold = now() - t0;
    printf("hiprtc compile (host compiler, 2 passes): %.2f s\n", cold);
    warm_compile(&in, &out, cold);
    void *dl = load(out.code, (size_t)out.code_size);
    if (!dl) {
        fprintf(stderr, "load failed: %s\n", dlerror());
        return 1;
    }

    /* A __syncthreads round: 256 threads a block, one block per pool thread. */
    {
        int rounds_b = quick ? 200 : 2000, *res = calloc((size_t)threads, sizeof *res);
        void *params[] = { &rounds_b, &res };
        double t = cpu_now();
        launch(kernel(dl, "barriers"), (uint32_t)threads, 1, 256, 1, params);
        t = cpu_now() - t; /* CPU time of all pool threads */
        printf("__syncthreads: %.1f ns per thread per barrier (256-thread blocks)\n",
               t * 1e9 / ((double)rounds_b * 256 * threads));
        free(res);
    }

    int n = 512;
    float *A = malloc(sizeof(float) * n * n), *B = malloc(sizeof(float) * n * n);
    float *C = malloc(sizeof(float) * n * n), *R = malloc(sizeof(float) * n * n);
    for (int i = 0; i < n * n; i++) {
        A[i] = (float)(i % 17) * 0.125f;
        B[i] = (float)(i % 13) * 0.25f - 1.0f;
    }
    struct mm m = { kernel(dl, "matmul"), A, B, C, n, threads };
    double tdc, thc;
    double td = best_of(reps, dev_matmul, &m, &tdc);
    m.C = R;
    double th = best_of(reps, host_matmul, &m, &thc);
    for (int i = 0; i < n * n; i++)
        if (C[i] != R[i]) {
            fprintf(stderr, "matmul results differ at %d: %g vs %g\n", i, C[i], R[i]);
            return 1;
        }
    printf("matmul 512x512 fp32, 16x16 tiles: device %.1f ms (%.2f GFLOP/s), plain C %.1f ms "
           "(%.2f GFLOP/s), ratio %.3fx; CPU time %.1f / %.1f ms, ratio %.3fx\n",
           td * 1e3, 2.0 * n * n * n / td / 1e9, th * 1e3, 2.0 * n * n * n / th / 1e9, th / td,
           tdc * 1e3, thc * 1e3, thc / tdc);

    int nb = quick ? 1024 : 16384;
    float *in_v = malloc(sizeof(float) * (size_t)nb * 256), *o1 = malloc(sizeof(float) * nb),
          *o2 = malloc(sizeof(float) * nb);
    for (int i = 0; i < nb * 256; i++)
        in_v[i] = (float)(i % 7);
    struct mm s = { kernel(dl, "block_sum"), in_v, NULL, o1, nb, threads };
    double sdc, shc;
    double sd = best_of(reps, dev_sum, &s, &sdc);
    s.C = o2;
    double sh = best_of(reps, host_sum, &s, &shc);
    for (int i = 0; i < nb; i++)
        if (o1[i] != o2[i]) {
            fprintf(stderr, "block sums differ at %d: %g vs %g\n", i, o1[i], o2[i]);
            return 1;
        }
    printf("block reduction (256 threads, __shfl_down), %d blocks: device %.2f ms, plain C "
           "%.2f ms, ratio %.4fx; CPU time %.2f / %.2f ms, ratio %.4fx\n",
           nb, sd * 1e3, sh * 1e3, sh / sd, sdc * 1e3, shc * 1e3, shc / sdc);
    free(out.code);
    free(out.log);
    free(out.lowered);
    return 0;
}
