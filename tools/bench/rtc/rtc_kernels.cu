// The benchmark's kernels in CUDA for nvcc; rtc_kernels.hip is the same
// algorithm as HIP source for hiprtc: keep them in step.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

extern "C" __global__ void block_reduce(const float *in, float *out, int n)
{
    __shared__ float part[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    for (int off = warpSize / 2; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x / warpSize;
        v = lane < nw ? part[lane] : 0.0f;
        for (int off = warpSize / 2; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
