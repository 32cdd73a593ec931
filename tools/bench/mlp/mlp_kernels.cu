// Kernels of the MLP workload benchmark (tools/bench/mlp/mlp.c), compiled to
// PTX by nvcc at build time and loaded with hipModuleLoad. mlp_kernels_cpu.c
// has the same kernels, names and parameters for the CPU device.
//
// Matrices are row-major floats. No atomics anywhere: the same inputs give
// the same bits on every run, so the native and remote runs of the
// benchmark must end with the same loss.

// C[M x N] = alpha * op(A)[M x K] . op(B)[K x N] + beta * C, where op(A) is
// A (lda per row) or, with TA, the transpose of a K x M matrix A. 64 x 64
// tiles, 16 x 16 threads of 4 x 4 outputs each.
template <bool TA, bool TB>
__device__ void gemm_tile(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                          float *C, int ldc, float alpha, float beta)
{
    __shared__ float As[16][64 + 1];
    __shared__ float Bs[16][64 + 1];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    float acc[4][4] = { { 0 } };
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int l = tid; l < 16 * 64; l += 256) {
            // Consecutive threads read consecutive addresses in either layout.
            int mm = TA ? l % 64 : l / 16, ka = TA ? l / 64 : l % 16;
            int gi = m0 + mm, gk = k0 + ka;
            As[ka][mm] = gi < M && gk < K ? (TA ? A[(size_t)gk * lda + gi] : A[(size_t)gi * lda + gk])
                                          : 0.0f;
            int nn = TB ? l / 16 : l % 64, kb = TB ? l % 16 : l / 64;
            int gj = n0 + nn, gkb = k0 + kb;
            Bs[kb][nn] = gj < N && gkb < K
                             ? (TB ? B[(size_t)gj * ldb + gkb] : B[(size_t)gkb * ldb + gj])
                             : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < 16; k++) {
            float a[4], b[4];
            for (int i = 0; i < 4; i++)
                a[i] = As[k][ty * 4 + i];
            for (int j = 0; j < 4; j++)
                b[j] = Bs[k][tx + 16 * j];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int r = m0 + ty * 4 + i, c = n0 + tx + 16 * j;
            if (r < M && c < N) {
                float *p = &C[(size_t)r * ldc + c];
                *p = alpha * acc[i][j] + (beta != 0.0f ? beta * *p : 0.0f);
            }
        }
}

extern "C" {

__global__ void gemm_nn(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc, float alpha, float beta)
{
    gemm_tile<false, false>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta);
}

__global__ void gemm_nt(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc, float alpha, float beta)
{
    gemm_tile<false, true>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta);
}

__global__ void gemm_tn(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc, float alpha, float beta)
{
    gemm_tile<true, false>(M, N, K, A, lda, B, ldb, C, ldc, alpha, beta);
}

// Z[r][c] += b[c], then max(0, .) when relu.
__global__ void bias_act(float *Z, const float *b, int rows, int cols, int relu)
{
    size_t n = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = Z[i] + b[i % cols];
        Z[i] = relu && v < 0.0f ? 0.0f : v;
    }
}

// Per row: the cross-entropy of softmax(logits) against the label, and the
// gradient of the mean loss, (softmax - onehot) / rows.
__global__ void softmax_xent(const float *logits, const int *labels, int rows, int cols,
                             float *dlogits, float *row_loss)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *z = logits + (size_t)r * cols;
    float mx = z[0];
    for (int c = 1; c < cols; c++)
        mx = fmaxf(mx, z[c]);
    float sum = 0.0f;
    for (int c = 0; c < cols; c++)
        sum += expf(z[c] - mx);
    int y = labels[r];
    row_loss[r] = logf(sum) - (z[y] - mx);
    for (int c = 0; c < cols; c++)
        dlogits[(size_t)r * cols + c] = (expf(z[c] - mx) / sum - (c == y ? 1.0f : 0.0f)) / rows;
}

// out[0] = scale * sum(in[0..n)), one block of 256 threads.
__global__ void sum_reduce(const float *in, int n, float scale, float *out)
{
    __shared__ float part[256];
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += in[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[0] = part[0] * scale;
}

// db[c] = sum over rows of dZ[r][c]: a bias gradient.
__global__ void colsum(const float *dZ, int rows, int cols, float *db)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    float s = 0.0f;
    for (int r = 0; r < rows; r++)
        s += dZ[(size_t)r * cols + c];
    db[c] = s;
}

// dH *= (H > 0): through the ReLU.
__global__ void relu_grad(float *dH, const float *H, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        if (H[i] <= 0.0f)
            dH[i] = 0.0f;
}

__global__ void sgd(float *W, const float *dW, float lr, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        W[i] -= lr * dW[i];
}

} // extern "C"
