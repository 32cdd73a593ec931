/*
 * ops_common.c - what the operations share: handle and range checks, draining,
 * and replies sent when queued work completes (ops.h).
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "ops.h"

/* ---- lookups ---------------------------------------------------------- */

int ops_resolve_stream(struct session *s, uint64_t id, struct hw_bstream **bs, int *dev)
{
    if (id < HIPR_FIRST_STREAM_ID) {
        if (id >= (uint64_t)s->device_count)
            return HW_EHANDLE;
        *dev = (int)id;
        return s->ops->stream_default(s->be, (int)id, bs);
    }
    struct s_stream *st = handle_map_get(&s->res.streams, id);
    if (!st)
        return HW_EHANDLE;
    *bs = st->bs;
    *dev = st->device;
    return HW_OK;
}

int ops_check_range(struct session *s, uint64_t ptr, uint64_t len, int *dev)
{
    const struct alloc_range *r = alloc_table_find(&s->res.allocs, ptr, len);
    if (!r)
        return HW_EINVAL;
    if (dev)
        *dev = r->device;
    return HW_OK;
}

/* A pitched region of height rows of width bytes must lie in one allocation. */
int ops_check_2d(struct session *s, uint64_t base, uint64_t pitch, uint64_t width, uint64_t height,
                 int *dev)
{
    if (width > pitch && height > 1)
        return HW_EINVAL;
    if (height == 0 || width == 0)
        return HW_OK;
    if (pitch != 0 && height - 1 > (UINT64_MAX - width) / pitch)
        return HW_EINVAL;
    return ops_check_range(s, base, (height - 1) * pitch + width, dev);
}

/* ---- draining --------------------------------------------------------- */

struct drain_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int remaining;
};

static void drain_done(void *arg, int status)
{
    struct drain_wait *w = arg;
    (void)status;
    pthread_mutex_lock(&w->lock);
    w->remaining--;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Queues fn on a stream; 1 when queued. A callback that cannot be queued
 * (out of memory) is replaced by waiting for the stream here, so that callers
 * freeing buffers after a drain never race work still running. */
static int queue_or_wait(struct session *s, struct hw_bstream *bs, hw_done_fn fn, void *arg)
{
    if (s->ops->stream_callback(s->be, bs, fn, arg) == HW_OK)
        return 1;
    while (s->ops->stream_query(s->be, bs) == HW_ENOTREADY)
        hw_os_sleep_ms(1);
    return 0;
}

/* Queues fn on every stream of the device (default first); returns how many. */
int ops_for_device_streams(struct session *s, int device, hw_done_fn fn, void *arg)
{
    int n = 0;
    for (int d = 0; d < s->device_count; d++) {
        if (device >= 0 && d != device)
            continue;
        struct hw_bstream *bs;
        if (s->ops->stream_default(s->be, d, &bs) == HW_OK)
            n += queue_or_wait(s, bs, fn, arg);
    }
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&s->res.streams, &pos, &key, &v)) {
        struct s_stream *st = v;
        if (device < 0 || st->device == device)
            n += queue_or_wait(s, st->bs, fn, arg);
    }
    return n;
}

int session_drain(struct session *s, int device)
{
    struct drain_wait w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    /* Count first, under the lock, so an early callback cannot see zero. */
    pthread_mutex_lock(&w.lock);
    w.remaining = 1 << 30;
    pthread_mutex_unlock(&w.lock);
    int n = ops_for_device_streams(s, device, drain_done, &w);
    pthread_mutex_lock(&w.lock);
    w.remaining -= (1 << 30) - n;
    while (w.remaining > 0)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    return HW_OK;
}

/* ---- replies sent on completion ----------------------------------------- */

/* A reply owed is charged until it is sent: a client that pipelines
 * synchronous requests without reading replies cannot grow the worker. */
struct pending *ops_pending_new(struct session *s, const struct hipr_header *h)
{
    struct pending *p = hw_calloc(1, sizeof *p);
    if (p) {
        p->s = s;
        p->opcode = h->opcode;
        p->request_id = h->request_id;
        p->remaining = 1;
        p->charged = INFLIGHT_OP_COST;
        inflight_acquire(&s->lim, p->charged);
    }
    return p;
}

/* Drops a pending reply that was never queued. */
void ops_pending_free(struct pending *p)
{
    inflight_release(&p->s->lim, p->charged);
    stage_buf_put(&p->s->res.bufs, p->to_free);
    free(p);
}

void ops_pending_done(void *arg, int status)
{
    struct pending *p = arg;
    if (status != HW_OK)
        __atomic_store_n(&p->status, status, __ATOMIC_RELAXED);
    if (__atomic_sub_fetch(&p->remaining, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    int st = __atomic_load_n(&p->status, __ATOMIC_RELAXED);
    /* For resume the reply keeps its staging buffer, or borrows the device
     * memory it was sent from (d2h_common makes sure nothing queued can
     * change it). */
    enum reply_tail how = p->to_free    ? REPLY_TAIL_GIVE
                          : p->borrowed ? REPLY_TAIL_BORROW
                                        : REPLY_TAIL_COPY;
    void *owned = p->to_free;
    if (st != HW_OK && owned) {
        how = REPLY_TAIL_COPY;
        owned = NULL;
    } else {
        p->to_free = NULL;
    }
    slink_reply_tail(&p->s->link, p->opcode, p->request_id, st, NULL, 0,
                     st == HW_OK ? p->data : NULL, st == HW_OK ? p->len : 0, how, owned);
    ops_pending_free(p);
}

void ops_stage_done(void *arg, int status)
{
    struct pending *p = arg; /* reused as a staging record */
    (void)status;
    inflight_release(&p->s->lim, p->len);
    stage_buf_put(&p->s->res.bufs, p->to_free);
    free(p);
}

/* The host address of device memory, or NULL when it has none. */
void *ops_host_addr(struct session *s, uint64_t dptr)
{
    return HW_BACKEND_HAS(s->ops, host_ptr) ? s->ops->host_ptr(s->be, dptr) : NULL;
}

/* Device idle: a direct read into device memory cannot overtake queued work. */
int ops_device_idle(struct session *s, int device)
{
    struct hw_bstream *bs;
    if (s->ops->stream_default(s->be, device, &bs) != HW_OK ||
        s->ops->stream_query(s->be, bs) != HW_OK)
        return 0;
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&s->res.streams, &pos, &key, &v)) {
        struct s_stream *st = v;
        if (st->device == device && s->ops->stream_query(s->be, st->bs) != HW_OK)
            return 0;
    }
    return 1;
}

/* The supervisor's view of the session's memory (WORKER_STATUS, the
 * worker-wide --mem-limit). */
void session_update_usage(struct session *s)
{
    if (s->slot)
        __atomic_store_n(&s->slot->bytes_in_use, s->res.allocs.malloc_bytes, __ATOMIC_RELEASE);
}
