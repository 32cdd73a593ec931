/*
 * cpu_stream.c - CPU-device streams: an ordered queue per stream, drained by
 * that stream's own thread, so streams really run concurrently and a wait on
 * one never holds up another.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "cpu_internal.h"
#include "cpu_sched.h"
#include "hw_log.h"
#include "hw_time.h"

struct cpu_op *cpu_op_new(enum cpu_op_kind kind, unsigned extra_deps)
{
    struct cpu_op *op = hw_calloc(1, sizeof *op + extra_deps * sizeof(struct cpu_dep));
    if (op) {
        op->kind = kind;
        op->cap_deps = extra_deps;
    }
    return op;
}

static void run_launch(struct cpu_device *d, struct cpu_op *op)
{
    const struct hipwire_cpu_kernel *k = op->u.launch.kernel;
    struct hipwire_cpu_ctx ctx;
    if (k->abi_version == HIPWIRE_CPU_KERNEL_ABI_FIBER) {
        /* The backend's lock names its launches: sessions sharing one
         * process (--isolation shared) share the pool. */
        if (cpu_sched_launch(k, op->u.launch.grid, op->u.launch.block, op->u.launch.shared_mem,
                             op->u.launch.args, d->lock) < 0)
            hw_error("cpu: launch of %s could not run: no fibers", k->name ? k->name : "?");
        return;
    }
    memset(&ctx, 0, sizeof ctx);
    ctx.grid_dim =
        (struct hipwire_dim3){ op->u.launch.grid[0], op->u.launch.grid[1], op->u.launch.grid[2] };
    ctx.block_dim = (struct hipwire_dim3){ op->u.launch.block[0], op->u.launch.block[1],
                                           op->u.launch.block[2] };
    ctx.shared_size = op->u.launch.shared_mem;
    ctx.shared = ctx.shared_size ? hw_malloc(ctx.shared_size) : NULL;
    if (ctx.shared_size && !ctx.shared)
        return; /* reported by the caller's accounting as a lost launch */
    for (uint32_t bz = 0; bz < ctx.grid_dim.z; bz++)
        for (uint32_t by = 0; by < ctx.grid_dim.y; by++)
            for (uint32_t bx = 0; bx < ctx.grid_dim.x; bx++) {
                ctx.block_idx = (struct hipwire_dim3){ bx, by, bz };
                if (ctx.shared)
                    memset(ctx.shared, 0, ctx.shared_size);
                for (uint32_t tz = 0; tz < ctx.block_dim.z; tz++)
                    for (uint32_t ty = 0; ty < ctx.block_dim.y; ty++)
                        for (uint32_t tx = 0; tx < ctx.block_dim.x; tx++) {
                            ctx.thread_idx = (struct hipwire_dim3){ tx, ty, tz };
                            k->fn(&ctx, op->u.launch.args);
                        }
            }
    free(ctx.shared);
}

static void run_memset(struct cpu_op *op)
{
    uint8_t *p = op->u.memset.dst;
    uint64_t n = op->u.memset.count;
    uint32_t v = op->u.memset.value;
    switch (op->u.memset.elem_size) {
    case 1: memset(p, (int)(v & 0xff), n); break;
    case 2:
        for (uint64_t i = 0; i < n; i++)
            memcpy(p + 2 * i, &(uint16_t){ (uint16_t)v }, 2);
        break;
    default:
        for (uint64_t i = 0; i < n; i++)
            memcpy(p + 4 * i, &v, 4);
        break;
    }
}

/* Runs with d->lock held; fires callbacks of records now complete. */
static struct cb_node *record_done(struct hw_bevent *e, uint64_t gen)
{
    struct cb_node *ready = NULL, **pp = &e->callbacks;
    e->done_gen = gen;
    e->time_ns = hw_now_ns();
    while (*pp) {
        struct cb_node *n = *pp;
        if (n->gen <= gen) {
            *pp = n->next;
            n->next = ready;
            ready = n;
        } else {
            pp = &n->next;
        }
    }
    return ready;
}

static void execute(struct cpu_device *d, struct cpu_op *op)
{
    struct cb_node *ready = NULL;
    switch (op->kind) {
    case CPU_OP_COPY:
        memmove(op->u.copy.dst, op->u.copy.src, op->u.copy.n);
        if (op->u.copy.release)
            op->u.copy.release(op->u.copy.release_arg, HW_OK);
        break;
    case CPU_OP_MEMSET: run_memset(op); break;
    case CPU_OP_LAUNCH:
        run_launch(d, op);
        free(op->u.launch.args);
        break;
    case CPU_OP_CALLBACK: op->u.callback.fn(op->u.callback.arg, HW_OK); break;
    case CPU_OP_RECORD:
        pthread_mutex_lock(d->lock);
        ready = record_done(op->u.record.event, op->u.record.gen);
        pthread_mutex_unlock(d->lock);
        while (ready) {
            struct cb_node *n = ready;
            ready = n->next;
            n->fn(n->arg, HW_OK);
            free(n);
        }
        break;
    case CPU_OP_WAIT: break;
    case CPU_OP_WRITE_VALUE:
    case CPU_OP_WAIT_VALUE: cpu_run_value_op(op); break;
    }
}

