/*
 * occupancy_model.c - how many blocks of a kernel stay resident on one
 * compute unit/SM: the limits the hardware enforces on threads, registers
 * and shared memory (LDS).
 *
 * AMD gfx9 devices (GCN/CDNA, every Instinct part) are modelled per SIMD: 4 SIMDs per CU,
 * waves of warp_size lanes, a wave-slot limit and a VGPR file per SIMD that
 * depend on the architecture family (num_regs is the kernel's VGPR count
 * from its code-object metadata). Other devices use the SM model of their
 * properties (regs_per_multiprocessor, max_threads_per_multiprocessor).
 * Not modelled: the per-SM/CU cap on resident blocks (32 on sm_90), SGPR
 * limits, scratch, barrier slots, CU masks.
 */
#include <string.h>

#include "occupancy_model.h"

/* Per-SIMD limits of a GCN/CDNA (gfx9) family: wave slots and VGPRs per
 * lane (gfx90a/gfx94x/gfx95x have 512 unified VGPR+AGPR, gfx908 and older
 * 256; gfx908 and older hold 10 waves per SIMD, the later CDNA parts 8). */
struct amd_simd {
    int waves;
    int vgprs;
    int vgpr_granule;
};

static int amd_simd_limits(const char *arch, struct amd_simd *out)
{
    if (strncmp(arch, "gfx9", 4) != 0)
        return -1; /* RDNA (gfx10+) is not modelled per SIMD */
    if (strncmp(arch, "gfx90a", 6) == 0 || strncmp(arch, "gfx94", 5) == 0 ||
        strncmp(arch, "gfx95", 5) == 0)
        *out = (struct amd_simd){ .waves = 8, .vgprs = 512, .vgpr_granule = 8 };
    else
        *out = (struct amd_simd){ .waves = 10, .vgprs = 256, .vgpr_granule = 4 };
    return 0;
}

static int round_up(int v, int to)
{
    return to > 0 ? (v + to - 1) / to * to : v;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

int hw_resident_blocks(const struct hipr_devinfo *d, const struct hipr_function_rep *f,
                       int block_size, uint64_t dyn_shared)
{
    int warp = d->warp_size > 0 ? d->warp_size : 64;
    int fn_max = f->max_threads_per_block > 0 ? f->max_threads_per_block : d->max_threads_per_block;
    if (block_size <= 0 || block_size > fn_max || block_size > d->max_threads_per_block)
        return 0;

    uint64_t shared = (uint64_t)(f->shared_size_bytes > 0 ? f->shared_size_bytes : 0) + dyn_shared;
    if (shared > d->shared_mem_per_block_optin && shared > d->shared_mem_per_block)
        return 0;
    int by_shared = shared ? (int)(d->shared_mem_per_multiprocessor / shared) : 1 << 30;

    int warps = (block_size + warp - 1) / warp;
    int regs = f->num_regs > 0 ? f->num_regs : 0;
    int by_regs, by_threads;
    struct amd_simd simd;
    if (amd_simd_limits(d->arch_name, &simd) == 0) {
        /* Waves of a block are spread over the CU's 4 SIMDs. */
        int waves_per_simd = simd.waves;
        if (regs > 0)
            waves_per_simd =
                min_int(waves_per_simd, simd.vgprs / round_up(regs, simd.vgpr_granule));
        by_regs = 4 * waves_per_simd / warps;
        by_threads = d->max_threads_per_multiprocessor / (warps * warp);
    } else {
        int regs_mp =
            d->regs_per_multiprocessor > 0 ? d->regs_per_multiprocessor : d->regs_per_block;
        by_regs = regs > 0 ? regs_mp / (regs * warps * warp) : 1 << 30;
        by_threads = d->max_threads_per_multiprocessor / (warps * warp);
    }
    int n = min_int(by_threads, min_int(by_regs, by_shared));
    return n > 0 ? n : 0;
}
