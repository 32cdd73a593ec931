/*
 * dispatch.c - one handler per opcode of hipr_spec.h.
 *
 * Who replies: a SYNC handler that returns HW_OK has sent its reply, or has
 * queued work whose completion callback will send it; one that returns an
 * error leaves the error reply to dispatch_request(). ASYNC handlers never
 * reply themselves: their errors become the session's deferred error, or a
 * direct reply when the client did not set NO_REPLY. -1 ends the session.
 *
 * Every pointer, length and handle in a request is checked here before the
 * backend sees it.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "copy_staged.h"
#include "hw_log.h"
#include "hw_os.h"
#include "inflight.h"
#include "module.h"
#include "quota.h"
#include "rtc.h"
#include "session.h"

#define STAGE_SMALL (64 * 1024) /* below this, H2D data is always staged */

/* ---- lookups ---------------------------------------------------------- */

static int resolve_stream(struct session *s, uint64_t id, struct hw_bstream **bs, int *dev)
{
    if (id < HIPR_FIRST_STREAM_ID) {
        if (id >= (uint64_t)s->device_count)
            return HW_EHANDLE;
        *dev = (int)id;
        return s->ops->stream_default(s->be, (int)id, bs);
    }
    struct s_stream *st = handle_map_get(&s->streams, id);
    if (!st)
        return HW_EHANDLE;
    *bs = st->bs;
    *dev = st->device;
    return HW_OK;
}

static int check_range(struct session *s, uint64_t ptr, uint64_t len, int *dev)
{
    const struct alloc_range *r = alloc_table_find(&s->allocs, ptr, len);
    if (!r)
        return HW_EINVAL;
    if (dev)
        *dev = r->device;
    return HW_OK;
}

/* A pitched region of height rows of width bytes must lie in one allocation. */
static int check_2d(struct session *s, uint64_t base, uint64_t pitch, uint64_t width,
                    uint64_t height, int *dev)
{
    if (width > pitch && height > 1)
        return HW_EINVAL;
    if (height == 0 || width == 0)
        return HW_OK;
    if (pitch != 0 && height - 1 > (UINT64_MAX - width) / pitch)
        return HW_EINVAL;
    return check_range(s, base, (height - 1) * pitch + width, dev);
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
static int for_device_streams(struct session *s, int device, hw_done_fn fn, void *arg)
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
    while (handle_map_next(&s->streams, &pos, &key, &v)) {
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
    int n = for_device_streams(s, device, drain_done, &w);
    pthread_mutex_lock(&w.lock);
    w.remaining -= (1 << 30) - n;
    while (w.remaining > 0)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    return HW_OK;
}

static int device_idle(struct session *s, int device);

/* ---- replies sent on completion ----------------------------------------- */

struct pending {
    struct session *s;
    uint16_t opcode;
    uint32_t request_id;
    int remaining; /* callbacks still to come (device synchronize) */
    int status;
    const void *data; /* reply tail, when the reply carries data */
    uint64_t len;
    void *to_free;
    int borrowed;     /* data is device memory (host_ptr), not a copy */
    uint64_t charged; /* against --max-inflight until the reply is sent */
};

/* A reply owed is charged until it is sent: a client that pipelines
 * synchronous requests without reading replies cannot grow the worker. */
static struct pending *pending_new(struct session *s, const struct hipr_header *h)
{
    struct pending *p = hw_calloc(1, sizeof *p);
    if (p) {
        p->s = s;
        p->opcode = h->opcode;
        p->request_id = h->request_id;
        p->remaining = 1;
        p->charged = INFLIGHT_OP_COST;
        inflight_acquire(s, p->charged);
    }
    return p;
}

/* Drops a pending reply that was never queued. */
static void pending_free(struct pending *p)
{
    inflight_release(p->s, p->charged);
    session_buf_put(p->s, p->to_free);
    free(p);
}

static void pending_done(void *arg, int status)
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
    session_reply_tail(p->s, p->opcode, p->request_id, st, NULL, 0, st == HW_OK ? p->data : NULL,
                       st == HW_OK ? p->len : 0, how, owned);
    pending_free(p);
}

static void stage_done(void *arg, int status)
{
    struct pending *p = arg; /* reused as a staging record */
    (void)status;
    inflight_release(p->s, p->len);
    session_buf_put(p->s, p->to_free);
    free(p);
}

/* ---- session, device, memory ------------------------------------------- */

#define HANDLER(NAME) \
    static int h_##NAME(struct session *s, const struct hipr_header *h, const uint8_t *fixed)

HANDLER(HELLO)
{
    (void)fixed;
    /* Only valid as the first request: say so, then end the session. */
    session_reply(s, h->opcode, h->request_id, HW_EINVAL, NULL, 0, NULL, 0);
    return -1;
}

HANDLER(GOODBYE)
{
    (void)fixed;
    session_drain(s, -1);
    session_reply(s, h->opcode, h->request_id, HW_OK, NULL, 0, NULL, 0);
    return -1; /* end the session cleanly */
}

