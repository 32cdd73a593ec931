/*
 * mlp_kernels_cpu.c - mlp_kernels.cu for hipwire's CPU device (same names,
 * parameters and launch shapes), so the MLP benchmark also runs where there
 * is no GPU (CI). Each kernel does its thread's share with plain loops; the
 * CPU device has no barriers, so the one-block reduction runs on thread 0.
 */
#include <hipwire/cpu_kernel.h>
#include <math.h>

struct gemm_args {
    int M, N, K;
    const float *A;
    int lda;
    const float *B;
    int ldb;
    float *C;
    int ldc;
    float alpha, beta;
};

/* The 4 x 4 outputs the GPU kernel gives thread (tx, ty) of its 64 x 64 tile. */
static void gemm_thread(const struct hipwire_cpu_ctx *ctx, const struct gemm_args *p, int ta,
                        int tb)
{
    int m0 = (int)ctx->block_idx.y * 64, n0 = (int)ctx->block_idx.x * 64;
    int tx = (int)ctx->thread_idx.x, ty = (int)ctx->thread_idx.y;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int r = m0 + ty * 4 + i, c = n0 + tx + 16 * j;
            if (r >= p->M || c >= p->N)
                continue;
            float acc = 0.0f;
            for (int k = 0; k < p->K; k++) {
                float a = ta ? p->A[(size_t)k * p->lda + r] : p->A[(size_t)r * p->lda + k];
                float b = tb ? p->B[(size_t)c * p->ldb + k] : p->B[(size_t)k * p->ldb + c];
                acc += a * b;
            }
            float *out = &p->C[(size_t)r * p->ldc + c];
            *out = p->alpha * acc + (p->beta != 0.0f ? p->beta * *out : 0.0f);
        }
}

#define GEMM_PARAMS                                                                   \
    HIPWIRE_PARAM(struct gemm_args, M), HIPWIRE_PARAM(struct gemm_args, N),           \
        HIPWIRE_PARAM(struct gemm_args, K), HIPWIRE_PARAM(struct gemm_args, A),       \
        HIPWIRE_PARAM(struct gemm_args, lda), HIPWIRE_PARAM(struct gemm_args, B),     \
        HIPWIRE_PARAM(struct gemm_args, ldb), HIPWIRE_PARAM(struct gemm_args, C),     \
        HIPWIRE_PARAM(struct gemm_args, ldc), HIPWIRE_PARAM(struct gemm_args, alpha), \
        HIPWIRE_PARAM(struct gemm_args, beta)

static void gemm_nn(const struct hipwire_cpu_ctx *ctx, const struct gemm_args *p)
{
    gemm_thread(ctx, p, 0, 0);
}
HIPWIRE_CPU_KERNEL(gemm_nn, struct gemm_args, GEMM_PARAMS);

static void gemm_nt(const struct hipwire_cpu_ctx *ctx, const struct gemm_args *p)
{
    gemm_thread(ctx, p, 0, 1);
}
HIPWIRE_CPU_KERNEL(gemm_nt, struct gemm_args, GEMM_PARAMS);

static void gemm_tn(const struct hipwire_cpu_ctx *ctx, const struct gemm_args *p)
{
    gemm_thread(ctx, p, 1, 0);
}
HIPWIRE_CPU_KERNEL(gemm_tn, struct gemm_args, GEMM_PARAMS);

static size_t global_id(const struct hipwire_cpu_ctx *ctx)
{
    return (size_t)ctx->block_idx.x * ctx->block_dim.x + ctx->thread_idx.x;
}

static size_t global_stride(const struct hipwire_cpu_ctx *ctx)
{
    return (size_t)ctx->grid_dim.x * ctx->block_dim.x;
}

struct bias_act_args {
    float *Z;
    const float *b;
    int rows, cols, relu;
};

static void bias_act(const struct hipwire_cpu_ctx *ctx, const struct bias_act_args *p)
{
    size_t n = (size_t)p->rows * p->cols;
    for (size_t i = global_id(ctx); i < n; i += global_stride(ctx)) {
        float v = p->Z[i] + p->b[i % (size_t)p->cols];
        p->Z[i] = p->relu && v < 0.0f ? 0.0f : v;
    }
}
HIPWIRE_CPU_KERNEL(bias_act, struct bias_act_args, HIPWIRE_PARAM(struct bias_act_args, Z),
                   HIPWIRE_PARAM(struct bias_act_args, b),
                   HIPWIRE_PARAM(struct bias_act_args, rows),
                   HIPWIRE_PARAM(struct bias_act_args, cols),
                   HIPWIRE_PARAM(struct bias_act_args, relu));

