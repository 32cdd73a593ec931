/*
 * Occupancy queries, function hints and hipChooseDevice through the proxy,
 * against a real worker's CPU device. The expected occupancy is computed
 * here from the device's own properties (a kernel with no registers or
 * shared memory is limited by threads per multiprocessor alone).
 */
#include <hip/hip_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static int threads_limited(const hipDeviceProp_t *p, int block)
{
    int warps = (block + p->warpSize - 1) / p->warpSize;
    return p->maxThreadsPerMultiProcessor / (warps * p->warpSize);
}

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    hipModule_t mod;
    hipFunction_t vadd;
    HIP_CHECK(hipModuleLoad(&mod, kernels));
    HIP_CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    hipDeviceProp_t p;
    HIP_CHECK(hipGetDeviceProperties(&p, 0));
    struct hipFuncAttributes fa;
    HIP_CHECK(hipFuncGetAttributes(&fa, (const void *)vadd));
    CHECK(fa.numRegs == 0 && fa.sharedSizeBytes == 0); /* what the formula below assumes */

    int n = -1;
    for (int b = p.warpSize; b <= p.maxThreadsPerBlock; b += p.warpSize) {
        HIP_CHECK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&n, vadd, b, 0));
        CHECK_EQ(n, threads_limited(&p, b));
    }
    HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, (const void *)vadd, 1, 0,
                                                                    hipOccupancyDefault));
    CHECK_EQ(n, threads_limited(&p, 1));
    /* A block the device cannot run, or more shared memory than a block may have. */
    HIP_CHECK(
        hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&n, vadd, p.maxThreadsPerBlock + 1, 0));
    CHECK_EQ(n, 0);
    size_t too_much = p.sharedMemPerBlock > p.maxSharedMemoryPerMultiProcessor
                          ? p.sharedMemPerBlock + 1
                          : p.maxSharedMemoryPerMultiProcessor + 1;
    HIP_CHECK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&n, vadd, 64, too_much));
    CHECK_EQ(n, 0);

    /* The potential block size keeps the most threads resident, ties to the larger block. */
    int grid = 0, block = 0;
    HIP_CHECK(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, vadd, 0, 0));
    int best = 0, best_block = 0;
    for (int b = p.warpSize; b <= p.maxThreadsPerBlock; b += p.warpSize)
        if (threads_limited(&p, b) * b >= best) {
            best = threads_limited(&p, b) * b;
            best_block = b;
        }
    CHECK_EQ(block, best_block);
    CHECK_EQ(grid, threads_limited(&p, block) * p.multiProcessorCount);
    HIP_CHECK(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, vadd, 0, 3 * p.warpSize));
    CHECK(block <= 3 * p.warpSize && block % p.warpSize == 0);
    HIP_EXPECT(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, vadd, too_much, 0),
               hipErrorInvalidValue);

    /* Not a function: each query says so; bad arguments are refused. */
    int dummy;
    HIP_EXPECT(hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, &dummy, 64, 0),
               hipErrorInvalidDeviceFunction);
    HIP_EXPECT(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(NULL, vadd, 64, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&n, vadd, 0, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGetLastError(), hipErrorInvalidValue);

    /* Hints: accepted when valid, refused when not. */
    HIP_CHECK(hipFuncSetCacheConfig((const void *)vadd, hipFuncCachePreferL1));
    HIP_EXPECT(hipFuncSetCacheConfig((const void *)vadd, (hipFuncCache_t)99), hipErrorInvalidValue);
    HIP_CHECK(hipFuncSetSharedMemConfig((const void *)vadd, hipSharedMemBankSizeFourByte));
    HIP_CHECK(hipFuncSetAttribute((const void *)vadd, hipFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)p.sharedMemPerBlock));
    HIP_EXPECT(
        hipFuncSetAttribute((const void *)vadd, hipFuncAttributeMaxDynamicSharedMemorySize, -1),
        hipErrorInvalidValue);
    HIP_EXPECT(
        hipFuncSetAttribute((const void *)vadd, hipFuncAttributePreferredSharedMemoryCarveout, 101),
        hipErrorInvalidValue);
    HIP_EXPECT(hipFuncSetAttribute(&dummy, hipFuncAttributePreferredSharedMemoryCarveout, 50),
               hipErrorInvalidDeviceFunction);

    /* hipChooseDevice: the device satisfying what is asked; nothing asked: device 0. */
    int count = 0, dev = -1;
    HIP_CHECK(hipGetDeviceCount(&count));
    CHECK(count >= 2);
    hipDeviceProp_t want;
    memset(&want, 0, sizeof want);
    HIP_CHECK(hipChooseDevice(&dev, &want));
    CHECK_EQ(dev, 0);
    want.totalGlobalMem = p.totalGlobalMem;
    want.major = p.major;
    strcpy(want.gcnArchName, p.gcnArchName);
    HIP_CHECK(hipChooseDevice(&dev, &want));
    hipDeviceProp_t got;
    HIP_CHECK(hipGetDeviceProperties(&got, dev));
    CHECK(got.totalGlobalMem >= want.totalGlobalMem && got.major >= want.major);
    CHECK(strcmp(got.gcnArchName, p.gcnArchName) == 0);
    HIP_EXPECT(hipChooseDevice(NULL, &want), hipErrorInvalidValue);
    HIP_EXPECT(hipChooseDevice(&dev, NULL), hipErrorInvalidValue);

    HIP_CHECK(hipModuleUnload(mod));
    puts("occupancy and hints: ok");
    return 0;
}