static int deps_done(const struct cpu_op *op)
{
    for (unsigned i = 0; i < op->ndeps; i++)
        if (op->deps[i].stream->completed < op->deps[i].seq)
            return 0;
    return 1;
}

void cpu_wait_completion(struct cpu_device *d)
{
    (*d->waiters)++;
    pthread_cond_wait(d->changed, d->lock);
    (*d->waiters)--;
}

static void *stream_main(void *arg)
{
    struct hw_bstream *s = arg;
    struct cpu_device *d = s->dev;

    pthread_mutex_lock(d->lock);
    for (;;) {
        while (!s->head && s->live)
            pthread_cond_wait(&s->work, d->lock);
        if (!s->head)
            break; /* destroyed and drained */
        struct cpu_op *op = s->head;
        while (!deps_done(op))
            cpu_wait_completion(d);
        /* A callback says the work before it is done (a synchronize's reply
         * is sent from one); it is no work itself, so it counts as done
         * before it runs: a query made by whoever it wakes sees the stream
         * idle, as HIP promises after hipStreamSynchronize. */
        int done_first = op->kind == CPU_OP_CALLBACK;
        if (done_first)
            s->completed = op->seq;
        pthread_mutex_unlock(d->lock);
        execute(d, op);
        pthread_mutex_lock(d->lock);
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        if (!done_first)
            s->completed = op->seq;
        /* A wake-up per op costs more than the op for small work: only when
         * someone waits for a completion. */
        if (*d->waiters)
            pthread_cond_broadcast(d->changed);
        pthread_mutex_unlock(d->lock);
        free(op);
        pthread_mutex_lock(d->lock);
    }
    pthread_mutex_unlock(d->lock);
    return NULL;
}

int cpu_stream_start(struct hw_bstream *s)
{
    if (!s->thread_running && !s->live && !s->work_init) {
        pthread_cond_init(&s->work, NULL);
        s->work_init = 1;
    }
    s->live = 1;
    if (pthread_create(&s->thread, NULL, stream_main, s) != 0) {
        s->live = 0;
        return HW_EOS;
    }
    s->thread_running = 1;
    return HW_OK;
}

void cpu_stream_stop_all(struct cpu_device *d)
{
    pthread_mutex_lock(d->lock);
    for (struct hw_bstream *s = d->streams; s; s = s->next_in_dev) {
        s->live = 0;
        pthread_cond_signal(&s->work);
    }
    pthread_mutex_unlock(d->lock);
    for (struct hw_bstream *s = d->streams; s; s = s->next_in_dev)
        if (s->thread_running) {
            pthread_join(s->thread, NULL);
            s->thread_running = 0;
        }
}

/*
 * HIP's legacy default stream: work on it waits for all earlier work on the
 * device's blocking streams, and work on a blocking stream waits for all
 * earlier work on the default stream. Expressed as (stream, seq) dependencies.
 */
int cpu_stream_submit(struct hw_bstream *s, struct cpu_op *op)
{
    struct cpu_device *d = s->dev;

    pthread_mutex_lock(d->lock);
    if (!s->live) {
        pthread_mutex_unlock(d->lock);
        free(op);
        return HW_EHANDLE;
    }
    if (s->is_default || s->blocking) {
        unsigned need = op->ndeps;
        for (struct hw_bstream *t = d->streams; t; t = t->next_in_dev)
            need += t != s && t->live && t->completed < t->submitted &&
                    (s->is_default ? t->blocking : t->is_default);
        if (op->cap_deps < need) {
            struct cpu_op *grown = hw_realloc(op, sizeof *op + need * sizeof(struct cpu_dep));
            if (!grown) {
                pthread_mutex_unlock(d->lock);
                free(op);
                return HW_ENOMEM;
            }
            op = grown;
            op->cap_deps = need;
        }
        for (struct hw_bstream *t = d->streams; t; t = t->next_in_dev) {
            if (t == s || !t->live || t->completed >= t->submitted)
                continue;
            if (s->is_default ? t->blocking : t->is_default) {
                op->deps[op->ndeps].stream = t;
                op->deps[op->ndeps].seq = t->submitted;
                op->ndeps++;
            }
        }
    }
    op->seq = ++s->submitted;
    op->next = NULL;
    int was_idle = s->head == NULL;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    if (op->kind == CPU_OP_RECORD) {
        struct hw_bevent *e = op->u.record.event;
        e->stream = s;
        e->seq = op->seq;
    }
    if (was_idle)
        pthread_cond_signal(&s->work);
    pthread_mutex_unlock(d->lock);
    return HW_OK;
}
