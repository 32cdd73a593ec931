/*
 * hipwire/cpu_kernel.h - the kernel ABI of hipwire's CPU device.
 *
 * A CPU-device "code object" is a host shared object (ELF .so for the
 * worker's architecture) that a HIP program loads with hipModuleLoad or
 * hipModuleLoadData. Each kernel in it is described by an exported
 * `struct hipwire_cpu_kernel` named  hipwire_kernel_<kernel name>, which
 * HIPWIRE_CPU_KERNEL() defines:
 *
 *     struct vadd_args { const float *a, *b; float *c; int n; };
 *
 *     static void vadd(const struct hipwire_cpu_ctx *ctx, const struct vadd_args *p)
 *     {
 *         int i = ctx->block_idx.x * ctx->block_dim.x + ctx->thread_idx.x;
 *         if (i < p->n) p->c[i] = p->a[i] + p->b[i];
 *     }
 *     HIPWIRE_CPU_KERNEL(vadd, struct vadd_args,
 *                        HIPWIRE_PARAM(struct vadd_args, a), HIPWIRE_PARAM(struct vadd_args, b),
 *                        HIPWIRE_PARAM(struct vadd_args, c), HIPWIRE_PARAM(struct vadd_args, n));
 *
 * The parameter list gives the kernel's HIP-visible parameters in order; the
 * worker reports their offsets and sizes to the client, which lays out
 * `kernelParams` into one argument buffer exactly as a GPU runtime would.
 * Device pointers in that buffer are worker addresses and are used as is.
 *
 * Execution: the function is called once per thread, blocks in order
 * (x fastest, then y, z), threads within a block in order, all on the
 * stream's worker thread. There is no concurrency between threads of a
 * launch, so __syncthreads()-style barriers, warp shuffles and cooperative
 * groups are NOT supported: a kernel that needs a barrier must be written as
 * one call per block (check thread_idx == 0 and loop over the block itself).
 * `shared` points to the launch's dynamic shared memory (shared_mem bytes,
 * zeroed, one buffer per block, reused for the block's threads).
 */
#ifndef HIPWIRE_CPU_KERNEL_H
#define HIPWIRE_CPU_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#define HIPWIRE_CPU_KERNEL_ABI 1

struct hipwire_dim3 {
    uint32_t x, y, z;
};

struct hipwire_cpu_ctx {
    struct hipwire_dim3 thread_idx;
    struct hipwire_dim3 block_idx;
    struct hipwire_dim3 block_dim;
    struct hipwire_dim3 grid_dim;
    void *shared;
    size_t shared_size;
};

typedef void (*hipwire_cpu_kernel_fn)(const struct hipwire_cpu_ctx *ctx, const void *args);

struct hipwire_cpu_param {
    uint32_t offset;
    uint32_t size;
};

struct hipwire_cpu_kernel {
    uint32_t abi_version;   /* HIPWIRE_CPU_KERNEL_ABI */
    uint32_t param_count;
    uint32_t args_size;     /* sizeof the argument struct */
    uint32_t reserved;
    const struct hipwire_cpu_param *params;
    hipwire_cpu_kernel_fn fn;
    const char *name;
};

#define HIPWIRE_PARAM(type, field) { offsetof(type, field), sizeof(((type *)0)->field) }

#define HIPWIRE_CPU_KERNEL(name, args_type, ...)                                        \
    static const struct hipwire_cpu_param hipwire_params_##name[] = { __VA_ARGS__ };    \
    __attribute__((visibility("default"))) const struct hipwire_cpu_kernel              \
        hipwire_kernel_##name = {                                                       \
            HIPWIRE_CPU_KERNEL_ABI,                                                     \
            sizeof(hipwire_params_##name) / sizeof(hipwire_params_##name[0]),           \
            sizeof(args_type), 0, hipwire_params_##name,                                \
            (hipwire_cpu_kernel_fn)(void (*)(void))name, #name }

#endif
