/*
 * mlp.c - the workload benchmark: a 2-layer MLP trained with SGD on
 * synthetic data, written against the HIP API only, with its kernels in a
 * code object loaded by hipModuleLoad (PTX from mlp_kernels.cu on a GPU,
 * mlp_kernels_cpu.c's .so on the CPU device).
 *
 * The same source is built twice: against hipwire's proxy (hipwire-mlp, the
 * remote run) and against hip_on_cuda.c, a thin HIP-on-CUDA-driver shim
 * (hipwire-mlp-native, the same calls in process on the GPU). mlp_compare
 * runs both and prints them side by side.
 *
 * A step is what a framework's training step looks like to the runtime: 16
 * kernel launches (3 GEMMs forward and backward, bias/ReLU, softmax
 * cross-entropy, a reduction, bias gradients, SGD updates), each surrounded
 * by the queries PyTorch makes per launch (current device twice, two device
 * attributes, the last error after the launch), and one read-back of the
 * loss to the host, as `loss.item()` does every step.
 *
 *   hipwire-mlp [--kernels PATH] [--steps N] [--warmup N] [--batch B]
 *               [--in D] [--hidden H] [--classes C]
 *
 * Prints one line of key=value results (mlp_compare parses it). Exit status
 * 1 when a HIP call failed or the loss did not go down.
 */
#include <hip/hip_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hw_cli.h"

/* hipwire extension (src/client/api_stats.c): requests this process sent
 * the worker and how many waited for a reply; the native shim has none. */
void hipwire_client_stats(unsigned long long *round_trips, unsigned long long *posted);

