/* Accumulates in double: the reference must be more exact than what it
 * judges. */
extern "C" __global__ void reference(const float *a, const float *b, float *c, size_t m, size_t n,
                                     size_t k)
{
    size_t row = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    size_t col = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (row >= m || col >= n)
        return;
    double s = 0.0;
    for (size_t i = 0; i < k; i++)
        s += (double)a[row * k + i] * (double)b[i * n + col];
    c[row * n + col] = (float)s;
}
