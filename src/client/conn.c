/*
 * conn.c - the proxy's connection to hip-worker: connect and handshake,
 * the coalescing write buffer, and reply demultiplexing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "hw_log.h"
#include "hw_net.h"

#define WBUF_SIZE      (256 * 1024)
#define FLUSH_BYTES    (64 * 1024)  /* keep the worker fed while buffering */
#define FLUSH_OPS      256

static struct hw_conn the_conn;
static pthread_once_t conn_once = PTHREAD_ONCE_INIT;
static int conn_ok;

static hipError_t handshake(struct hw_conn *c)
{
    struct hipr_hello_req req = { .proto_min = HIPR_VERSION, .proto_max = HIPR_VERSION,
                                  .client_pid = (uint32_t)getpid() };
    uint8_t fixed[HIPR_hello_req_SIZE];
    uint8_t body[HIPR_hello_rep_SIZE];
    uint64_t tail_len = 0;
    size_t cap = (size_t)HIPR_CAP_DEVICES * HIPR_devinfo_SIZE;
    uint8_t *tail = malloc(cap);
    if (!tail)
        return hipErrorOutOfMemory;
    hipr_hello_req_encode(fixed, &req);
    hipError_t err = hw_call(c, HIPR_OP_HELLO, fixed, sizeof fixed, NULL, 0, body, sizeof body,
                             tail, cap, &tail_len);
    if (err != hipSuccess)
        goto out;
    struct hipr_hello_rep rep;
    hipr_hello_rep_decode(body, sizeof body, &rep);
    if (rep.devinfo_size != HIPR_devinfo_SIZE || rep.device_count > HIPR_CAP_DEVICES ||
        tail_len != (uint64_t)rep.device_count * HIPR_devinfo_SIZE) {
        err = hipErrorNotInitialized;
        goto out;
    }
    c->session_id = rep.session_id;
    c->device_count = (int)rep.device_count;
    c->runtime_version = rep.runtime_version;
    c->driver_version = rep.driver_version;
    memcpy(c->backend, rep.backend, sizeof c->backend - 1);
    c->devs = calloc(rep.device_count ? rep.device_count : 1, sizeof *c->devs);
    c->props = calloc(rep.device_count ? rep.device_count : 1, sizeof *c->props);
    if (!c->devs || !c->props) {
        err = hipErrorOutOfMemory;
        goto out;
    }
    for (uint32_t i = 0; i < rep.device_count; i++) {
        hipr_devinfo_decode(tail + i * HIPR_devinfo_SIZE, HIPR_devinfo_SIZE, &c->devs[i]);
        hw_props_from_devinfo(&c->devs[i], &c->props[i]);
    }
out:
    free(tail);
    return err;
}

static void conn_init(void)
{
    struct hw_conn *c = &the_conn;

    hw_log_init("hipwire");
    pthread_mutex_init(&c->wlock, NULL);
    pthread_mutex_init(&c->rlock, NULL);
    pthread_cond_init(&c->rcond, NULL);
    c->fd = -1;
    c->wbuf = malloc(WBUF_SIZE);
    if (c->wbuf && hw_connect_first_worker(c, handshake) == hipSuccess) {
        conn_ok = 1;
        return;
    }
    pthread_mutex_lock(&c->rlock);
    c->broken = 1;
    pthread_mutex_unlock(&c->rlock);
}

struct hw_conn *hw_conn_get(hipError_t *err)
{
    pthread_once(&conn_once, conn_init);
    if (!conn_ok) {
        *err = hipErrorNotInitialized;
        return NULL;
    }
    return &the_conn;
}

static void mark_broken(struct hw_conn *c, const char *why)
{
    pthread_mutex_lock(&c->rlock);
    int was = c->broken;
    c->broken = 1;
    for (struct hw_waiter *w = c->waiters; w; w = w->next)
        if (!w->done) {
            w->done = 1;
            w->status = hipErrorLaunchFailure;
        }
    pthread_cond_broadcast(&c->rcond);
    pthread_mutex_unlock(&c->rlock);
    if (!was && conn_ok)
        fprintf(stderr, "hipwire: lost the connection to hip-worker (%s); the remote session is "
                        "gone and HIP calls will fail\n", why);
}

