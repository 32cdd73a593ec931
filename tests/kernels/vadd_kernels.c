/* CPU-device kernels used by the integration tests (hipwire/cpu_kernel.h). */
#include <hipwire/cpu_kernel.h>
#include <time.h>

struct vadd_args {
    const float *a;
    const float *b;
    float *c;
    int n;
};

static void vadd(const struct hipwire_cpu_ctx *ctx, const struct vadd_args *p)
{
    int i = (int)(ctx->block_idx.x * ctx->block_dim.x + ctx->thread_idx.x);
    if (i < p->n)
        p->c[i] = p->a[i] + p->b[i];
}
HIPWIRE_CPU_KERNEL(vadd, struct vadd_args, HIPWIRE_PARAM(struct vadd_args, a),
                   HIPWIRE_PARAM(struct vadd_args, b), HIPWIRE_PARAM(struct vadd_args, c),
                   HIPWIRE_PARAM(struct vadd_args, n));

/* Sums each block's slice into out[block]; thread 0 does the block's work
 * because the CPU device has no barriers (see the kernel ABI). */
struct reduce_args {
    const int *in;
    long long *out;
    int n;
};

static void block_sum(const struct hipwire_cpu_ctx *ctx, const struct reduce_args *p)
{
    if (ctx->thread_idx.x != 0)
        return;
    long long s = 0;
    int start = (int)(ctx->block_idx.x * ctx->block_dim.x);
    for (int i = start; i < start + (int)ctx->block_dim.x && i < p->n; i++)
        s += p->in[i];
    p->out[ctx->block_idx.x] = s;
}
HIPWIRE_CPU_KERNEL(block_sum, struct reduce_args, HIPWIRE_PARAM(struct reduce_args, in),
                   HIPWIRE_PARAM(struct reduce_args, out), HIPWIRE_PARAM(struct reduce_args, n));

/* Adds 1 to *counter once per launch: proves each launch ran exactly once. */
struct count_args {
    unsigned long long *counter;
};

static void count_once(const struct hipwire_cpu_ctx *ctx, const struct count_args *p)
{
    if (ctx->thread_idx.x == 0 && ctx->block_idx.x == 0)
        (*p->counter)++;
}
HIPWIRE_CPU_KERNEL(count_once, struct count_args, HIPWIRE_PARAM(struct count_args, counter));

/* Does nothing: measures launch overhead. */
struct empty_args {
    int unused;
};

static void empty(const struct hipwire_cpu_ctx *ctx, const struct empty_args *p)
{
    (void)ctx;
    (void)p;
}
HIPWIRE_CPU_KERNEL(empty, struct empty_args, HIPWIRE_PARAM(struct empty_args, unused));

/* Mixed scalar widths: checks the client lays out kernelParams at the
 * offsets the worker reported (char, double, short, pointer). */
struct mixed_args {
    char c;
    double d;
    short s;
    long long *out;
};

static void mixed(const struct hipwire_cpu_ctx *ctx, const struct mixed_args *p)
{
    if (ctx->thread_idx.x == 0)
        *p->out = (long long)p->c * 1000000 + (long long)(p->d * 1000) + p->s;
}
HIPWIRE_CPU_KERNEL(mixed, struct mixed_args, HIPWIRE_PARAM(struct mixed_args, c),
                   HIPWIRE_PARAM(struct mixed_args, d), HIPWIRE_PARAM(struct mixed_args, s),
                   HIPWIRE_PARAM(struct mixed_args, out));

/* Writes through a pointer argument without checking it: a "kernel fault". */
struct poke_args {
    int *where;
};

static void poke(const struct hipwire_cpu_ctx *ctx, const struct poke_args *p)
{
    (void)ctx;
    *p->where = 42;
}
HIPWIRE_CPU_KERNEL(poke, struct poke_args, HIPWIRE_PARAM(struct poke_args, where));

/* Sleeps ms milliseconds in one thread: a long-running kernel. */
struct sleep_args {
    int ms;
};

