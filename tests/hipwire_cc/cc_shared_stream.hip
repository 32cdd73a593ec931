// Dynamic shared memory (extern __shared__, sized at launch) with
// __syncthreads, and a stream: async copies and launches ordered on it.
#include <hip/hip_runtime.h>
#include <vector>

#include "cc_check.h"

// One block sums its slice: the tree reduction needs every thread's value
// in shared memory before each step.
__global__ void block_sums(const int *in, int *out)
{
    extern __shared__ int buf[];
    unsigned t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = buf[0];
}

int main()
{
    const int blocks = 64, threads = 256, n = blocks * threads;
    std::vector<int> in(n), out(blocks);
    for (int i = 0; i < n; i++)
        in[i] = i % 1000;
    int *din, *dout;
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&dout, blocks * sizeof(int)));
    HIP_CHECK(hipMemcpyAsync(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice, s));
    block_sums<<<blocks, threads, threads * sizeof(int), s>>>(din, dout);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpyAsync(out.data(), dout, blocks * sizeof(int), hipMemcpyDeviceToHost, s));
    HIP_CHECK(hipStreamSynchronize(s));
    int bad = 0;
    for (int b = 0; b < blocks; b++) {
        int want = 0;
        for (int t = 0; t < threads; t++)
            want += in[b * threads + t];
        bad += out[b] != want;
    }
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
    return cc_report("hipwire-cc shared+stream", bad);
}