static int is_broken(struct hw_conn *c)
{
    return __atomic_load_n(&c->broken, __ATOMIC_ACQUIRE);
}

/* Called with wlock held. */
static int flush_locked(struct hw_conn *c, const void *extra, uint64_t extra_len)
{
    struct iovec iov[2] = { { c->wbuf, c->wlen }, { (void *)extra, (size_t)extra_len } };
    if (c->wlen == 0 && extra_len == 0)
        return 0;
    int rc = hw_writev_full(c->fd, iov, 2);
    c->wlen = 0;
    c->wops = 0;
    return rc;
}

static void put_header(uint8_t *p, uint16_t opcode, uint32_t request_id, uint32_t flags,
                       uint64_t payload)
{
    struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION, opcode, request_id, flags, payload };
    hipr_header_encode(p, &h);
}

/* Appends one request to the buffer and, when flush is set or the buffer is
 * due, sends it. A tail too big for the buffer goes out by writev straight
 * from the caller's memory. Called with wlock held. */
static int enqueue_locked(struct hw_conn *c, uint16_t opcode, uint32_t request_id,
                          uint32_t flags, const void *fixed, size_t fixed_len, const void *tail,
                          uint64_t tail_len, int flush)
{
    size_t head = HIPR_HEADER_SIZE + fixed_len;
    int inline_tail = tail_len <= WBUF_SIZE / 4;
    size_t need = head + (inline_tail ? (size_t)tail_len : 0);
    if (c->wlen + need > WBUF_SIZE && flush_locked(c, NULL, 0) < 0)
        return -1;
    put_header(c->wbuf + c->wlen, opcode, request_id, flags, fixed_len + tail_len);
    memcpy(c->wbuf + c->wlen + HIPR_HEADER_SIZE, fixed, fixed_len);
    c->wlen += head;
    if (inline_tail) {
        if (tail_len)
            memcpy(c->wbuf + c->wlen, tail, (size_t)tail_len);
        c->wlen += (size_t)tail_len;
    } else {
        return flush_locked(c, tail, tail_len);
    }
    c->wops++;
    if (flush || c->wlen >= FLUSH_BYTES || c->wops >= FLUSH_OPS)
        return flush_locked(c, NULL, 0);
    return 0;
}

hipError_t hw_post(struct hw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
                   const void *tail, uint64_t tail_len)
{
    if (is_broken(c))
        return hipErrorLaunchFailure;
    pthread_mutex_lock(&c->wlock);
    int rc = enqueue_locked(c, opcode, 0, HIPR_FLAG_NO_REPLY, fixed, fixed_len, tail, tail_len, 0);
    pthread_mutex_unlock(&c->wlock);
    if (rc < 0) {
        mark_broken(c, strerror(errno));
        return hipErrorLaunchFailure;
    }
    return hipSuccess;
}

hipError_t hw_flush(struct hw_conn *c)
{
    pthread_mutex_lock(&c->wlock);
    int rc = flush_locked(c, NULL, 0);
    pthread_mutex_unlock(&c->wlock);
    if (rc < 0) {
        mark_broken(c, strerror(errno));
        return hipErrorLaunchFailure;
    }
    return hipSuccess;
}

hipError_t hw_take_async_error(struct hw_conn *c)
{
    return (hipError_t)__atomic_exchange_n(&c->async_error, 0, __ATOMIC_ACQ_REL);
}

