/*
 * ops_native.c - where a NATIVE column plugs in.
 *
 * On a GPU machine the interesting question is "how much does remoting cost
 * against running locally". To answer it, implement struct bench_ops with
 * the local runtime's calls (for the CUDA backend: cudaGetDevice,
 * cudaStreamQuery(0), cudaMemGetInfo, cuModuleLoad + cuLaunchKernel of an
 * empty kernel, cudaDeviceSynchronize, cudaMalloc, cudaMallocHost,
 * cudaMemcpy), put it in its own file (e.g. ops_native_cuda.c, built only
 * when CUDA is found) and return it from bench_native_ops() below. Nothing
 * else changes: every section runs each target in turn and the report gains
 * a column (or row, for the latency section) labelled with ops->name.
 *
 * Keep the native implementation free of HIP symbols: this program is linked
 * against the proxy libamdhip64, so any hip* call goes to the worker.
 */
#include <stddef.h>

#include "bench.h"

#ifdef HIPWIRE_BENCH_NATIVE_CUDA
const struct bench_ops *bench_native_cuda_ops(void);
#endif

const struct bench_ops *bench_native_ops(void)
{
#ifdef HIPWIRE_BENCH_NATIVE_CUDA
    return bench_native_cuda_ops(); /* its init() reports when there is no GPU */
#else
    return NULL;
#endif
}