#define CHECK_HIP(call)                                                             \
    do {                                                                            \
        hipError_t e_ = (call);                                                     \
        if (e_ != hipSuccess) {                                                     \
            fprintf(stderr, "mlp: %s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #call, \
                    hipGetErrorName(e_), (int)e_);                                  \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

static unsigned long long hip_calls; /* every HIP call the step loop makes */

enum {
    K_GEMM_NN,
    K_GEMM_NT,
    K_GEMM_TN,
    K_BIAS_ACT,
    K_XENT,
    K_REDUCE,
    K_COLSUM,
    K_RELU_GRAD,
    K_SGD,
    K_COUNT
};
static const char *const kernel_names[K_COUNT] = { "gemm_nn",  "gemm_nt",      "gemm_tn",
                                                   "bias_act", "softmax_xent", "sum_reduce",
                                                   "colsum",   "relu_grad",    "sgd" };
static hipFunction_t kern[K_COUNT];

/* A launch as a framework makes it: a device guard, launch-configuration
 * queries, the launch, and the error check after it. */
static void launch(int k, unsigned gx, unsigned gy, unsigned bx, unsigned by, void **args)
{
    int dev = -1, dev2 = -1, sms = 0, max_threads = 0;
    CHECK_HIP(hipGetDevice(&dev));
    CHECK_HIP(hipGetDevice(&dev2));
    CHECK_HIP(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev));
    CHECK_HIP(hipDeviceGetAttribute(&max_threads, hipDeviceAttributeMaxThreadsPerBlock, dev));
    if (dev != dev2 || sms <= 0 || bx * by > (unsigned)max_threads) {
        fprintf(stderr, "mlp: device queries disagree (device %d/%d, %d SMs, %d threads)\n", dev,
                dev2, sms, max_threads);
        exit(1);
    }
    CHECK_HIP(hipModuleLaunchKernel(kern[k], gx, gy, 1, bx, by, 1, 0, NULL, args, NULL));
    CHECK_HIP(hipGetLastError());
    hip_calls += 6;
}

/* Grid for a grid-stride kernel over n elements, sized from the SM count
 * as frameworks do. */
static unsigned grid_for(size_t n, int sms)
{
    size_t g = (n + 255) / 256, cap = (size_t)sms * 8;
    return (unsigned)(g < cap ? g : cap);
}

static void gemm(int k, int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                 float *C, int ldc)
{
    float alpha = 1.0f, beta = 0.0f;
    void *args[] = { &M, &N, &K, &A, &lda, &B, &ldb, &C, &ldc, &alpha, &beta };
    launch(k, (unsigned)(N + 63) / 64, (unsigned)(M + 63) / 64, 16, 16, args);
}

static uint32_t rng_state = 12345;

static float uniform(void) /* [-1, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (float)(rng_state >> 8) / (float)(1u << 23) - 1.0f;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static float *dev_array(size_t n)
{
    float *p;
    CHECK_HIP(hipMalloc((void **)&p, n * sizeof(float)));
    return p;
}

static void upload(float *d, const float *h, size_t n)
{
    CHECK_HIP(hipMemcpy(d, h, n * sizeof(float), hipMemcpyHostToDevice));
}

int main(int argc, char **argv)
{
    if (hw_cli_help_version(argc, argv, "hipwire-mlp",
                            "usage: hipwire-mlp [--steps N] [--warmup N] [--batch N] [--in N] "
                            "[--hidden N] [--classes N] [--kernels PATH]\n"
                            "A training step of a small MLP through HIP (docs/benchmarks.md).\n"))
        return 0;
    const char *kernels = getenv("HIPWIRE_MLP_KERNELS");
    int steps = 200, warmup = 20, B = 1024, D = 1024, H = 2048, C = 32;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int *iv = !strcmp(a, "--steps")     ? &steps
                  : !strcmp(a, "--warmup")  ? &warmup
                  : !strcmp(a, "--batch")   ? &B
                  : !strcmp(a, "--in")      ? &D
                  : !strcmp(a, "--hidden")  ? &H
                  : !strcmp(a, "--classes") ? &C
                                            : NULL;
        if ((iv || !strcmp(a, "--kernels")) && i + 1 >= argc) {
            fprintf(stderr, "mlp: %s needs a value\n", a);
            return 2;
        }
        if (iv) {
            *iv = atoi(argv[++i]);
            if (*iv < (iv == &warmup ? 0 : 1)) {
                fprintf(stderr, "mlp: %s %d is out of range\n", a, *iv);
                return 2;
            }
        } else if (!strcmp(a, "--kernels")) {
            kernels = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: %s [--kernels PATH] [--steps N] [--warmup N] [--batch B] "
                    "[--in D] [--hidden H] [--classes C]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!kernels) {
        fprintf(stderr, "mlp: no kernels: give --kernels PATH or HIPWIRE_MLP_KERNELS\n");
        return 2;
    }

    int dev = 0, sms = 0;
    hipDeviceProp_t prop;
    CHECK_HIP(hipSetDevice(0));
    CHECK_HIP(hipGetDevice(&dev));
    CHECK_HIP(hipGetDeviceProperties(&prop, dev));
    CHECK_HIP(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev));
    hipModule_t mod;
    CHECK_HIP(hipModuleLoad(&mod, kernels));
    for (int k = 0; k < K_COUNT; k++)
        CHECK_HIP(hipModuleGetFunction(&kern[k], mod, kernel_names[k]));

    /* Synthetic, learnable data: labels from a random linear teacher. */
    float *hX = malloc((size_t)B * D * sizeof(float)), *hT = malloc((size_t)D * C * sizeof(float));
    int *hy = malloc((size_t)B * sizeof(int));
    float *hW1 = malloc((size_t)D * H * sizeof(float)),
          *hW2 = malloc((size_t)H * C * sizeof(float));
    if (!hX || !hT || !hy || !hW1 || !hW2) {
        fprintf(stderr, "mlp: out of host memory\n");
        return 1;
    }
    for (size_t i = 0; i < (size_t)B * D; i++)
        hX[i] = uniform();
    for (size_t i = 0; i < (size_t)D * C; i++)
        hT[i] = uniform();
    for (int r = 0; r < B; r++) {
        int best = 0;
        float best_v = -INFINITY;
        for (int c = 0; c < C; c++) {
            float v = 0;
            for (int d = 0; d < D; d++)
                v += hX[(size_t)r * D + d] * hT[(size_t)d * C + c];
            if (v > best_v) {
                best_v = v;
                best = c;
            }
        }
        hy[r] = best;
    }
    float s1 = sqrtf(6.0f / (float)(D + H)), s2 = sqrtf(6.0f / (float)(H + C));
    for (size_t i = 0; i < (size_t)D * H; i++)
        hW1[i] = s1 * uniform();
    for (size_t i = 0; i < (size_t)H * C; i++)
        hW2[i] = s2 * uniform();

    float *X = dev_array((size_t)B * D), *W1 = dev_array((size_t)D * H), *b1 = dev_array(H);
    float *Hd = dev_array((size_t)B * H), *W2 = dev_array((size_t)H * C), *b2 = dev_array(C);
    float *Z = dev_array((size_t)B * C), *dZ = dev_array((size_t)B * C);
    float *dW2 = dev_array((size_t)H * C), *db2 = dev_array(C), *dH = dev_array((size_t)B * H);
    float *dW1 = dev_array((size_t)D * H), *db1 = dev_array(H), *row_loss = dev_array(B);
    float *loss_d = dev_array(1);
    int *y;
    CHECK_HIP(hipMalloc((void **)&y, (size_t)B * sizeof(int)));
    upload(X, hX, (size_t)B * D);
    upload(W1, hW1, (size_t)D * H);
    upload(W2, hW2, (size_t)H * C);
    CHECK_HIP(hipMemset(b1, 0, (size_t)H * sizeof(float)));
    CHECK_HIP(hipMemset(b2, 0, (size_t)C * sizeof(float)));
    CHECK_HIP(hipMemcpy(y, hy, (size_t)B * sizeof(int), hipMemcpyHostToDevice));
    CHECK_HIP(hipDeviceSynchronize());

    const float lr = 0.5f;
    float first_loss = NAN, loss = NAN;
    unsigned long long rt0 = 0, rt1 = 0, posted0 = 0, posted1 = 0, calls0 = 0;
    double t0 = 0;
    for (int step = 0; step < warmup + steps; step++) {
        if (step == warmup) {
            hipwire_client_stats(&rt0, &posted0);
            calls0 = hip_calls;
            t0 = now_s();
        }
        int relu = 1, no_relu = 0, n1 = B * H, nW1 = D * H, nW2 = H * C;
        float inv_b = 1.0f / (float)B;
        /* forward */
        gemm(K_GEMM_NN, B, H, D, X, D, W1, H, Hd, H);
        void *a_b1[] = { &Hd, &b1, &B, &H, &relu };
        launch(K_BIAS_ACT, grid_for((size_t)n1, sms), 1, 256, 1, a_b1);
        gemm(K_GEMM_NN, B, C, H, Hd, H, W2, C, Z, C);
        void *a_b2[] = { &Z, &b2, &B, &C, &no_relu };
        launch(K_BIAS_ACT, grid_for((size_t)B * C, sms), 1, 256, 1, a_b2);
        void *a_x[] = { &Z, &y, &B, &C, &dZ, &row_loss };
        launch(K_XENT, (unsigned)(B + 255) / 256, 1, 256, 1, a_x);
        void *a_r[] = { &row_loss, &B, &inv_b, &loss_d };
        launch(K_REDUCE, 1, 1, 256, 1, a_r);
        /* backward */
        gemm(K_GEMM_TN, H, C, B, Hd, H, dZ, C, dW2, C);
        void *a_c2[] = { &dZ, &B, &C, &db2 };
        launch(K_COLSUM, (unsigned)(C + 255) / 256, 1, 256, 1, a_c2);
        gemm(K_GEMM_NT, B, H, C, dZ, C, W2, C, dH, H);
        void *a_rg[] = { &dH, &Hd, &n1 };
        launch(K_RELU_GRAD, grid_for((size_t)n1, sms), 1, 256, 1, a_rg);
        gemm(K_GEMM_TN, D, H, B, X, D, dH, H, dW1, H);
        void *a_c1[] = { &dH, &B, &H, &db1 };
        launch(K_COLSUM, (unsigned)(H + 255) / 256, 1, 256, 1, a_c1);
        /* update */
        float step_lr = lr;
        void *u1[] = { &W1, &dW1, &step_lr, &nW1 }, *u2[] = { &b1, &db1, &step_lr, &H },
             *u3[] = { &W2, &dW2, &step_lr, &nW2 }, *u4[] = { &b2, &db2, &step_lr, &C };
        launch(K_SGD, grid_for((size_t)nW1, sms), 1, 256, 1, u1);
        launch(K_SGD, grid_for((size_t)H, sms), 1, 256, 1, u2);
        launch(K_SGD, grid_for((size_t)nW2, sms), 1, 256, 1, u3);
        launch(K_SGD, grid_for((size_t)C, sms), 1, 256, 1, u4);
        /* the loss, read back every step */
        CHECK_HIP(hipMemcpy(&loss, loss_d, sizeof loss, hipMemcpyDeviceToHost));
        hip_calls++;
        if (!isfinite(loss)) {
            fprintf(stderr, "mlp: loss is %g at step %d\n", loss, step);
            return 1;
        }
        if (step == 0)
            first_loss = loss;
    }
    double t = now_s() - t0;
    hipwire_client_stats(&rt1, &posted1);

    int learned = loss < 0.9f * first_loss;
    printf("mlp: name=\"%s\" batch=%d in=%d hidden=%d classes=%d steps=%d step_ms=%.4f "
           "steps_per_s=%.2f loss_first=%.6f loss_last=%.9g launches_per_step=16 "
           "hip_calls_per_step=%.2f round_trips_per_step=%.3f posted_per_step=%.3f\n",
           prop.name, B, D, H, C, steps, t * 1e3 / steps, steps / t, first_loss, loss,
           (double)(hip_calls - calls0) / steps, (double)(rt1 - rt0) / steps,
           (double)(posted1 - posted0) / steps);
    if (!learned)
        fprintf(stderr, "mlp: the loss did not go down (%g -> %g)\n", first_loss, loss);

    float *bufs[] = { X, W1, b1, Hd, W2, b2, Z, dZ, dW2, db2, dH, dW1, db1, row_loss, loss_d };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        CHECK_HIP(hipFree(bufs[i]));
    CHECK_HIP(hipFree(y));
    CHECK_HIP(hipModuleUnload(mod));
    free(hX);
    free(hT);
    free(hy);
    free(hW1);
    free(hW2);
    return learned ? 0 : 1;
}