struct xent_args {
    const float *logits;
    const int *labels;
    int rows, cols;
    float *dlogits, *row_loss;
};

static void softmax_xent(const struct hipwire_cpu_ctx *ctx, const struct xent_args *p)
{
    size_t r = global_id(ctx);
    if (r >= (size_t)p->rows)
        return;
    const float *z = p->logits + r * (size_t)p->cols;
    float mx = z[0];
    for (int c = 1; c < p->cols; c++)
        mx = fmaxf(mx, z[c]);
    float sum = 0.0f;
    for (int c = 0; c < p->cols; c++)
        sum += expf(z[c] - mx);
    int y = p->labels[r];
    p->row_loss[r] = logf(sum) - (z[y] - mx);
    for (int c = 0; c < p->cols; c++)
        p->dlogits[r * (size_t)p->cols + (size_t)c] =
            (expf(z[c] - mx) / sum - (c == y ? 1.0f : 0.0f)) / (float)p->rows;
}
HIPWIRE_CPU_KERNEL(softmax_xent, struct xent_args, HIPWIRE_PARAM(struct xent_args, logits),
                   HIPWIRE_PARAM(struct xent_args, labels), HIPWIRE_PARAM(struct xent_args, rows),
                   HIPWIRE_PARAM(struct xent_args, cols), HIPWIRE_PARAM(struct xent_args, dlogits),
                   HIPWIRE_PARAM(struct xent_args, row_loss));

struct reduce_args {
    const float *in;
    int n;
    float scale;
    float *out;
};

static void sum_reduce(const struct hipwire_cpu_ctx *ctx, const struct reduce_args *p)
{
    if (ctx->thread_idx.x != 0)
        return;
    float s = 0.0f;
    for (int i = 0; i < p->n; i++)
        s += p->in[i];
    p->out[0] = s * p->scale;
}
HIPWIRE_CPU_KERNEL(sum_reduce, struct reduce_args, HIPWIRE_PARAM(struct reduce_args, in),
                   HIPWIRE_PARAM(struct reduce_args, n), HIPWIRE_PARAM(struct reduce_args, scale),
                   HIPWIRE_PARAM(struct reduce_args, out));

struct colsum_args {
    const float *dZ;
    int rows, cols;
    float *db;
};

static void colsum(const struct hipwire_cpu_ctx *ctx, const struct colsum_args *p)
{
    size_t c = global_id(ctx);
    if (c >= (size_t)p->cols)
        return;
    float s = 0.0f;
    for (int r = 0; r < p->rows; r++)
        s += p->dZ[(size_t)r * (size_t)p->cols + c];
    p->db[c] = s;
}
HIPWIRE_CPU_KERNEL(colsum, struct colsum_args, HIPWIRE_PARAM(struct colsum_args, dZ),
                   HIPWIRE_PARAM(struct colsum_args, rows), HIPWIRE_PARAM(struct colsum_args, cols),
                   HIPWIRE_PARAM(struct colsum_args, db));

struct relu_grad_args {
    float *dH;
    const float *H;
    int n;
};

static void relu_grad(const struct hipwire_cpu_ctx *ctx, const struct relu_grad_args *p)
{
    for (size_t i = global_id(ctx); i < (size_t)p->n; i += global_stride(ctx))
        if (p->H[i] <= 0.0f)
            p->dH[i] = 0.0f;
}
HIPWIRE_CPU_KERNEL(relu_grad, struct relu_grad_args, HIPWIRE_PARAM(struct relu_grad_args, dH),
                   HIPWIRE_PARAM(struct relu_grad_args, H),
                   HIPWIRE_PARAM(struct relu_grad_args, n));

struct sgd_args {
    float *W;
    const float *dW;
    float lr;
    int n;
};

static void sgd(const struct hipwire_cpu_ctx *ctx, const struct sgd_args *p)
{
    for (size_t i = global_id(ctx); i < (size_t)p->n; i += global_stride(ctx))
        p->W[i] -= p->lr * p->dW[i];
}
HIPWIRE_CPU_KERNEL(sgd, struct sgd_args, HIPWIRE_PARAM(struct sgd_args, W),
                   HIPWIRE_PARAM(struct sgd_args, dW), HIPWIRE_PARAM(struct sgd_args, lr),
                   HIPWIRE_PARAM(struct sgd_args, n));
