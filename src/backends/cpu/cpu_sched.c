/*
 * cpu_sched.c - runs ABI 2 kernels: a pool of threads (one per core) takes
 * blocks in turn; each runs the threads of its block as fibers.
 *
 * Within a block, fibers run warp by warp. A fiber runs until it returns,
 * reaches __syncthreads (state BAR), or waits in a warp step for a lane that
 * has not published that step yet (state WAIT); then it switches straight to
 * the lane it waits for, or to the next runnable lane of its warp, or back to
 * the scheduler's loop when the warp has none. When every lane of every warp
 * is at the barrier or done, the barrier opens. Returned threads count as
 * arrived, as on AMD hardware.
 *
 * Warp steps are counted per lane; a lane's n-th step writes its value into
 * slot n of its warp's ring and reads the slot's values. A shuffle waits only
 * for its source lane (a lane that returned or waits at the barrier gives the
 * reader its own value), so a reduction's lanes run their shuffle chains
 * nearly without switching; __ballot and the like wait for every live lane.
 * A lane may run at most RING steps ahead of the slowest live lane of its
 * warp (then it runs that one), so no slot is overwritten before every lane
 * has read it. A lane's reads all happen at its own step number, so the
 * values it sees are the ones a lockstep warp would see, as long as the
 * lanes of a warp take the same sequence of steps (HIP's maskless functions
 * require that); the counts are evened at every barrier.
 *
 * A fiber's stack is prepared once: fiber_main loops, parking as DONE after
 * each thread it runs, so the next block resumes it without a new frame.
 *
 * __shared__ variables are thread_local in device code (the prelude): every
 * fiber of a block runs on one pool thread, and a pool thread runs one block
 * at a time.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "cpu_fiber.h"
#include "cpu_sched.h"
#include "hw_log.h"
#include "hw_os.h"

#define MAX_THREADS  1024
#define WARP         HIPWIRE_CPU_WARP_SIZE
#define MAX_WARPS    (MAX_THREADS / WARP)
#define RING         16 /* warp steps a lane may run ahead of its warp's slowest */
#define NO_WAITER    UINT32_MAX
#define ALT_STACK    (64 * 1024)
#define END_GRACE_MS 2000

enum { F_READY, F_WAIT, F_BAR, F_DONE };

/* Where hipwire_cpu_fiber_of() says. What the scheduler reads in its loops
 * (states, stack pointers, step counts) lives in dense arrays of the pool
 * thread, not here: one cache line per fiber for a byte of state would be a
 * miss each. */
struct fib {
    struct hipwire_cpu_fiber pub;
    uint32_t index;
    struct pool_thread *pt;
};

_Static_assert(sizeof(struct fib) + 64 * 64 <= HIPWIRE_CPU_FIBER_SLOT, "fiber slot too small");

struct launch {
    const struct hipwire_cpu_kernel *k;
    uint32_t grid[3], block[3], shared_mem;
    const void *args;
    uint64_t nblocks;
    _Atomic uint64_t next;
};

struct slot {
    struct hipwire_cpu_warp_step s;
    uint32_t step; /* the step number whose values s holds */
};

struct warp {
    uint32_t lo, hi;   /* its threads */
    uint32_t runnable; /* lanes READY or WAIT */
    uint32_t min_done; /* no live lane has completed fewer steps */
    int stepped;       /* a lane took a warp step since the last barrier */
    struct slot ring[RING];
};

struct pool_thread {
    pthread_t thread;
    void *stacks[MAX_THREADS];
    uint32_t nstacks;
    void *sched_sp;
    uint32_t n; /* threads in the running block */
    void *sp[MAX_THREADS];
    uint8_t state[MAX_THREADS];
    uint32_t done[MAX_THREADS];   /* warp steps completed */
    uint32_t waiter[MAX_THREADS]; /* a lane that switched here to wait for this one */
    const struct launch *set_up;  /* the launch the fibers' records describe */
    void *dyn_shared;
    size_t dyn_cap;
    struct warp warps[MAX_WARPS];
};