static void sleep_ms(const struct hipwire_cpu_ctx *ctx, const struct sleep_args *p)
{
    if (ctx->thread_idx.x != 0 || ctx->block_idx.x != 0)
        return;
    struct timespec ts = { p->ms / 1000, (long)(p->ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}
HIPWIRE_CPU_KERNEL(sleep_ms, struct sleep_args, HIPWIRE_PARAM(struct sleep_args, ms));

/* Busy for ns nanoseconds, like tests/gpu/kernels.cu's spin_ns (which reads
 * the GPU's global timer): a kernel of known length for launch-rate
 * benchmarks. Thread 0 of block 0 spins; done, if set, is incremented. */
struct spin_args {
    unsigned long long ns;
    unsigned long long *done;
};

static void spin_ns(const struct hipwire_cpu_ctx *ctx, const struct spin_args *p)
{
    if (ctx->thread_idx.x != 0 || ctx->block_idx.x != 0)
        return;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((unsigned long long)((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec)) <
           p->ns);
    if (p->done)
        (*p->done)++;
}
HIPWIRE_CPU_KERNEL(spin_ns, struct spin_args, HIPWIRE_PARAM(struct spin_args, ns),
                   HIPWIRE_PARAM(struct spin_args, done));

/* A __device__ global for hipModuleGetGlobal. */
__attribute__((visibility("default"))) int hw_global_table[64] = { 7 };

/* Waits (at most 20 s) until *gate is non-zero, then sets *done: keeps a
 * stream busy for as long as a test needs to observe it. */
struct gate_args {
    const int *gate;
    int *done;
};

static void gate(const struct hipwire_cpu_ctx *ctx, const struct gate_args *p)
{
    if (ctx->thread_idx.x != 0 || ctx->block_idx.x != 0)
        return;
    for (long i = 0; i < 20L * 1000 * 1000 / 50; i++) {
        if (__atomic_load_n(p->gate, __ATOMIC_ACQUIRE) != 0)
            break;
        struct timespec ts = { 0, 50 * 1000 };
        nanosleep(&ts, NULL);
    }
    __atomic_store_n(p->done, 1, __ATOMIC_RELEASE);
}
HIPWIRE_CPU_KERNEL(gate, struct gate_args, HIPWIRE_PARAM(struct gate_args, gate),
                   HIPWIRE_PARAM(struct gate_args, done));

/* Keeps the device busy for `us` microseconds per launch (the first thread
 * of the first block spins): a device slower than its client, for the
 * backpressure and idle-timeout tests (spin_ns above takes 16 bytes of
 * arguments; these tests want the 4-byte form). */
struct spin_us_args {
    unsigned us;
};

static void spin(const struct hipwire_cpu_ctx *ctx, const struct spin_us_args *p)
{
    if (ctx->thread_idx.x != 0 || ctx->block_idx.x != 0)
        return;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < (long)p->us);
}
HIPWIRE_CPU_KERNEL(spin, struct spin_us_args, HIPWIRE_PARAM(struct spin_us_args, us));

/* Planned migration (tests/integration/test_migrate.c): one step of a
 * computation whose state is device memory and the module's global, reached
 * both through pointers stored in device memory (ptrs[0]: the data, ptrs[1]:
 * hw_global_table as hipModuleGetGlobal gave it) and through the global's
 * own symbol. A step lost, run twice or run against other addresses changes
 * the result. */
struct mig_step_args {
    const unsigned long long *ptrs;
    int n;
    int k;
};

static void mig_step(const struct hipwire_cpu_ctx *ctx, const struct mig_step_args *p)
{
    if (ctx->thread_idx.x != 0 || ctx->block_idx.x != 0)
        return;
    int *data = (int *)(unsigned long)p->ptrs[0];
    int *table = (int *)(unsigned long)p->ptrs[1];
    for (int i = 0; i < p->n; i++)
        data[i] = data[i] * 31 + p->k + hw_global_table[i % 64];
    for (int j = 0; j < 64; j++)
        table[j] += j + 1;
}
HIPWIRE_CPU_KERNEL(mig_step, struct mig_step_args, HIPWIRE_PARAM(struct mig_step_args, ptrs),
                   HIPWIRE_PARAM(struct mig_step_args, n), HIPWIRE_PARAM(struct mig_step_args, k));
