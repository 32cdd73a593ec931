/* device_tools.c - the harness's own kernels, compiled with the problem's
 * reference into one module (one hiprtc compile): inputs are generated and
 * outputs compared on the device, so a GPU-sized test moves a few bytes,
 * not its buffers, between host and device on every iteration. */
#include "runner.h"

const char runner_device_tools_src[] =
    "\n"
    "extern \"C\" __global__ void hipwire_fill_uniform(float *p, size_t n,\n"
    "    unsigned long long seed, float lo, float hi)\n"
    "{\n"
    "    size_t stride = (size_t)gridDim.x * blockDim.x;\n"
    "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {\n"
    "        unsigned long long z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;\n"
    "        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
    "        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;\n"
    "        z ^= z >> 31;\n"
    "        p[i] = lo + (hi - lo) * (float)((double)(z >> 40) * (1.0 / 16777216.0));\n"
    "    }\n"
    "}\n"
    /* st[0] mismatches, st[1] first mismatch (atomicMin), st[2] largest
     * difference as float bits (non-negative floats order as integers),
     * sum: the differences' sum. Reduced per block first. */
    "extern \"C\" __global__ void hipwire_compare(const float *got, const float *want, size_t n,\n"
    "    float rtol, float atol, int exact, unsigned long long *st, double *sum)\n"
    "{\n"
    "    __shared__ unsigned long long s_bad[256], s_first[256], s_max[256];\n"
    "    __shared__ double s_sum[256];\n"
    "    unsigned long long bad = 0, first = ~0ull, mx = 0;\n"
    "    double total = 0.0;\n"
    "    size_t stride = (size_t)gridDim.x * blockDim.x;\n"
    "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {\n"
    "        float g = got[i], w = want[i];\n"
    "        float d = fabsf(g - w);\n"
    "        bool finite = isfinite(g);\n"
    "        bool ok = finite && (exact ? g == w : d <= atol + rtol * fabsf(w));\n"
    "        if (!finite) d = __int_as_float(0x7f800000);\n"
    "        else total += d;\n"
    "        unsigned long long bits = (unsigned long long)(unsigned)__float_as_int(d);\n"
    "        if (bits > mx) mx = bits;\n"
    "        if (!ok) { bad++; if (i < first) first = i; }\n"
    "    }\n"
    "    unsigned t = threadIdx.x;\n"
    "    s_bad[t] = bad; s_first[t] = first; s_max[t] = mx; s_sum[t] = total;\n"
    "    __syncthreads();\n"
    "    for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {\n"
    "        if (t < w) {\n"
    "            s_bad[t] += s_bad[t + w];\n"
    "            if (s_first[t + w] < s_first[t]) s_first[t] = s_first[t + w];\n"
    "            if (s_max[t + w] > s_max[t]) s_max[t] = s_max[t + w];\n"
    "            s_sum[t] += s_sum[t + w];\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0) {\n"
    "        atomicAdd(&st[0], s_bad[0]);\n"
    "        atomicMin(&st[1], s_first[0]);\n"
    "        atomicMax(&st[2], s_max[0]);\n"
    "        atomicAdd(sum, s_sum[0]);\n"
    "    }\n"
    "}\n";

/* Blocks for a grid-stride loop over n: enough to fill a GPU, few on the
 * CPU device where each block is a fiber scheduling round. */
static unsigned blocks_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return b > 1024 ? 1024 : (b ? (unsigned)b : 1);
}

hipError_t tools_fill(struct rtc_kernel *k, float *p, size_t n, uint64_t seed, float lo, float hi)
{
    unsigned long long s = seed;
    void *argv[] = { &p, &n, &s, &lo, &hi };
    return hipModuleLaunchKernel(k->fill, blocks_for(n), 1, 1, 256, 1, 1, 0, NULL, argv, NULL);
}

hipError_t tools_compare(struct rtc_kernel *k, const float *got, const float *want, size_t n,
                         float rtol, float atol, int exact, struct compare_result *out)
{
    unsigned long long *st = NULL;
    double *sum = NULL;
    unsigned long long init[3] = { 0, ~0ull, 0 }, res[3];
    double total = 0;
    hipError_t e = hipMalloc((void **)&st, sizeof init);
    if (e == hipSuccess)
        e = hipMalloc((void **)&sum, sizeof total);
    if (e == hipSuccess)
        e = hipMemcpyHtoD(st, init, sizeof init);
    if (e == hipSuccess)
        e = hipMemcpyHtoD(sum, &total, sizeof total);
    if (e == hipSuccess) {
        void *argv[] = { &got, &want, &n, &rtol, &atol, &exact, &st, &sum };
        e = hipModuleLaunchKernel(k->compare, blocks_for(n), 1, 1, 256, 1, 1, 0, NULL, argv, NULL);
    }
    if (e == hipSuccess)
        e = hipMemcpyDtoH(res, st, sizeof res);
    if (e == hipSuccess)
        e = hipMemcpyDtoH(&total, sum, sizeof total);
    if (e == hipSuccess) {
        unsigned bits = (unsigned)res[2];
        float mx;
        memcpy(&mx, &bits, sizeof mx);
        out->bad = res[0];
        out->first = res[1];
        out->max_diff = mx;
        out->mean_diff = n ? total / (double)n : 0;
    }
    if (st)
        hipFree(st);
    if (sum)
        hipFree(sum);
    return e;
}