static struct {
    pthread_once_t once;
    int ok, n;
    struct pool_thread *threads;
    pthread_mutex_t lock; /* one launch at a time */
    pthread_mutex_t mu;
    pthread_cond_t go, finished;
    uint64_t gen;   /* launches started */
    int checked_in; /* threads done with the current launch */
    struct launch *cur;
    _Atomic int running;
    const void *_Atomic owner; /* of the running launch (cpu_sched_launch) */
    const char *kernel_name;
} pool = { .once = PTHREAD_ONCE_INIT,
           .lock = PTHREAD_MUTEX_INITIALIZER,
           .mu = PTHREAD_MUTEX_INITIALIZER,
           .go = PTHREAD_COND_INITIALIZER,
           .finished = PTHREAD_COND_INITIALIZER };

static __thread const char *tl_kernel; /* set while a pool thread runs a kernel */

static struct fib *fib_of(void *stack)
{
    return (struct fib *)hipwire_cpu_fiber_of((uintptr_t)stack);
}

static int runnable(const struct pool_thread *pt, uint32_t i)
{
    return pt->state[i] <= F_WAIT;
}

/* ---- what device code calls ------------------------------------------------ */

/* Leaves fiber i (its state already set) for fiber j of the same warp:
 * returns when i is resumed, running. */
static void switch_to(struct pool_thread *pt, uint32_t i, uint32_t j)
{
    hw_fiber_switch(&pt->sp[i], pt->sp[j]);
    pt->state[i] = F_READY;
}

/* Parks fiber i at the barrier or done, and resumes the lane that waits for
 * it, else the next runnable lane of its warp, else the scheduler. */
static void park(struct pool_thread *pt, uint32_t i, int state)
{
    struct warp *w = &pt->warps[i / WARP];
    pt->state[i] = (uint8_t)state;
    if (--w->runnable) {
        uint32_t j = pt->waiter[i];
        if (j != NO_WAITER) {
            pt->waiter[i] = NO_WAITER;
            if (runnable(pt, j)) {
                hw_fiber_switch(&pt->sp[i], pt->sp[j]);
                return;
            }
        }
        for (j = i + 1; j < w->hi; j++)
            if (runnable(pt, j)) {
                hw_fiber_switch(&pt->sp[i], pt->sp[j]);
                return;
            }
        for (j = w->lo; j < i; j++)
            if (runnable(pt, j)) {
                hw_fiber_switch(&pt->sp[i], pt->sp[j]);
                return;
            }
    }
    hw_fiber_switch(&pt->sp[i], pt->sched_sp);
}

static void do_syncthreads(struct hipwire_cpu_fiber *self)
{
    struct fib *f = (struct fib *)self;
    park(f->pt, f->index, F_BAR);
}

/* Lane i waits for lane j (runnable) to make progress. */
static void wait_for(struct pool_thread *pt, uint32_t i, uint32_t j)
{
    pt->state[i] = F_WAIT;
    pt->waiter[j] = i;
    switch_to(pt, i, j);
}

/* Publishes lane i's value v for its next step, first waiting until the
 * ring slot is free; the slot. */
static struct slot *publish(struct pool_thread *pt, uint32_t i, uint64_t v)
{
    struct warp *w = &pt->warps[i / WARP];
    uint32_t s = pt->done[i];
    w->stepped = 1;
    while (s - w->min_done >= RING) {
        /* Slot s % RING may still hold a step some lane has to read. */
        uint32_t min = s, lag = i;
        for (uint32_t j = w->lo; j < w->hi; j++)
            if (runnable(pt, j) && pt->done[j] < min) {
                min = pt->done[j];
                lag = j;
            }
        w->min_done = min;
        if (s - min < RING)
            break;
        wait_for(pt, i, lag);
    }
    struct slot *sl = &w->ring[s % RING];
    if (sl->step != s) {
        sl->step = s;
        sl->s.arrived = 0;
    }
    sl->s.value[i - w->lo] = v;
    sl->s.arrived |= 1ull << (i - w->lo);
    return sl;
}

static uint64_t do_shfl(struct hipwire_cpu_fiber *self, uint64_t v, uint32_t src)
{
    struct fib *f = (struct fib *)self;
    struct pool_thread *pt = f->pt;
    uint32_t i = f->index, lo = i - self->lane, j = lo + src;
    struct slot *sl = publish(pt, i, v);
    uint64_t r = v;
    if (j < pt->n) {
        /* j publishes its step, or parks at the barrier or returns first. */
        while (!(sl->s.arrived >> src & 1) && runnable(pt, j))
            wait_for(pt, i, j);
        if (sl->s.arrived >> src & 1)
            r = sl->s.value[src];
    }
    pt->done[i]++;
    return r;
}