HANDLER(PING)
{
    struct hipr_ping m;
    uint8_t out[HIPR_ping_SIZE];
    hipr_ping_decode(fixed, HIPR_ping_SIZE, &m);
    hipr_ping_encode(out, &m);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(SESSION_STATS)
{
    (void)fixed;
    struct hipr_session_stats_rep r = {
        .bytes_in_use = s->allocs.malloc_bytes,
        .allocations = 0,
        .streams = (uint32_t)s->streams.len,
        .events = (uint32_t)s->events.len,
        .modules = (uint32_t)s->modules.len,
    };
    for (size_t i = 0; i < s->allocs.len; i++)
        r.allocations += s->allocs.v[i].kind == ALLOC_MALLOC;
    uint8_t out[HIPR_session_stats_rep_SIZE];
    hipr_session_stats_rep_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(WORKER_STATUS)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL; /* answered only in place of HELLO */
}

HANDLER(WORKER_DRAIN)
{
    (void)h;
    (void)fixed;
    (void)s;
    return HW_EINVAL; /* answered only in place of HELLO, like WORKER_STATUS */
}

HANDLER(RTC_CACHE_STATS)
{
    (void)h;
    (void)fixed;
    (void)s;
    return HW_EINVAL; /* answered only in place of HELLO, like WORKER_STATUS */
}

/* Authentication happens before HELLO (session.c); afterwards it is an error. */
HANDLER(AUTH_BEGIN)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

HANDLER(AUTH_PROOF)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* A client's heartbeat: its arrival is the point (session.c times the gaps). */
HANDLER(HEARTBEAT)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_OK;
}

HANDLER(WORKER_INFO)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL; /* answered only in place of HELLO */
}

/* Turns session resume on (resume.c). Not a request of the session: the
 * request loop does not count it. */
HANDLER(RESUME_ENABLE)
{
    (void)fixed;
    return session_resume_enable(s, h->request_id);
}

/* Switches a fresh session to the same-host rings (shm_link.c). Not a
 * request of the session: the request loop does not count it. */
HANDLER(TRANSPORT_SHM)
{
    return shm_link_request(s, h, fixed);
}

/* The request loop takes ACK frames itself (session.c). */
HANDLER(ACK)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_OK;
}

/* Both belong to a routed connection's handshake (resume.c), never to a
 * session's request stream. */
HANDLER(SESSION_ROUTE)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* Only the worker says it. */
HANDLER(GOING_AWAY)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

HANDLER(SESSION_RESUME)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* The worker's own notice while a client waits for its session (admission.c);
 * a client never sends one. */
HANDLER(SESSION_WAIT)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

