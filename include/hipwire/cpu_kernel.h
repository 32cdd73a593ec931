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

/*
 * ABI 2: the kernel is entered once per block-thread, each thread a fiber of
 * the block scheduler (src/backends/cpu/cpu_sched.c). `fn` has the same type
 * but `ctx` points into a struct hipwire_cpu_fiber, which also sits at the
 * top of the fiber's stack: a stack is HIPWIRE_CPU_FIBER_STACK bytes aligned
 * to its size, so device code finds its thread from its stack pointer
 * without thread-local lookups (docs/hip-source.md). hiprtc on the cpu
 * backend produces ABI 2 objects; hand-written ABI 1 objects keep working.
 */
#define HIPWIRE_CPU_KERNEL_ABI_FIBER 2
#define HIPWIRE_CPU_FIBER_STACK      (128u * 1024u)
/* Reserved at the top of a fiber's stack for its struct hipwire_cpu_fiber. */
#define HIPWIRE_CPU_FIBER_SLOT (8u * 1024u)
#define HIPWIRE_CPU_WARP_SIZE  64

struct hipwire_cpu_fiber;

/* The values of one warp-wide step: every live lane's value, and which
 * lanes took part (lanes past the block's end or already returned did not). */
struct hipwire_cpu_warp_step {
    uint64_t value[HIPWIRE_CPU_WARP_SIZE];
    uint64_t arrived;
};

struct hipwire_cpu_fiber {
    struct hipwire_cpu_ctx ctx; /* first: ABI 2 kernels get &fiber->ctx */
    uint32_t lane, warp_size, linear_tid, reserved;
    /* __syncthreads(): returns when every thread of the block reached a
     * barrier or returned. */
    void (*syncthreads)(struct hipwire_cpu_fiber *self);
    /* One lockstep step of the lane's warp: publishes v, returns when every
     * live lane of the warp has published, with the step's values. */
    const struct hipwire_cpu_warp_step *(*warp_step)(struct hipwire_cpu_fiber *self, uint64_t v);
    void *sched; /* the scheduler's, opaque */
    /* A shuffle step: publishes v, returns lane src's value of the same step
     * (src < warp size), or v when src is outside the block, has returned or
     * waits at a barrier. Waits for src alone, not for the whole warp.
     * Appended: objects built before it never read it. */
    uint64_t (*shfl)(struct hipwire_cpu_fiber *self, uint64_t v, uint32_t src);
};

/* The fiber whose stack holds address sp. The record sits in the top slot at
 * an offset that varies with the stack's address: at one fixed offset in
 * every size-aligned stack, all fibers' records would share one cache set. */
static inline struct hipwire_cpu_fiber *hipwire_cpu_fiber_of(uintptr_t sp)
{
    uintptr_t base = sp & ~(uintptr_t)(HIPWIRE_CPU_FIBER_STACK - 1);
    return (struct hipwire_cpu_fiber *)(base + HIPWIRE_CPU_FIBER_STACK - HIPWIRE_CPU_FIBER_SLOT +
                                        (base / HIPWIRE_CPU_FIBER_STACK % 64) * 64);
}

typedef void (*hipwire_cpu_kernel_fn)(const struct hipwire_cpu_ctx *ctx, const void *args);

struct hipwire_cpu_param {
    uint32_t offset;
    uint32_t size;
};

struct hipwire_cpu_kernel {
    uint32_t abi_version; /* HIPWIRE_CPU_KERNEL_ABI */
    uint32_t param_count;
    uint32_t args_size; /* sizeof the argument struct */
    uint32_t reserved;
    const struct hipwire_cpu_param *params;
    hipwire_cpu_kernel_fn fn;
    const char *name;
};

#define HIPWIRE_PARAM(type, field)                        \
    {                                                     \
        offsetof(type, field), sizeof(((type *)0)->field) \
    }

#define HIPWIRE_CPU_KERNEL(name, args_type, ...)                                     \
    static const struct hipwire_cpu_param hipwire_params_##name[] = { __VA_ARGS__ }; \
    __attribute__((visibility("default")))                                           \
    const struct hipwire_cpu_kernel hipwire_kernel_##name = {                        \
        HIPWIRE_CPU_KERNEL_ABI,                                                      \
        sizeof(hipwire_params_##name) / sizeof(hipwire_params_##name[0]),            \
        sizeof(args_type),                                                           \
        0,                                                                           \
        hipwire_params_##name,                                                       \
        (hipwire_cpu_kernel_fn)(void (*)(void))name,                                 \
        #name                                                                        \
    }

#endif