/* Reads one reply frame and delivers it. Called by the reader, no lock held. */
static int read_one(struct hw_conn *c)
{
    uint8_t hbuf[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    struct hipr_header h;
    struct hipr_reply_hdr rh;
    const struct hipr_op_info *info;

    if (hw_read_full(c->fd, hbuf, HIPR_HEADER_SIZE) < 0)
        return -1;
    hipr_header_decode(hbuf, &h);
    if (hipr_check_reply(&h, &info) != HIPR_OK || !(h.flags & HIPR_FLAG_RESPONSE)) {
        errno = EPROTO;
        return -1;
    }
    if (hw_read_full(c->fd, hbuf + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE) < 0)
        return -1;
    hipr_reply_hdr_decode(hbuf + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE, &rh);
    if (rh.async_status != 0) {
        int expected = 0;
        __atomic_compare_exchange_n(&c->async_error, &expected, rh.async_status, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
    uint64_t rest = h.payload_length - HIPR_reply_hdr_SIZE;

    pthread_mutex_lock(&c->rlock);
    struct hw_waiter *w = c->waiters;
    while (w && w->request_id != h.request_id)
        w = w->next;
    pthread_mutex_unlock(&c->rlock);
    if (!w)
        return hw_discard(c->fd, rest); /* nobody waits (cannot happen with our requests) */

    /* The waiter sleeps until done is set, so its buffers are ours to fill. */
    uint64_t body = rest < w->body_cap ? rest : w->body_cap;
    if (body && hw_read_full(c->fd, w->body, (size_t)body) < 0)
        return -1;
    rest -= body;
    if (rh.status == 0 && body < w->body_cap) {
        errno = EPROTO; /* a success reply must carry its whole body */
        return -1;
    }
    uint64_t tail = rest < w->tail_cap ? rest : w->tail_cap;
    if (tail && hw_read_full(c->fd, w->tail, (size_t)tail) < 0)
        return -1;
    rest -= tail;
    if (rest && hw_discard(c->fd, rest) < 0)
        return -1;

    pthread_mutex_lock(&c->rlock);
    w->tail_len = tail;
    w->status = rh.status;
    w->done = 1;
    pthread_cond_broadcast(&c->rcond);
    pthread_mutex_unlock(&c->rlock);
    return 0;
}

static void unlink_waiter(struct hw_conn *c, struct hw_waiter *w)
{
    for (struct hw_waiter **pp = &c->waiters; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            return;
        }
}

hipError_t hw_call(struct hw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
                   const void *req_tail, uint64_t req_tail_len, void *body, size_t body_cap,
                   void *tail, uint64_t tail_cap, uint64_t *tail_len)
{
    struct hw_waiter w = { .body = body, .body_cap = body_cap, .tail = tail,
                           .tail_cap = tail_cap };
    if (is_broken(c))
        return hipErrorLaunchFailure;

    pthread_mutex_lock(&c->rlock);
    w.request_id = ++c->next_request_id;
    if (w.request_id == 0)
        w.request_id = ++c->next_request_id;
    w.next = c->waiters;
    c->waiters = &w;
    pthread_mutex_unlock(&c->rlock);

    pthread_mutex_lock(&c->wlock);
    int rc = enqueue_locked(c, opcode, w.request_id, 0, fixed, fixed_len, req_tail, req_tail_len,
                            1);
    pthread_mutex_unlock(&c->wlock);
    if (rc < 0)
        mark_broken(c, strerror(errno));

    pthread_mutex_lock(&c->rlock);
    while (!w.done) {
        if (c->reader_active) {
            pthread_cond_wait(&c->rcond, &c->rlock);
            continue;
        }
        /* Nobody is reading: this thread reads until its own reply arrives. */
        c->reader_active = 1;
        pthread_mutex_unlock(&c->rlock);
        int r = read_one(c);
        pthread_mutex_lock(&c->rlock);
        c->reader_active = 0;
        pthread_cond_broadcast(&c->rcond); /* let another waiter take over */
        if (r < 0) {
            pthread_mutex_unlock(&c->rlock);
            mark_broken(c, errno ? strerror(errno) : "worker closed the connection");
            pthread_mutex_lock(&c->rlock);
        }
    }
    unlink_waiter(c, &w);
    pthread_mutex_unlock(&c->rlock);
    if (tail_len)
        *tail_len = w.tail_len;
    return (hipError_t)w.status;
}

/* Queued work must reach the worker even if the program never synchronises. */
__attribute__((destructor)) static void conn_fini(void)
{
    if (!conn_ok)
        return;
    struct hw_conn *c = &the_conn;
    pthread_mutex_lock(&c->wlock);
    flush_locked(c, NULL, 0);
    pthread_mutex_unlock(&c->wlock);
    shutdown(c->fd, SHUT_WR);
}