static const struct hipwire_cpu_warp_step *do_warp_step(struct hipwire_cpu_fiber *self, uint64_t v)
{
    struct fib *f = (struct fib *)self;
    struct pool_thread *pt = f->pt;
    uint32_t i = f->index;
    struct warp *w = &pt->warps[i / WARP];
    struct slot *sl = publish(pt, i, v);
    for (uint32_t j = w->lo; j < w->hi; j++)
        while (!(sl->s.arrived >> (j - w->lo) & 1) && runnable(pt, j))
            wait_for(pt, i, j);
    pt->done[i]++;
    return &sl->s; /* read before this lane's next step: not overwritten till then */
}

static void fiber_main(void *arg)
{
    struct fib *f = arg;
    for (;;) {
        const struct launch *l = f->pub.sched;
        l->k->fn(&f->pub.ctx, l->args);
        park(f->pt, f->index, F_DONE); /* resumed for the same thread of a later block */
    }
}

/* ---- one block ------------------------------------------------------------- */

/* The records of a launch's threads: what does not change from block to block. */
static void set_up(struct pool_thread *pt, const struct launch *l)
{
    uint32_t n = l->block[0] * l->block[1] * l->block[2];
    for (uint32_t i = 0; i < n; i++) {
        struct fib *f = fib_of(pt->stacks[i]);
        f->pub.ctx = (struct hipwire_cpu_ctx){
            .thread_idx = { i % l->block[0], i / l->block[0] % l->block[1],
                            i / l->block[0] / l->block[1] },
            .block_dim = { l->block[0], l->block[1], l->block[2] },
            .grid_dim = { l->grid[0], l->grid[1], l->grid[2] },
            .shared = pt->dyn_shared,
            .shared_size = l->shared_mem,
        };
        f->pub.lane = i % WARP;
        f->pub.warp_size = WARP;
        f->pub.linear_tid = i;
        f->pub.syncthreads = do_syncthreads;
        f->pub.warp_step = do_warp_step;
        f->pub.shfl = do_shfl;
        f->pub.sched = (void *)l;
    }
    pt->set_up = l;
}

static void run_block(struct pool_thread *pt, const struct launch *l, uint64_t b)
{
    uint32_t n = l->block[0] * l->block[1] * l->block[2];
    uint32_t nwarps = (n + WARP - 1) / WARP;
    struct hipwire_dim3 bidx = { (uint32_t)(b % l->grid[0]),
                                 (uint32_t)(b / l->grid[0] % l->grid[1]),
                                 (uint32_t)(b / l->grid[0] / l->grid[1]) };
    if (pt->set_up != l)
        set_up(pt, l);
    pt->n = n;
    for (uint32_t i = 0; i < n; i++) {
        fib_of(pt->stacks[i])->pub.ctx.block_idx = bidx;
        pt->state[i] = F_READY;
        pt->done[i] = 0;
        pt->waiter[i] = NO_WAITER;
    }
    for (uint32_t w = 0; w < nwarps; w++) {
        struct warp *wp = &pt->warps[w];
        wp->lo = w * WARP;
        wp->hi = wp->lo + WARP < n ? wp->lo + WARP : n;
        wp->runnable = wp->hi - wp->lo;
        wp->min_done = 0;
        wp->stepped = 0;
        for (uint32_t r = 0; r < RING; r++)
            wp->ring[r].step = UINT32_MAX - r; /* never a step number seen soon */
    }
    for (;;) {
        uint32_t ndone = 0;
        for (uint32_t w = 0; w < nwarps; w++) {
            struct warp *wp = &pt->warps[w];
            for (uint32_t i = wp->lo; wp->runnable;) {
                while (!runnable(pt, i))
                    i = i + 1 < wp->hi ? i + 1 : wp->lo;
                hw_fiber_switch(&pt->sched_sp, pt->sp[i]);
            }
            for (uint32_t i = wp->lo; i < wp->hi; i++)
                ndone += pt->state[i] == F_DONE;
        }
        if (ndone == n)
            return;
        /* The barrier opens; the lanes' step counts are evened (they are
         * equal unless lanes of a warp took different numbers of steps). */
        for (uint32_t w = 0; w < nwarps; w++) {
            struct warp *wp = &pt->warps[w];
            if (wp->stepped) {
                uint32_t max = 0;
                for (uint32_t i = wp->lo; i < wp->hi; i++)
                    max = pt->done[i] > max ? pt->done[i] : max;
                for (uint32_t i = wp->lo; i < wp->hi; i++) {
                    pt->done[i] = max;
                    pt->waiter[i] = NO_WAITER;
                }
                wp->min_done = max;
                wp->stepped = 0;
            }
            for (uint32_t i = wp->lo; i < wp->hi; i++)
                if (pt->state[i] == F_BAR) {
                    pt->state[i] = F_READY;
                    wp->runnable++;
                }
        }
    }
}

