/*
 * occupancy_test - the resident-block model behind hipOccupancy*
 * (src/client/occupancy_model.c) on the published limits of two devices:
 * an H100 (SM model) and an MI250X/MI300X-class CDNA CU (per-SIMD model).
 * Expected values are worked out by hand from the vendors' occupancy rules
 * (comments give the arithmetic), not taken from the code under test.
 */
#include <string.h>

#include "occupancy_model.h"
#include "testutil.h"

static struct hipr_devinfo h100(void)
{
    struct hipr_devinfo d;
    memset(&d, 0, sizeof d);
    strcpy(d.arch_name, "sm_90");
    d.warp_size = 32;
    d.max_threads_per_block = 1024;
    d.max_threads_per_multiprocessor = 2048;
    d.regs_per_block = 65536;
    d.regs_per_multiprocessor = 65536;
    d.shared_mem_per_block = 48 * 1024;
    d.shared_mem_per_block_optin = 227 * 1024;
    d.shared_mem_per_multiprocessor = 228 * 1024;
    return d;
}

static struct hipr_devinfo cdna(const char *arch)
{
    struct hipr_devinfo d;
    memset(&d, 0, sizeof d);
    strcpy(d.arch_name, arch);
    d.warp_size = 64;
    d.max_threads_per_block = 1024;
    d.max_threads_per_multiprocessor = 2048;
    d.regs_per_block = 65536;
    d.shared_mem_per_block = 64 * 1024;
    d.shared_mem_per_multiprocessor = 64 * 1024;
    return d;
}

static struct hipr_function_rep kernel(int regs, int static_shared)
{
    struct hipr_function_rep f;
    memset(&f, 0, sizeof f);
    f.max_threads_per_block = 1024;
    f.num_regs = regs;
    f.shared_size_bytes = static_shared;
    return f;
}

int main(void)
{
    struct hipr_devinfo nv = h100();
    struct hipr_function_rep k32 = kernel(32, 0), k64 = kernel(64, 0);
    /* 32 regs x 256 threads = 8192 regs: 8 blocks by registers, 2048/256 = 8 by threads. */
    CHECK_EQ(hw_resident_blocks(&nv, &k32, 256, 0), 8);
    /* 64 regs x 256 = 16384: 65536 / 16384 = 4 blocks (50% occupancy). */
    CHECK_EQ(hw_resident_blocks(&nv, &k64, 256, 0), 4);
    /* 100 KiB dynamic shared per block: 228 / 100 = 2 blocks (needs opt-in, allowed). */
    CHECK_EQ(hw_resident_blocks(&nv, &k32, 128, 100 * 1024), 2);
    /* More than a block may have even with opt-in: none. */
    CHECK_EQ(hw_resident_blocks(&nv, &k32, 128, 228 * 1024), 0);
    /* Block larger than the device allows: none. */
    CHECK_EQ(hw_resident_blocks(&nv, &k32, 2048, 0), 0);
    /* A kernel limited to 256 threads per block. */
    struct hipr_function_rep small = kernel(32, 0);
    small.max_threads_per_block = 256;
    CHECK_EQ(hw_resident_blocks(&nv, &small, 512, 0), 0);
    /* A partial warp occupies a whole one: 33 threads = 2 warps = 64 lanes. */
    CHECK_EQ(hw_resident_blocks(&nv, &k32, 33, 0), 32);

    struct hipr_devinfo mi = cdna("gfx90a:sramecc+:xnack-");
    struct hipr_function_rep v128 = kernel(128, 0), v40 = kernel(40, 0);
    /* 128 VGPRs of 512: 4 waves per SIMD, 16 per CU; 256 threads = 4 waves: 4 blocks. */
    CHECK_EQ(hw_resident_blocks(&mi, &v128, 256, 0), 4);
    /* 40 VGPRs round to 40 (granule 8): 512/40 = 12, capped at 8 waves per SIMD:
     * 32 waves per CU, 2048 threads: 8 blocks of 256. */
    CHECK_EQ(hw_resident_blocks(&mi, &v40, 256, 0), 8);
    /* 32 KiB static LDS of 64 KiB per CU: 2 blocks. */
    struct hipr_function_rep lds = kernel(40, 32 * 1024);
    CHECK_EQ(hw_resident_blocks(&mi, &lds, 256, 0), 2);
    /* LDS over a workgroup's 64 KiB: none. */
    CHECK_EQ(hw_resident_blocks(&mi, &lds, 256, 33 * 1024), 0);
    /* gfx908 (MI100): 256 VGPRs per lane, 10 wave slots: 128 VGPRs -> 2 waves per
     * SIMD, 8 per CU: 2 blocks of 256 threads. */
    struct hipr_devinfo mi100 = cdna("gfx908");
    CHECK_EQ(hw_resident_blocks(&mi100, &v128, 256, 0), 2);
    /* 1024-thread blocks = 16 waves; 128 VGPRs on gfx90a allow 16 per CU: 1. */
    CHECK_EQ(hw_resident_blocks(&mi, &v128, 1024, 0), 1);
    puts("occupancy model: ok");
    return 0;
}
