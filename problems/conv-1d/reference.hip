extern "C" __global__ void reference(const float *a, const float *b, float *c, size_t n, size_t k)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long r = (long)(k - 1) / 2;
    double s = 0.0;
    for (size_t j = 0; j < k; j++) {
        long p = (long)i + (long)j - r;
        if (p >= 0 && p < (long)n)
            s += (double)a[p] * (double)b[j];
    }
    c[i] = (float)s;
}
