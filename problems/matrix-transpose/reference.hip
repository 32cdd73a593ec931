extern "C" __global__ void reference(const float *in, float *out, size_t rows, size_t cols)
{
    size_t r = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];
}