/* Stacks and dynamic shared memory for a launch; 0 or -1. */
static int prepare(struct pool_thread *pt, const struct launch *l)
{
    uint32_t n = l->block[0] * l->block[1] * l->block[2];
    while (pt->nstacks < n) {
        void *s = hw_fiber_stack_alloc(HIPWIRE_CPU_FIBER_STACK);
        if (!s)
            return -1;
        struct fib *f = fib_of(s);
        f->index = pt->nstacks;
        f->pt = pt;
        pt->sp[pt->nstacks] = hw_fiber_prepare(f, fiber_main, f);
        pt->stacks[pt->nstacks++] = s;
    }
    if (l->shared_mem > pt->dyn_cap) {
        /* 64-byte aligned like a GPU's LDS allocation at least is. */
        void *p = hw_os_aligned_alloc(64, l->shared_mem);
        if (!p)
            return -1;
        hw_os_aligned_free(pt->dyn_shared);
        pt->dyn_shared = p;
        pt->dyn_cap = l->shared_mem;
    }
    pt->set_up = NULL; /* a launch may reuse an address of an earlier one */
    return 0;
}

/* ---- faults ---------------------------------------------------------------- */

static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static void put_str(char *buf, size_t *k, size_t cap, const char *s)
{
    while (*s && *k + 1 < cap)
        buf[(*k)++] = *s++;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const char *name = tl_kernel;
    if (!name)
        return; /* SA_RESETHAND: not a kernel's fault, so the default action follows */
    char buf[512], hex[19] = "0x";
    size_t k = 0;
    uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < 16; i++)
        hex[2 + i] = "0123456789abcdef"[(a >> (60 - 4 * i)) & 15];
    hex[18] = '\0';
    put_str(buf, &k, sizeof buf, "hip-worker: cpu: kernel ");
    put_str(buf, &k, sizeof buf, name);
    put_str(buf, &k, sizeof buf,
            sig == SIGSEGV   ? " faulted (SIGSEGV"
            : sig == SIGBUS  ? " faulted (SIGBUS"
            : sig == SIGFPE  ? " faulted (SIGFPE"
            : sig == SIGABRT ? " aborted (SIGABRT"
                             : " faulted (SIGILL");
    put_str(buf, &k, sizeof buf, " at ");
    put_str(buf, &k, sizeof buf, hex);
    put_str(buf, &k, sizeof buf, "): the session ends\n");
    ssize_t w = write(2, buf, k);
    (void)w;
    _exit(70);
}

static void *pool_main(void *arg)
{
    struct pool_thread *pt = arg;
    stack_t alt = { .ss_sp = hw_malloc(ALT_STACK), .ss_size = ALT_STACK };
    if (alt.ss_sp)
        sigaltstack(&alt, NULL); /* a fiber that overflows its stack still gets reported */
    /* Created with every signal blocked (the session's signals stay with its
     * own threads); a blocked fault signal would kill without the handler. */
    sigset_t faults;
    sigemptyset(&faults);
    for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
        sigaddset(&faults, fault_signals[i]);
    pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool.mu);
        while (pool.gen == seen)
            pthread_cond_wait(&pool.go, &pool.mu);
        seen = pool.gen;
        struct launch *l = pool.cur;
        pthread_mutex_unlock(&pool.mu);

        if (prepare(pt, l) == 0) {
            tl_kernel = l->k->name ? l->k->name : "?";
            uint64_t b;
            while ((b = atomic_fetch_add(&l->next, 1)) < l->nblocks)
                run_block(pt, l, b);
            tl_kernel = NULL;
        } else {
            hw_error("cpu: cannot allocate fiber stacks for a block of %u threads",
                     l->block[0] * l->block[1] * l->block[2]);
        }
        pthread_mutex_lock(&pool.mu);
        if (++pool.checked_in == pool.n)
            pthread_cond_signal(&pool.finished);
        pthread_mutex_unlock(&pool.mu);
    }
    return NULL;
}

