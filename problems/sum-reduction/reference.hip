/* Each block sums a strided share in double and reduces it in shared
 * memory; blocks add their partial sums into out (zeroed by the harness).
 * Many blocks: a single one would take seconds over 2^26 elements on a GPU. */
extern "C" __global__ void reference(const float *x, float *out, size_t n)
{
    __shared__ double part[256];
    double s = 0.0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        s += x[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, (float)part[0]);
}
