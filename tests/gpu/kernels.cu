// Kernels for the GPU tests, compiled to PTX by nvcc and loaded through
// hipModuleLoad. The first group mirrors tests/kernels/vadd_kernels.c (same
// names and parameters) so the CPU integration tests run unchanged on a GPU.
extern "C" {

__device__ int hw_global_table[64] = { 7 };

__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// Per-block sum through shared memory; integers, so the result is exact
// whatever the order of the additions.
__global__ void block_sum(const int *in, long long *out, int n)
{
    __shared__ long long part[1024];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    part[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}

__global__ void count_once(unsigned long long *counter)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        atomicAdd(counter, 1ull);
}

__global__ void empty(int unused)
{
}

__global__ void mixed(char c, double d, short s, long long *out)
{
    if (threadIdx.x == 0)
        *out = (long long)c * 1000000 + (long long)(d * 1000) + s;
}

// Writes through its argument unchecked: given a bad address, a real fault.
__global__ void poke(int *where)
{
    *where = 42;
}

// Busy for ns nanoseconds of the GPU's global timer, on one thread per block.
__global__ void spin_ns(unsigned long long ns, unsigned long long *done)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
    if (threadIdx.x == 0 && done)
        atomicAdd(done, 1ull);
}

__device__ unsigned int pattern(unsigned long long i, unsigned int seed)
{
    return (unsigned int)(i * 2654435761ull) ^ seed ^ (unsigned int)(i >> 32);
}

__global__ void fill_pattern(unsigned int *p, unsigned long long n, unsigned int seed)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        p[i] = pattern(i, seed);
}

__global__ void check_pattern(const unsigned int *p, unsigned long long n, unsigned int seed,
                              unsigned long long *bad)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        if (p[i] != pattern(i, seed))
            atomicAdd(bad, 1ull);
}

} // extern "C"