/* Computed, not taken from the pool: device info may be asked before the
 * session process forks, and threads do not survive a fork. */
int cpu_sched_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("HIPWIRE_CPU_THREADS");
    if (env && atoi(env) > 0)
        n = atoi(env);
    if (n < 1)
        n = 1;
    return n > 256 ? 256 : (int)n;
}

static void pool_init(void)
{
    int n = cpu_sched_threads();
    pool.threads = hw_calloc((size_t)n, sizeof *pool.threads);
    if (!pool.threads)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
        sigaction(fault_signals[i], &sa, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int i = 0; i < n; i++) {
        if (pthread_create(&pool.threads[i].thread, NULL, pool_main, &pool.threads[i]) != 0)
            break;
        pool.n++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pool.ok = pool.n > 0;
}

static uint64_t timeout_s(void)
{
    const char *env = getenv("HIPWIRE_CPU_KERNEL_TIMEOUT");
    return env ? strtoull(env, NULL, 10) : 0;
}

int cpu_sched_launch(const struct hipwire_cpu_kernel *k, const uint32_t grid[3],
                     const uint32_t block[3], uint32_t shared_mem, const void *args,
                     const void *owner)
{
    pthread_once(&pool.once, pool_init);
    if (!pool.ok)
        return -1;
    uint32_t n = block[0] * block[1] * block[2];
    if (n == 0 || n > MAX_THREADS)
        return -1;
    struct launch l = { .k = k,
                        .shared_mem = shared_mem,
                        .args = args,
                        .nblocks = (uint64_t)grid[0] * grid[1] * grid[2] };
    memcpy(l.grid, grid, sizeof l.grid);
    memcpy(l.block, block, sizeof l.block);
    atomic_init(&l.next, 0);

    uint64_t limit = timeout_s();
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)limit;

    pthread_mutex_lock(&pool.lock);
    pthread_mutex_lock(&pool.mu);
    pool.cur = &l;
    pool.kernel_name = k->name;
    pool.checked_in = 0;
    pool.gen++;
    atomic_store(&pool.owner, owner);
    atomic_store(&pool.running, 1);
    pthread_cond_broadcast(&pool.go);
    while (pool.checked_in < pool.n) {
        if (!limit) {
            pthread_cond_wait(&pool.finished, &pool.mu);
        } else if (pthread_cond_timedwait(&pool.finished, &pool.mu, &deadline) == ETIMEDOUT) {
            hw_error("cpu: kernel %s ran past the limit of %llu s (HIPWIRE_CPU_KERNEL_TIMEOUT): "
                     "the session ends",
                     k->name ? k->name : "?", (unsigned long long)limit);
            _exit(71);
        }
    }
    atomic_store(&pool.running, 0);
    atomic_store(&pool.owner, NULL);
    pool.cur = NULL;
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.lock);
    return 0;
}

void cpu_sched_session_end(const void *owner, int shared)
{
    for (int waited = 0; atomic_load(&pool.running) && atomic_load(&pool.owner) == owner;
         waited += 10) {
        if (waited == END_GRACE_MS && shared)
            hw_warn("cpu: kernel %s is still running at session end: waiting for it (other "
                    "sessions share this process; HIPWIRE_CPU_KERNEL_TIMEOUT bounds it)",
                    pool.kernel_name ? pool.kernel_name : "?");
        if (waited >= END_GRACE_MS && !shared) {
            hw_warn("cpu: kernel %s is still running at session end: the session process ends "
                    "without it",
                    pool.kernel_name ? pool.kernel_name : "?");
            _exit(0);
        }
        usleep(10 * 1000);
    }
}