HANDLER(DEVICE_SYNCHRONIZE)
{
    struct hipr_device m;
    hipr_device_decode(fixed, HIPR_device_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    /* Nothing queued: answer now instead of a trip through every stream. */
    if (device_idle(s, m.device)) {
        session_reply(s, h->opcode, h->request_id, HW_OK, NULL, 0, NULL, 0);
        return HW_OK;
    }
    struct pending *p = pending_new(s, h);
    if (!p)
        return HW_ENOMEM;
    /* The reply goes out from the last stream to finish: the dispatch loop
     * keeps serving other requests meanwhile. */
    p->remaining = 1 << 30;
    int n = for_device_streams(s, m.device, pending_done, p);
    if (__atomic_sub_fetch(&p->remaining, (1 << 30) - n, __ATOMIC_ACQ_REL) == 0) {
        p->remaining = 1;
        pending_done(p, HW_OK);
    }
    return HW_OK;
}

static void free_allocation(struct session *s, const struct alloc_range *r)
{
    s->ops->mem_free(s->be, r->device, r->base, r->size);
}

HANDLER(DEVICE_RESET)
{
    struct hipr_device m;
    hipr_device_decode(fixed, HIPR_device_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    /* Every device: a copy queued on another device's stream may still read
     * this device's memory. */
    session_drain(s, -1);
    for (size_t i = s->allocs.len; i-- > 0;) {
        struct alloc_range r = s->allocs.v[i];
        if (r.device == m.device && r.kind == ALLOC_MALLOC &&
            alloc_table_remove(&s->allocs, r.base, &r) == 0)
            free_allocation(s, &r);
    }
    session_update_usage(s);
    session_reply(s, h->opcode, h->request_id, HW_OK, NULL, 0, NULL, 0);
    return HW_OK;
}

HANDLER(MEM_GET_INFO)
{
    struct hipr_device m;
    struct hipr_mem_info_rep r;
    hipr_device_decode(fixed, HIPR_device_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    int rc = s->ops->mem_info(s->be, m.device, &r.free, &r.total);
    if (rc != HW_OK)
        return rc;
    /* A session sees its own limit as the device's size. */
    if (s->cfg->mem_limit && r.total > s->cfg->mem_limit) {
        uint64_t used = s->allocs.malloc_bytes;
        r.total = s->cfg->mem_limit;
        uint64_t left = used < r.total ? r.total - used : 0;
        if (r.free > left)
            r.free = left;
    }
    uint8_t out[HIPR_mem_info_rep_SIZE];
    hipr_mem_info_rep_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

/* A backend without the slot (an older one) answers hipErrorNotSupported;
 * the client then keeps its defaults. */
HANDLER(DEVICE_ATTRIBUTES)
{
    struct hipr_device m;
    struct hipr_devattr r;
    hipr_device_decode(fixed, HIPR_device_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    if (!HW_BACKEND_HAS(s->ops, device_attributes))
        return HW_ENOTSUP;
    memset(&r, 0, sizeof r);
    int rc = s->ops->device_attributes(s->be, m.device, &r);
    if (rc != HW_OK)
        return rc;
    uint8_t out[HIPR_devattr_SIZE];
    hipr_devattr_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(MALLOC)
{
    struct hipr_malloc_req m;
    struct hipr_ptr r = { 0 };
    hipr_malloc_req_decode(fixed, HIPR_malloc_req_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    if (m.size > 0) {
        if (s->cfg->mem_limit && m.size > s->cfg->mem_limit - s->allocs.malloc_bytes)
            return quota_refuse(s, QUOTA_MEMORY, "hipMalloc of %llu bytes (%llu of %llu in use)",
                                (unsigned long long)m.size,
                                (unsigned long long)s->allocs.malloc_bytes,
                                (unsigned long long)s->cfg->mem_limit);
        int rc = s->ops->mem_alloc(s->be, m.device, m.size, &r.ptr);
        if (rc != HW_OK)
            return rc;
        struct alloc_range ar = { r.ptr, m.size, m.device, ALLOC_MALLOC, 0 };
        if (alloc_table_insert(&s->allocs, &ar) < 0) {
            s->ops->mem_free(s->be, m.device, r.ptr, m.size);
            return HW_ENOMEM;
        }
        session_update_usage(s);
    }
    uint8_t out[HIPR_ptr_SIZE];
    hipr_ptr_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(FREE)
{
    struct hipr_ptr m;
    struct alloc_range r;
    (void)h;
    hipr_ptr_decode(fixed, HIPR_ptr_SIZE, &m);
    if (m.ptr == 0)
        return HW_OK;
    const struct alloc_range *found = alloc_table_find(&s->allocs, m.ptr, 0);
    if (!found || found->base != m.ptr || found->kind != ALLOC_MALLOC)
        return HW_EINVAL;
    /* hipFree waits for the device; all of them here, since work queued on
     * another device's stream may address this memory too. Idle devices
     * need no wait (and no trip through every stream). */
    int idle = 1;
    for (int d = 0; d < s->device_count && idle; d++)
        idle = device_idle(s, d);
    if (!idle)
        session_drain(s, -1);
    alloc_table_remove(&s->allocs, m.ptr, &r);
    free_allocation(s, &r);
    session_update_usage(s);
    return HW_OK;
}

/* The host address of device memory, or NULL when it has none. */
static void *host_addr(struct session *s, uint64_t dptr)
{
    return HW_BACKEND_HAS(s->ops, host_ptr) ? s->ops->host_ptr(s->be, dptr) : NULL;
}

/* Device idle: a direct read into device memory cannot overtake queued work. */
static int device_idle(struct session *s, int device)
{
    struct hw_bstream *bs;
    if (s->ops->stream_default(s->be, device, &bs) != HW_OK ||
        s->ops->stream_query(s->be, bs) != HW_OK)
        return 0;
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&s->streams, &pos, &key, &v)) {
        struct s_stream *st = v;
        if (st->device == device && s->ops->stream_query(s->be, st->bs) != HW_OK)
            return 0;
    }
    return 1;
}

/* Reads n tail bytes and queues their copy to dst..., one per row when
 * rows > 1 (rows of width bytes, dpitch apart). */
static int h2d_common(struct session *s, uint64_t stream, struct hw_bstream *bs, int dev,
                      uint64_t dst, uint64_t dpitch, uint64_t width, uint64_t rows)
{
    uint64_t n = s->tail_left;
    if (n == 0)
        return HW_OK;
    /* Zero copy when the device memory is host-addressable and nothing queued
     * could be reading or writing it. */
    void *direct = rows == 1 && n >= STAGE_SMALL && device_idle(s, dev) ? host_addr(s, dst) : NULL;
    if (direct)
        return session_read_tail(s, direct, n) < 0 ? -1 : HW_OK;
    /* Memory the device copies from directly, filled from the socket. */
    if (rows == 1 && copy_staged_available(s) && !host_addr(s, dst))
        return copy_h2d_staged(s, bs, dst);
    inflight_acquire(s, n);
    struct pending *rec = hw_calloc(1, sizeof *rec);
    uint8_t *buf = session_buf_get(s, n);
    if (!rec || !buf) {
        free(rec);
        session_buf_put(s, buf);
        inflight_release(s, n);
        return HW_ENOMEM;
    }
    rec->s = s;
    rec->len = n;
    rec->to_free = buf;
    if (session_read_tail(s, buf, n) < 0) {
        stage_done(rec, HW_OK);
        return -1;
    }
    for (uint64_t i = 0; i < rows; i++) {
        int last = i + 1 == rows;
        int rc = s->ops->memcpy_h2d(s->be, bs, dst + i * dpitch, buf + i * width, width,
                                    last ? stage_done : NULL, last ? rec : NULL);
        if (rc != HW_OK) {
            /* Rows already queued still read buf: release it behind them. */
            if (i > 0 && s->ops->stream_callback(s->be, bs, stage_done, rec) == HW_OK)
                return rc;
            if (i > 0)
                session_drain(s, dev);
            stage_done(rec, rc);
            return rc;
        }
        inflight_queued(s, stream, bs, INFLIGHT_OP_COST);
    }
    return HW_OK;
}

HANDLER(MEMCPY_H2D)
{
    struct hipr_memcpy_h2d m;
    struct hw_bstream *bs;
    int dev, sdev, rc;
    (void)h;
    hipr_memcpy_h2d_decode(fixed, HIPR_memcpy_h2d_SIZE, &m);
    uint64_t n = s->tail_left;
    if ((rc = resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if ((rc = check_range(s, m.dst, n, &dev)) != HW_OK)
        return rc;
    return h2d_common(s, m.stream, bs, dev, m.dst, n, n, 1);
}

HANDLER(MEMCPY2D_H2D)
{
    struct hipr_memcpy2d_h2d m;
    struct hw_bstream *bs;
    int dev = 0, sdev, rc;
    (void)h;
    hipr_memcpy2d_h2d_decode(fixed, HIPR_memcpy2d_h2d_SIZE, &m);
    if ((rc = resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if (m.height != 0 && m.width > UINT64_MAX / m.height)
        return HW_EINVAL;
    if (m.width * m.height != s->tail_left)
        return HW_EINVAL;
    if ((rc = check_2d(s, m.dst, m.dpitch, m.width, m.height, &dev)) != HW_OK)
        return rc;
    if (m.height == 0 || m.width == 0)
        return HW_OK;
    return h2d_common(s, m.stream, bs, dev, m.dst, m.dpitch, m.width, m.height);
}

/* D2H: rows of width bytes spitch apart, packed into the reply's tail. */
static int d2h_common(struct session *s, const struct hipr_header *h, uint64_t stream, uint64_t src,
                      uint64_t spitch, uint64_t width, uint64_t rows)
{
    struct hw_bstream *bs;
    int sdev, rc;
    if ((rc = resolve_stream(s, stream, &bs, &sdev)) != HW_OK)
        return rc;
    if (rows != 0 && width > UINT64_MAX / rows)
        return HW_EINVAL;
    uint64_t n = width * rows;
    if (n > HIPR_CAP_COPY_CHUNK)
        return HW_EINVAL;
    if ((rc = check_2d(s, src, spitch, width, rows, NULL)) != HW_OK)
        return rc;
    void *direct = rows <= 1 && n ? host_addr(s, src) : NULL;
    if (rows <= 1 && n && !direct && copy_staged_available(s))
        return copy_d2h_staged(s, h, bs, sdev, device_idle(s, sdev), src, n);
    struct pending *p = pending_new(s, h);
    if (!p)
        return HW_ENOMEM;
    p->len = n;
    if (direct && device_idle(s, sdev)) {
        /* Sent straight from device memory: nothing queued could still
         * write it, and nothing can free it before the reply is out (a
         * resumable session's kept reply borrows it until the next request,
         * reply_log.h). */
        p->data = direct;
        p->borrowed = 1;
        pending_done(p, HW_OK);
        return HW_OK;
    }
    if (n == 0) {
        if (device_idle(s, sdev)) {
            pending_done(p, HW_OK);
            return HW_OK;
        }
    } else {
        /* On a busy device the bytes are copied out in stream order and sent
         * from a buffer of the session's: a reply sent from device memory by
         * a stream callback could race a later hipFree (a backend may report
         * a stream idle while its last callback still runs). */
        inflight_acquire(s, n); /* the staged data, until the reply is sent */
        p->charged += n;
        uint8_t *buf = session_buf_get(s, n);
        if (!buf) {
            pending_free(p);
            return HW_ENOMEM;
        }
        p->data = p->to_free = buf;
        for (uint64_t i = 0; i < rows; i++) {
            rc = s->ops->memcpy_d2h(s->be, bs, buf + i * width, src + i * spitch, width);
            if (rc != HW_OK) {
                if (i > 0)
                    session_drain(s, sdev);
                pending_free(p);
                return rc;
            }
            inflight_queued(s, stream, bs, INFLIGHT_OP_COST);
        }
    }
    rc = s->ops->stream_callback(s->be, bs, pending_done, p);
    if (rc != HW_OK) {
        session_drain(s, sdev);
        pending_free(p);
    }
    return rc;
}

HANDLER(MEMCPY_D2H)
{
    struct hipr_memcpy_d2h m;
    hipr_memcpy_d2h_decode(fixed, HIPR_memcpy_d2h_SIZE, &m);
    return d2h_common(s, h, m.stream, m.src, m.size, m.size, 1);
}

HANDLER(MEMCPY2D_D2H)
{
    struct hipr_memcpy2d_d2h m;
    hipr_memcpy2d_d2h_decode(fixed, HIPR_memcpy2d_d2h_SIZE, &m);
    return d2h_common(s, h, m.stream, m.src, m.spitch, m.width, m.height);
}

HANDLER(MEMCPY_D2D)
{
    struct hipr_memcpy_d2d m;
    struct hw_bstream *bs;
    int sdev, rc;
    (void)h;
    hipr_memcpy_d2d_decode(fixed, HIPR_memcpy_d2d_SIZE, &m);
    if ((rc = resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if (m.size == 0)
        return HW_OK;
    if ((rc = check_range(s, m.dst, m.size, NULL)) != HW_OK ||
        (rc = check_range(s, m.src, m.size, NULL)) != HW_OK)
        return rc;
    rc = s->ops->memcpy_d2d(s->be, bs, m.dst, m.src, m.size);
    if (rc == HW_OK)
        inflight_queued(s, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(MEMCPY2D_D2D)
{
    struct hipr_memcpy2d_d2d m;
    struct hw_bstream *bs;
    int sdev, rc;
    (void)h;
    hipr_memcpy2d_d2d_decode(fixed, HIPR_memcpy2d_d2d_SIZE, &m);
    if ((rc = resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if ((rc = check_2d(s, m.dst, m.dpitch, m.width, m.height, NULL)) != HW_OK ||
        (rc = check_2d(s, m.src, m.spitch, m.width, m.height, NULL)) != HW_OK)
        return rc;
    for (uint64_t i = 0; m.width && i < m.height; i++) {
        rc = s->ops->memcpy_d2d(s->be, bs, m.dst + i * m.dpitch, m.src + i * m.spitch, m.width);
        if (rc != HW_OK)
            return rc;
        inflight_queued(s, m.stream, bs, INFLIGHT_OP_COST);
    }
    return HW_OK;
}

HANDLER(MEMSET)
{
    struct hipr_memset m;
    struct hw_bstream *bs;
    int sdev, rc;
    (void)h;
    hipr_memset_decode(fixed, HIPR_memset_SIZE, &m);
    if (m.elem_size != 1 && m.elem_size != 2 && m.elem_size != 4)
        return HW_EINVAL;
    if ((rc = resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if (m.count == 0)
        return HW_OK;
    if (m.count > UINT64_MAX / m.elem_size)
        return HW_EINVAL;
    if ((rc = check_range(s, m.dst, m.count * m.elem_size, NULL)) != HW_OK)
        return rc;
    rc = s->ops->memset(s->be, bs, m.dst, m.value, m.elem_size, m.count);
    if (rc == HW_OK)
        inflight_queued(s, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

/* ---- streams and events --------------------------------------------------- */

HANDLER(STREAM_CREATE)
{
    struct hipr_stream_create m;
    (void)h;
    hipr_stream_create_decode(fixed, HIPR_stream_create_SIZE, &m);
    if (m.stream < HIPR_FIRST_STREAM_ID || handle_map_get(&s->streams, m.stream))
        return HW_EHANDLE;
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    int rc = quota_stream(s);
    if (rc != HW_OK)
        return rc;
    struct s_stream *st = hw_calloc(1, sizeof *st);
    if (!st)
        return HW_ENOMEM;
    rc = s->ops->stream_create(s->be, m.device, m.flags, m.priority, &st->bs);
    if (rc != HW_OK) {
        free(st);
        return rc;
    }
    st->device = m.device;
    if (handle_map_put(&s->streams, m.stream, st) < 0) {
        s->ops->stream_destroy(s->be, st->bs);
        free(st);
        return HW_ENOMEM;
    }
    quota_streams_changed(s);
    return HW_OK;
}

HANDLER(STREAM_DESTROY)
{
    struct hipr_stream m;
    (void)h;
    hipr_stream_decode(fixed, HIPR_stream_SIZE, &m);
    struct s_stream *st = handle_map_del(&s->streams, m.stream);
    if (!st)
        return HW_EHANDLE;
    inflight_checkpoint(s, st->bs, &st->uncovered); /* runs before the stream goes */
    s->ops->stream_destroy(s->be, st->bs);
    free(st);
    quota_streams_changed(s);
    return HW_OK;
}

HANDLER(STREAM_SYNCHRONIZE)
{
    struct hipr_stream m;
    struct hw_bstream *bs;
    int dev, rc;
    hipr_stream_decode(fixed, HIPR_stream_SIZE, &m);
    if ((rc = resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    struct pending *p = pending_new(s, h);
    if (!p)
        return HW_ENOMEM;
    rc = s->ops->stream_callback(s->be, bs, pending_done, p);
    if (rc != HW_OK)
        pending_free(p);
    return rc;
}

HANDLER(STREAM_QUERY)
{
    struct hipr_stream m;
    struct hw_bstream *bs;
    int dev, rc;
    hipr_stream_decode(fixed, HIPR_stream_SIZE, &m);
    if ((rc = resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    rc = s->ops->stream_query(s->be, bs);
    session_reply(s, h->opcode, h->request_id, rc, NULL, 0, NULL, 0);
    return HW_OK;
}

HANDLER(STREAM_WAIT_EVENT)
{
    struct hipr_stream_wait_event m;
    struct hw_bstream *bs;
    int dev, rc;
    (void)h;
    hipr_stream_wait_event_decode(fixed, HIPR_stream_wait_event_SIZE, &m);
    if ((rc = resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    struct s_event *ev = handle_map_get(&s->events, m.event);
    if (!ev)
        return HW_EHANDLE;
    rc = s->ops->stream_wait_event(s->be, bs, ev->be);
    if (rc == HW_OK)
        inflight_queued(s, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

/* A stream value operation's word: 4 or 8 bytes, naturally aligned (the
 * device accesses it atomically), inside one of the session's allocations. */
static int check_value_word(struct session *s, const struct hipr_stream_value *m)
{
    if (m->width != 4 && m->width != 8)
        return HW_EINVAL;
    if (m->ptr % m->width != 0)
        return HW_EINVAL;
    return check_range(s, m->ptr, m->width, NULL);
}

HANDLER(STREAM_WRITE_VALUE)
{
    struct hipr_stream_value m;
    struct hw_bstream *bs;
    int dev, rc;
    (void)h;
    hipr_stream_value_decode(fixed, HIPR_stream_value_SIZE, &m);
    if (m.flags != 0 || m.mask != 0)
        return HW_EINVAL;
    if ((rc = check_value_word(s, &m)) != HW_OK)
        return rc;
    if ((rc = resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    if (!HW_BACKEND_HAS(s->ops, stream_write_value))
        return HW_ENOTSUP;
    rc = s->ops->stream_write_value(s->be, bs, m.ptr, m.value, m.width);
    if (rc == HW_OK)
        inflight_queued(s, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(STREAM_WAIT_VALUE)
{
    struct hipr_stream_value m;
    struct hw_bstream *bs;
    int dev, rc;
    (void)h;
    hipr_stream_value_decode(fixed, HIPR_stream_value_SIZE, &m);
    if (m.flags > HIPR_WAIT_VALUE_NOR)
        return HW_EINVAL;
    if ((rc = check_value_word(s, &m)) != HW_OK)
        return rc;
    if ((rc = resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    if (!HW_BACKEND_HAS(s->ops, stream_wait_value))
        return HW_ENOTSUP;
    rc = s->ops->stream_wait_value(s->be, bs, m.ptr, m.value, m.mask, m.width, m.flags,
                                   &s->value_waits_cancel);
    if (rc == HW_OK)
        inflight_queued(s, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(EVENT_CREATE)
{
    struct hipr_event_create m;
    (void)h;
    hipr_event_create_decode(fixed, HIPR_event_create_SIZE, &m);
    if (m.event == 0 || handle_map_get(&s->events, m.event))
        return HW_EHANDLE;
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    int rc = quota_handle(s, &s->events, "events");
    if (rc != HW_OK)
        return rc;
    struct s_event *ev = hw_calloc(1, sizeof *ev);
    if (!ev)
        return HW_ENOMEM;
    rc = s->ops->event_create(s->be, m.device, m.flags, &ev->be);
    if (rc != HW_OK) {
        free(ev);
        return rc;
    }
    ev->device = m.device;
    if (handle_map_put(&s->events, m.event, ev) < 0) {
        s->ops->event_destroy(s->be, ev->be);
        free(ev);
        return HW_ENOMEM;
    }
    return HW_OK;
}

HANDLER(EVENT_RECORD)
{
    struct hipr_event_record m;
    struct hw_bstream *bs;
    int dev, rc;
    (void)h;
    hipr_event_record_decode(fixed, HIPR_event_record_SIZE, &m);
    struct s_event *ev = handle_map_get(&s->events, m.event);
    if (!ev)
        return HW_EHANDLE;
    if ((rc = resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    rc = s->ops->event_record(s->be, ev->be, bs);
    if (rc == HW_OK)
        inflight_queued(s, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(EVENT_SYNCHRONIZE)
{
    struct hipr_event m;
    hipr_event_decode(fixed, HIPR_event_SIZE, &m);
    struct s_event *ev = handle_map_get(&s->events, m.event);
    if (!ev)
        return HW_EHANDLE;
    struct pending *p = pending_new(s, h);
    if (!p)
        return HW_ENOMEM;
    int rc = s->ops->event_callback(s->be, ev->be, pending_done, p);
    if (rc != HW_OK)
        pending_free(p);
    return rc;
}

HANDLER(EVENT_QUERY)
{
    struct hipr_event m;
    hipr_event_decode(fixed, HIPR_event_SIZE, &m);
    struct s_event *ev = handle_map_get(&s->events, m.event);
    if (!ev)
        return HW_EHANDLE;
    session_reply(s, h->opcode, h->request_id, s->ops->event_query(s->be, ev->be), NULL, 0, NULL,
                  0);
    return HW_OK;
}

HANDLER(EVENT_ELAPSED)
{
    struct hipr_event_elapsed_req m;
    struct hipr_event_elapsed_rep r;
    hipr_event_elapsed_req_decode(fixed, HIPR_event_elapsed_req_SIZE, &m);
    struct s_event *a = handle_map_get(&s->events, m.start);
    struct s_event *b = handle_map_get(&s->events, m.stop);
    if (!a || !b)
        return HW_EHANDLE;
    int rc = s->ops->event_elapsed(s->be, a->be, b->be, &r.ms);
    if (rc != HW_OK)
        return rc;
    uint8_t out[HIPR_event_elapsed_rep_SIZE];
    hipr_event_elapsed_rep_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(EVENT_DESTROY)
{
    struct hipr_event m;
    (void)h;
    hipr_event_decode(fixed, HIPR_event_SIZE, &m);
    struct s_event *ev = handle_map_del(&s->events, m.event);
    if (!ev)
        return HW_EHANDLE;
    s->ops->event_destroy(s->be, ev->be);
    free(ev);
    return HW_OK;
}

/* ---- modules and launches ---------------------------------------------------- */

static int read_name(struct session *s, char *name)
{
    uint64_t n = s->tail_left;
    if (n == 0 || n >= HIPR_CAP_NAME)
        return HW_EINVAL;
    if (session_read_tail(s, name, n) < 0)
        return -1;
    name[n] = '\0';
    if (strlen(name) != n)
        return HW_EINVAL; /* embedded NUL */
    return HW_OK;
}

/* Reads the image and loads it; both MODULE_LOAD and MODULE_LOAD_EX. */
static int load_module(struct session *s, const struct hipr_module_load_req *req, uint64_t *id_out,
                       struct s_module **mod_out)
{
    struct hipr_module_load_req m = *req;
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    uint64_t n = s->tail_left;
    if (n == 0)
        return HW_EIMAGE;
    /* Refused before anything is allocated; the image is read and dropped. */
    if (n > s->cfg->max_module_size)
        return quota_refuse(s, QUOTA_MODULE_SIZE, "a module image of %llu bytes (limit %llu)",
                            (unsigned long long)n, (unsigned long long)s->cfg->max_module_size);
    int rc = quota_handle(s, &s->modules, "modules");
    if (rc != HW_OK)
        return rc;
    void *image = hw_malloc(n);
    if (!image)
        return HW_ENOMEM;
    if (session_read_tail(s, image, n) < 0) {
        free(image);
        return -1;
    }
    struct s_module *mod = NULL;
    rc = module_load(s, m.device, image, n, &mod);
    free(image);
    if (rc != HW_OK)
        return rc;
    uint64_t id = ++s->next_handle;
    if (handle_map_put(&s->modules, id, mod) < 0) {
        module_unload(s, mod);
        return HW_ENOMEM;
    }
    *id_out = id;
    *mod_out = mod;
    return HW_OK;
}

HANDLER(MODULE_LOAD)
{
    struct hipr_module_load_req m;
    struct s_module *mod;
    struct hipr_module r;
    hipr_module_load_req_decode(fixed, HIPR_module_load_req_SIZE, &m);
    int rc = load_module(s, &m, &r.module, &mod);
    if (rc != HW_OK)
        return rc;
    uint8_t out[HIPR_module_SIZE];
    hipr_module_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(MODULE_LOAD_EX)
{
    struct hipr_module_load_req m;
    struct s_module *mod;
    struct hipr_module_load_rep r = { 0 };
    hipr_module_load_req_decode(fixed, HIPR_module_load_req_SIZE, &m);
    if (m.flags != 0)
        return HW_EINVAL; /* no request flags are defined yet */
    int rc = load_module(s, &m, &r.module, &mod);
    if (rc != HW_OK)
        return rc;
    r.flags = module_runnable(mod) == HW_OK ? 0 : HIPR_MODULE_NO_BINARY;
    uint8_t out[HIPR_module_load_rep_SIZE];
    hipr_module_load_rep_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

/* The handle already given out for this module's function `name`, or 0. */
static uint64_t find_function(struct session *s, uint64_t module, const char *name)
{
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&s->functions, &pos, &key, &v)) {
        const struct s_function *fn = v;
        if (fn->module == module && strcmp(fn->name, name) == 0)
            return key;
    }
    return 0;
}

HANDLER(MODULE_GET_FUNCTION)
{
    struct hipr_module m;
    char name[HIPR_CAP_NAME];
    hipr_module_decode(fixed, HIPR_module_SIZE, &m);
    int rc = read_name(s, name);
    if (rc != HW_OK)
        return rc;
    struct s_module *mod = handle_map_get(&s->modules, m.module);
    if (!mod)
        return HW_EHANDLE;
    /* A name looked up again gets the same handle, so a program that looks
     * its kernels up in a loop does not grow the session. */
    uint64_t id = find_function(s, m.module, name);
    struct s_function *fn = id ? handle_map_get(&s->functions, id) : NULL;
    if (!fn) {
        if ((rc = quota_handle(s, &s->functions, "functions")) != HW_OK)
            return rc;
        fn = hw_calloc(1, sizeof *fn);
        if (!fn || !(fn->name = hw_strdup(name))) {
            free(fn);
            return HW_ENOMEM;
        }
        rc = module_function(s, mod, name, fn);
        if (rc != HW_OK) {
            free(fn->name);
            free(fn);
            return rc;
        }
        fn->module = m.module;
        id = ++s->next_handle;
        if (handle_map_put(&s->functions, id, fn) < 0) {
            free(fn->name);
            free(fn);
            return HW_ENOMEM;
        }
    }
    struct hipr_function_rep r = {
        .function = id,
        .param_count = fn->info.param_count,
        .args_size = fn->info.args_size,
        .max_threads_per_block = fn->info.max_threads_per_block,
        .num_regs = fn->info.num_regs,
        .shared_size_bytes = fn->info.shared_size_bytes,
        .const_size_bytes = fn->info.const_size_bytes,
        .local_size_bytes = fn->info.local_size_bytes,
        .max_dynamic_shared = fn->info.max_dynamic_shared,
        .ptx_version = fn->info.ptx_version,
        .binary_version = fn->info.binary_version,
    };
    uint8_t out[HIPR_function_rep_SIZE];
    size_t tail_len = (size_t)r.param_count * 8;
    uint8_t *tail = hw_malloc(tail_len ? tail_len : 1);
    if (!tail)
        return HW_ENOMEM;
    for (uint32_t i = 0; i < r.param_count; i++) {
        hipr_put_u32(tail + 8 * i, fn->info.params[i].offset);
        hipr_put_u32(tail + 8 * i + 4, fn->info.params[i].size);
    }
    hipr_function_rep_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, tail, tail_len);
    free(tail);
    return HW_OK;
}

HANDLER(MODULE_GET_GLOBAL)
{
    struct hipr_module m;
    struct hipr_global_rep r;
    char name[HIPR_CAP_NAME];
    hipr_module_decode(fixed, HIPR_module_SIZE, &m);
    int rc = read_name(s, name);
    if (rc != HW_OK)
        return rc;
    struct s_module *mod = handle_map_get(&s->modules, m.module);
    if (!mod)
        return HW_EHANDLE;
    rc = module_global(s, mod, name, &r.ptr, &r.size);
    if (rc != HW_OK)
        return rc;
    /* Copies to and from the global are checked like any allocation. */
    if (!alloc_table_find(&s->allocs, r.ptr, r.size)) {
        struct alloc_range ar = { r.ptr, r.size, mod->device, ALLOC_GLOBAL, m.module };
        if (alloc_table_insert(&s->allocs, &ar) < 0)
            return HW_EINVAL;
    }
    uint8_t out[HIPR_global_rep_SIZE];
    hipr_global_rep_encode(out, &r);
    session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

static void unload_module(struct session *s, uint64_t id, struct s_module *mod)
{
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&s->functions, &pos, &key, &v)) {
        struct s_function *fn = v;
        if (fn->module == id) {
            handle_map_del(&s->functions, key);
            free(fn->name);
            free(fn);
        }
    }
    for (size_t i = s->allocs.len; i-- > 0;) {
        struct alloc_range r = s->allocs.v[i];
        if (r.kind == ALLOC_GLOBAL && r.owner == id)
            alloc_table_remove(&s->allocs, r.base, &r);
    }
    module_unload(s, mod);
}

HANDLER(MODULE_UNLOAD)
{
    struct hipr_module m;
    (void)h;
    hipr_module_decode(fixed, HIPR_module_SIZE, &m);
    struct s_module *mod = handle_map_del(&s->modules, m.module);
    if (!mod)
        return HW_EHANDLE;
    session_drain(s, -1); /* queued work may still run its code or touch its globals */
    unload_module(s, m.module, mod);
    hw_debug("session %016llx: module %llu unloaded", (unsigned long long)s->id,
             (unsigned long long)m.module);
    return HW_OK;
}

HANDLER(LAUNCH)
{
    struct hipr_launch m;
    struct hw_bstream *bs;
    int dev, rc;
    uint8_t args[HIPR_CAP_KERNEL_ARGS];
    (void)h;
    hipr_launch_decode(fixed, HIPR_launch_SIZE, &m);
    uint64_t n = s->tail_left;
    if (session_read_tail(s, args, n) < 0)
        return -1;
    struct s_function *fn = handle_map_get(&s->functions, m.function);
    if (!fn)
        return HW_EHANDLE;
    if ((rc = resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    struct s_module *mod = handle_map_get(&s->modules, fn->module);
    if (!mod || mod->device != dev)
        return HW_EHANDLE; /* a function runs only on its module's device */
    if ((rc = module_runnable(mod)) != HW_OK)
        return rc;
    if (n < fn->info.args_size)
        return HW_EINVAL;
    uint32_t grid[3] = { m.grid_x, m.grid_y, m.grid_z };
    uint32_t block[3] = { m.block_x, m.block_y, m.block_z };
    if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2])
        return HW_ECONFIG;
    if ((uint64_t)block[0] * block[1] * block[2] > (uint64_t)fn->info.max_threads_per_block)
        return HW_ECONFIG;
    struct s_event *start = m.start_event ? handle_map_get(&s->events, m.start_event) : NULL;
    struct s_event *stop = m.stop_event ? handle_map_get(&s->events, m.stop_event) : NULL;
    if ((m.start_event && !start) || (m.stop_event && !stop))
        return HW_EHANDLE;
    if (start && (rc = s->ops->event_record(s->be, start->be, bs)) != HW_OK)
        return rc;
    uint64_t queued = start ? INFLIGHT_OP_COST : 0;
    rc = module_launch(s, fn, bs, grid, block, m.shared_mem, args, (uint32_t)n, m.flags);
    if (rc == HW_OK) {
        queued += INFLIGHT_OP_COST + n; /* the backend keeps a copy of the arguments */
        if (stop && (rc = s->ops->event_record(s->be, stop->be, bs)) == HW_OK)
            queued += INFLIGHT_OP_COST;
    }
    if (queued)
        inflight_queued(s, m.stream, bs, queued);
    return rc;
}

/* ---- runtime compilation (rtc.c) ------------------------------------------------ */

HANDLER(RTC_COMPILE)
{
    return rtc_handle_compile(s, h, fixed);
}

/* ---- teardown and dispatch ---------------------------------------------------- */

void session_release_all(struct session *s)
{
    size_t pos;
    uint64_t key;
    void *v;
    uint64_t bytes = s->allocs.malloc_bytes;
    size_t nallocs = 0;

    if (!s->be)
        goto out;
    rtc_session_end(s); /* compile threads call the backend */
    __atomic_store_n(&s->value_waits_cancel, 1, __ATOMIC_RELEASE); /* nobody will write them now */
    session_drain(s, -1);
    for (pos = 0; handle_map_next(&s->streams, &pos, &key, &v);) {
        struct s_stream *st = v;
        s->ops->stream_destroy(s->be, st->bs);
        free(st);
    }
    for (pos = 0; handle_map_next(&s->events, &pos, &key, &v);) {
        struct s_event *ev = v;
        s->ops->event_destroy(s->be, ev->be);
        free(ev);
    }
    handle_map_free(&s->streams);
    quota_streams_changed(s); /* its share of the budget, before the process is reaped */
    handle_map_free(&s->events);
    for (pos = 0; handle_map_next(&s->modules, &pos, &key, &v);)
        unload_module(s, key, v);
    handle_map_free(&s->modules);
    handle_map_free(&s->functions);
    for (size_t i = 0; i < s->allocs.len; i++)
        if (s->allocs.v[i].kind == ALLOC_MALLOC) {
            free_allocation(s, &s->allocs.v[i]);
            nallocs++;
        }
    s->allocs.len = 0;
    s->allocs.malloc_bytes = 0;
    session_update_usage(s);
    s->ops->close(s->be);
    s->be = NULL;
    hw_info("session %016llx: freed %llu bytes in %zu allocations", (unsigned long long)s->id,
            (unsigned long long)bytes, nallocs);
out:
    alloc_table_free(&s->allocs);
}

int dispatch_request(struct session *s, const struct hipr_header *h,
                     const struct hipr_op_info *info, const uint8_t *fixed)
{
    int rc;
    switch (h->opcode) {
#define HIPR_DISPATCH_CASE_(NAME, num, req, rep, rcap, pcap, kind) \
    case num: rc = h_##NAME(s, h, fixed); break;
        HIPR_OPS(HIPR_DISPATCH_CASE_)
#undef HIPR_DISPATCH_CASE_
    default: rc = HW_ENOTSUP; break;
    }
    if (rc < 0)
        return -1;
    int wants_reply = !(h->flags & HIPR_FLAG_NO_REPLY);
    if (info->kind == HIPR_KIND_SYNC) {
        if (rc != HW_OK)
            session_reply(s, h->opcode, h->request_id, rc, NULL, 0, NULL, 0);
    } else if (wants_reply) {
        session_reply(s, h->opcode, h->request_id, rc, NULL, 0, NULL, 0);
    } else if (rc != HW_OK) {
        hw_debug("session %016llx: deferred error %d from %s", (unsigned long long)s->id, rc,
                 info->name);
        session_async_error(s, rc);
    }
    return rc;
}
