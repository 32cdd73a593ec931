/* One block, a strided sum per thread in double, then a tree in shared
 * memory: deterministic, and exact enough to judge float solutions. */
extern "C" __global__ void reference(const float *x, float *out, size_t n)
{
    __shared__ double part[256];
    double s = 0.0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        s += x[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[0] = (float)part[0];
}
