/* One thread per row, in double. */
extern "C" __global__ void reference(const float *x, float *y, size_t rows, size_t cols)
{
    size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *in = x + r * cols;
    double mx = in[0], s = 0.0;
    for (size_t j = 1; j < cols; j++)
        mx = in[j] > mx ? in[j] : mx;
    for (size_t j = 0; j < cols; j++)
        s += exp((double)in[j] - mx);
    for (size_t j = 0; j < cols; j++)
        y[r * cols + j] = (float)(exp((double)in[j] - mx) / s);
}
