/*
 * api_occupancy.c - occupancy queries and per-function hints, answered in
 * the client from the device properties cached at connect and the kernel's
 * attributes (resolved once, then cached), so a framework that sizes every
 * launch with them pays no round trip. The arithmetic is occupancy_model.c.
 */
#include "client.h"
#include "occupancy_model.h"

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* The device for an occupancy query: the current one, as in HIP. */
static hipError_t occupancy_device(const struct hipr_devinfo **d)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return err;
    int dev = hw_current_device();
    if (dev < 0 || dev >= c->device_count)
        return hipErrorInvalidDevice;
    *d = &c->devs[dev];
    return hipSuccess;
}

static hipError_t max_active_blocks(int *num_blocks, const void *func, int block_size,
                                    size_t dyn_shared, unsigned flags)
{
    const struct hipr_devinfo *d = NULL;
    const struct hw_function *f = NULL;
    hipError_t err;
    if (!num_blocks || block_size <= 0 ||
        flags > 1) /* hipOccupancyDefault, ...DisableCachingOverride */
        return hipErrorInvalidValue;
    if ((err = occupancy_device(&d)) != hipSuccess ||
        (err = hw_function_of(func, &f)) != hipSuccess)
        return err;
    *num_blocks = hw_resident_blocks(d, &f->info, block_size, dyn_shared);
    return hipSuccess;
}

/* The block size (a multiple of the warp size, at most block_limit) that
 * keeps the most threads resident; ties go to the larger block, as the
 * reference implementations do. */
static hipError_t max_potential_block(int *grid_size, int *block_size, const void *func,
                                      size_t dyn_shared, int block_limit)
{
    const struct hipr_devinfo *d = NULL;
    const struct hw_function *f = NULL;
    hipError_t err;
    if (!grid_size || !block_size || block_limit < 0)
        return hipErrorInvalidValue;
    if ((err = occupancy_device(&d)) != hipSuccess ||
        (err = hw_function_of(func, &f)) != hipSuccess)
        return err;
    int warp = d->warp_size > 0 ? d->warp_size : 64;
    int limit = d->max_threads_per_block;
    if (f->info.max_threads_per_block > 0)
        limit = min_int(limit, f->info.max_threads_per_block);
    if (block_limit > 0)
        limit = min_int(limit, block_limit);
    int best_block = 0, best_blocks = 0;
    long best_threads = 0;
    for (int b = warp; b <= limit; b += warp) {
        int n = hw_resident_blocks(d, &f->info, b, dyn_shared);
        if ((long)n * b >= best_threads && n > 0) {
            best_threads = (long)n * b;
            best_block = b;
            best_blocks = n;
        }
    }
    if (best_block == 0) /* not even one warp fits (shared memory) */
        return hipErrorInvalidValue;
    *block_size = best_block;
    *grid_size = best_blocks * d->multiprocessor_count;
    return hipSuccess;
}

HW_EXPORT hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *f,
                                                                  int blockSize,
                                                                  size_t dynSharedMemPerBlk)
{
    return hw_ret(max_active_blocks(numBlocks, f, blockSize, dynSharedMemPerBlk, 0));
}

HW_EXPORT hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *f, int blockSize, size_t dynSharedMemPerBlk, unsigned int flags)
{
    return hw_ret(max_active_blocks(numBlocks, f, blockSize, dynSharedMemPerBlk, flags));
}

HW_EXPORT hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                        hipFunction_t f,
                                                                        int blockSize,
                                                                        size_t dynSharedMemPerBlk)
{
    return hw_ret(max_active_blocks(numBlocks, f, blockSize, dynSharedMemPerBlk, 0));
}

HW_EXPORT hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, hipFunction_t f, int blockSize, size_t dynSharedMemPerBlk, unsigned int flags)
{
    return hw_ret(max_active_blocks(numBlocks, f, blockSize, dynSharedMemPerBlk, flags));
}

HW_EXPORT hipError_t hipOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize, const void *f,
                                                       size_t dynSharedMemPerBlk,
                                                       int blockSizeLimit)
{
    return hw_ret(max_potential_block(gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit));
}

HW_EXPORT hipError_t hipModuleOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize,
                                                             hipFunction_t f,
                                                             size_t dynSharedMemPerBlk,
                                                             int blockSizeLimit)
{
    return hw_ret(max_potential_block(gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit));
}

HW_EXPORT hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int *gridSize, int *blockSize,
                                                                      hipFunction_t f,
                                                                      size_t dynSharedMemPerBlk,
                                                                      int blockSizeLimit,
                                                                      unsigned int flags)
{
    if (flags > 1)
        return hw_ret(hipErrorInvalidValue);
    return hw_ret(max_potential_block(gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit));
}

/* Hints. AMD hardware has no shared-memory/L1 split and no opt-in for large
 * dynamic LDS, so ROCm accepts these and changes nothing; the proxy does the
 * same after checking the arguments the way ROCm does. */
HW_EXPORT hipError_t hipFuncSetAttribute(const void *func, hipFuncAttribute attr, int value)
{
    const struct hw_function *f = NULL;
    hipError_t err = hw_function_of(func, &f);
    if (err != hipSuccess)
        return hw_ret(err);
    switch (attr) {
    case hipFuncAttributeMaxDynamicSharedMemorySize: {
        const struct hipr_devinfo *d = NULL;
        if ((err = occupancy_device(&d)) != hipSuccess)
            return hw_ret(err);
        uint64_t cap = d->shared_mem_per_block_optin > d->shared_mem_per_block
                           ? d->shared_mem_per_block_optin
                           : d->shared_mem_per_block;
        if (value < 0 || (uint64_t)value > cap)
            return hw_ret(hipErrorInvalidValue);
        return hipSuccess;
    }
    case hipFuncAttributePreferredSharedMemoryCarveout:
        return value < -1 || value > 100 ? hw_ret(hipErrorInvalidValue) : hipSuccess;
    default: return hw_ret(hipErrorInvalidValue);
    }
}

HW_EXPORT hipError_t hipFuncSetCacheConfig(const void *func, hipFuncCache_t config)
{
    const struct hw_function *f = NULL;
    hipError_t err = hw_function_of(func, &f);
    if (err != hipSuccess)
        return hw_ret(err);
    return (unsigned)config > hipFuncCachePreferEqual ? hw_ret(hipErrorInvalidValue) : hipSuccess;
}

HW_EXPORT hipError_t hipFuncSetSharedMemConfig(const void *func, hipSharedMemConfig config)
{
    const struct hw_function *f = NULL;
    hipError_t err = hw_function_of(func, &f);
    if (err != hipSuccess)
        return hw_ret(err);
    return (unsigned)config > hipSharedMemBankSizeEightByte ? hw_ret(hipErrorInvalidValue)
                                                            : hipSuccess;
}
