/*
 * conn.c - the proxy's call layer: the session's set-up (HELLO,
 * RESUME_ENABLE) on a link the link layer connected and secured
 * (worker_list.c, link.c), the coalescing write buffer (which, while the
 * session is resumable, is also the replay buffer: replay_ring.h),
 * acknowledgements both ways, reply demultiplexing and the heartbeat
 * thread. Getting a lost connection back is resume.c's. It calls only the
 * link layer and the base files (docs/architecture.md, "Layers").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "client.h"
#include "hw_auth.h"
#include "hw_link.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_os.h"
#include "hw_transport.h"
#include "hw_time.h"

#define WBUF_SIZE (256 * 1024) /* the ring when the session is not resumable */
/* Larger tails go from the caller's memory and, when resumable, the call
 * waits until the worker has them: copying 256 KiB-1 MiB tails into the
 * ring instead measured slower (docs/benchmarks.md). */
#define INLINE_TAIL    (64 * 1024)
#define INLINE_FIXED   64          /* room for the largest fixed part */
#define REPLAY_DEFAULT (16u << 20) /* TF_WORKER_REPLAY_BYTES */
#define FLUSH_BYTES    (64 * 1024) /* keep the worker fed while buffering */
#define FLUSH_OPS      256
#define HEARTBEAT_MS   5000       /* TF_WORKER_HEARTBEAT default */
#define ACK_NOW_BYTES  (1u << 20) /* a reply this large is acknowledged at once */
#define ACK_EVERY      64         /* small replies acknowledged in batches */

static struct hw_conn the_conn;
static pthread_once_t conn_once = PTHREAD_ONCE_INIT;
static int conn_ok;

static void heartbeat_start(struct hw_conn *c);

/* HELLO: the session, and the devices, cached for every local answer. */
static hipError_t hello(struct hw_conn *c, uint64_t resume_token, char *why, size_t why_len)
{
    struct hipr_hello_req req = { .proto_min = HIPR_VERSION,
                                  .proto_max = HIPR_VERSION,
                                  .client_pid = (uint32_t)hw_os_pid(),
                                  .flags = HIPR_HELLO_WAIT_OK,
                                  .resume_token = resume_token };
    uint8_t fixed[HIPR_hello_req_SIZE];
    uint8_t body[HIPR_hello_rep_SIZE];
    uint64_t tail_len = 0;
    int status = 0;
    size_t cap = (size_t)HIPR_CAP_DEVICES * HIPR_devinfo_SIZE;
    uint8_t *tail = hw_malloc(cap);
    hipError_t err = hipSuccess;
    if (!tail)
        return hipErrorOutOfMemory;
    hipr_hello_req_encode(fixed, &req);
    /* The worker may answer only once a session is free and its device
     * started, saying meanwhile that it is on it (admission.c). */
    if (hw_link_call_watch(&c->tx, HIPR_OP_HELLO, 3, fixed, sizeof fixed, NULL, 0, body,
                           sizeof body, tail, cap, &tail_len, &status, hw_admit_watch,
                           &c->admit) < 0) {
        hw_admit_explain(&c->admit);
        if (c->admit.why[0])
            snprintf(why, why_len, "%s", c->admit.why);
        else
            snprintf(why, why_len, "HELLO failed (%s)",
                     errno ? hw_os_strerror(errno) : "the worker closed the connection");
        err = hipErrorNotInitialized;
        goto out;
    }
    err = (hipError_t)status;
    if (err == hipErrorLaunchOutOfResources && c->admit.retry_after_ms)
        snprintf(why, why_len, "busy: --max-sessions reached and its admission queue is full");
    else if (err == hipErrorLaunchOutOfResources)
        snprintf(why, why_len, "the worker is at --max-sessions");
    else if (err == hipErrorNotInitialized)
        snprintf(why, why_len, "the worker refused the session (not authenticated)");
    else if (err == hipErrorNoDevice)
        snprintf(why, why_len, "the worker is draining (hipwire drain): no new sessions");
    else if (err != hipSuccess)
        snprintf(why, why_len, "HELLO failed (%s)", hipGetErrorName(err));
    if (err != hipSuccess)
        goto out;
    struct hipr_hello_rep rep;
    hipr_hello_rep_decode(body, sizeof body, &rep);
    if (rep.devinfo_size != HIPR_devinfo_SIZE || rep.device_count > HIPR_CAP_DEVICES ||
        tail_len != (uint64_t)rep.device_count * HIPR_devinfo_SIZE) {
        snprintf(why, why_len, "malformed HELLO reply");
        err = hipErrorNotInitialized;
        goto out;
    }
    c->session_id = rep.session_id;
    c->device_count = (int)rep.device_count;
    c->runtime_version = rep.runtime_version;
    c->driver_version = rep.driver_version;
    memcpy(c->backend, rep.backend, sizeof c->backend - 1);
    /* A setup retried after a cut (worker_list.c) comes here again. */
    free(c->devs);
    free(c->props);
    c->devs = hw_calloc(rep.device_count ? rep.device_count : 1, sizeof *c->devs);
    c->props = hw_calloc(rep.device_count ? rep.device_count : 1, sizeof *c->props);
    if (!c->devs || !c->props) {
        err = hipErrorOutOfMemory;
        goto out;
    }
    for (uint32_t i = 0; i < rep.device_count; i++) {
        hipr_devinfo_decode(tail + i * HIPR_devinfo_SIZE, HIPR_devinfo_SIZE, &c->devs[i]);
        hw_props_from_devinfo(&c->devs[i], &c->props[i]);
    }
    err = hw_visible_devices_apply(c); /* HIP_VISIBLE_DEVICES and the like */
out:
    free(tail);
    return err;
}

/* RESUME_ENABLE: whether the worker keeps this session across a cut. Off
 * when TF_WORKER_RESUME_TIMEOUT_MS=0, or when the worker says no (an
 * older worker, --resume-grace 0). */
static int enable_resume(struct hw_conn *c)
{
    uint8_t body[HIPR_resume_enable_rep_SIZE];
    int status = -1;
    if (!c->resume_token)
        return 0;
    if (hw_link_call(&c->tx, HIPR_OP_RESUME_ENABLE, 4, NULL, 0, NULL, 0, body, sizeof body, NULL, 0,
                     NULL, &status) < 0)
        return -1; /* the link broke: this session cannot be used */
    if (status != 0) {
        hw_debug("session resume is off (the worker does not offer it)");
        return 0;
    }
    struct hipr_resume_enable_rep rep;
    hipr_resume_enable_rep_decode(body, sizeof body, &rep);
    c->resumable = 1;
    if (!c->resume_ms)
        c->resume_ms = (int)(rep.grace_ms < 600000 ? rep.grace_ms : 600000);
    hw_debug("session resume on: the worker keeps the session %u ms after a cut; calls wait up "
             "to %d ms",
             rep.grace_ms, c->resume_ms);
    return 0;
}

/* Sets up a session on c->tx, freshly connected to worker w by
 * hw_connect_first_worker: TLS when asked for, authentication, HELLO, and
 * RESUME_ENABLE. */
static hipError_t open_link(struct hw_conn *c, const struct hw_worker_addr *w, int timeout_ms,
                            char *why, size_t why_len)
{
    uint32_t hb = (uint32_t)hw_env_int("TF_WORKER_HEARTBEAT", HEARTBEAT_MS, 0, 600000);
    int fatal;
    uint64_t t0 = hw_now_ms();
    c->setup_cut = 0;
    if (hw_link_secure(&c->tx, w, 0, timeout_ms, &hb, NULL, why, why_len, &fatal) < 0) {
        /* A connection cut before the session exists is worth another try;
         * a refused token or a timeout is not. */
        c->setup_cut = !fatal && hw_now_ms() - t0 < (uint64_t)timeout_ms;
        return hipErrorNotInitialized;
    }
    c->heartbeat_ms = (int)hb;
    hipError_t err = hello(c, c->resume_token, why, why_len);
    if (err == hipErrorNotInitialized && !c->admit.why[0] &&
        hw_now_ms() - t0 < (uint64_t)timeout_ms)
        c->setup_cut = 1; /* the link broke during HELLO, not a refusal */
    if (err == hipSuccess && hw_shm_negotiate(c, why, why_len) < 0)
        err = hipErrorNotInitialized;
    if (err == hipSuccess && enable_resume(c) < 0) {
        snprintf(why, why_len, "the connection broke before the session was set up (%s)",
                 errno ? hw_os_strerror(errno) : "closed");
        c->setup_cut = 1;
        err = hipErrorNotInitialized;
    }
    return err;
}

static void conn_init(void)
{
    struct hw_conn *c = &the_conn;
    char why[512] = "";

    hw_log_init("hipwire");
    /* The heartbeat and resume threads run this library's code. */
    hw_os_keep_loaded();
    pthread_mutex_init(&c->wlock, NULL);
    pthread_mutex_init(&c->rlock, NULL);
    pthread_cond_init(&c->rcond, NULL);
    pthread_cond_init(&c->resume_cond, NULL);
    pthread_mutex_init(&c->region_lock, NULL);
    c->shm_side_fd = -1;
    hw_tx_init_plain(&c->tx, -1);
    if (hw_link_security_from_env(why, sizeof why) < 0) {
        const char *hosts = getenv("TF_WORKER_HOST");
        fprintf(stderr,
                "hipwire: not connecting to hip-worker at %s: %s; HIP calls will return "
                "hipErrorNotInitialized\n",
                hosts && *hosts ? hosts : "127.0.0.1", why);
        goto fail;
    }
    /* TF_WORKER_RESUME_TIMEOUT_MS=0 turns resume off; unset, calls wait as
     * long as the worker keeps the session. The replay ring and the resume
     * thread exist before the worker is asked, so that a worker keeping
     * the session never faces a client that cannot resume it. */
    c->resume_ms = hw_env_int("TF_WORKER_RESUME_TIMEOUT_MS", -1, 0, 3600000);
    if (c->resume_ms != 0 && hw_random_bytes(&c->resume_token, sizeof c->resume_token) < 0)
        c->resume_token = 0;
    if (c->resume_ms < 0)
        c->resume_ms = 0; /* the worker's grace, once it says */
    if (c->resume_token) {
        uint64_t cap =
            (uint64_t)hw_env_int("TF_WORKER_REPLAY_BYTES", REPLAY_DEFAULT, 1 << 20, 1 << 30);
        if (replay_ring_init(&c->ring, cap, INLINE_TAIL + INLINE_FIXED) < 0) {
            c->resume_token = 0;
        } else if (hw_resume_start(c) < 0) {
            replay_ring_free(&c->ring);
            c->resume_token = 0;
        }
    }
    if (!c->resume_token && replay_ring_init(&c->ring, WBUF_SIZE, INLINE_TAIL + INLINE_FIXED) < 0)
        goto fail;
    if (hw_connect_first_worker(c, open_link) != hipSuccess)
        goto fail;
    if (c->resume_token && !c->resumable) {
        /* The worker does not keep sessions: the small buffer will do. */
        replay_ring_free(&c->ring);
        if (replay_ring_init(&c->ring, WBUF_SIZE, INLINE_TAIL + INLINE_FIXED) < 0)
            goto fail;
    }
    hw_debug("session %016llx (%s%s), backend %s, %d device(s)", (unsigned long long)c->session_id,
             hw_tx_kind(&c->tx), c->resumable ? ", resumable" : "", c->backend, c->device_count);
    conn_ok = 1;
    c->opened = 1;
    heartbeat_start(c);
    return;
fail:
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

static int is_broken(struct hw_conn *c)
{
    return __atomic_load_n(&c->broken, __ATOMIC_ACQUIRE);
}

static int is_down(struct hw_conn *c)
{
    return __atomic_load_n(&c->down, __ATOMIC_ACQUIRE);
}

/* ---- writing ------------------------------------------------------------- */

static void drain_readable_locked(struct hw_conn *c);

/* A write failed. Called with wlock held (so c->gen is the link written). */
static void write_failed_locked(struct hw_conn *c)
{
    hw_link_lost(c, c->gen, hw_os_strerror(errno));
}

/* Sends what the ring holds unsent, then `extra` (a large tail from the
 * caller's memory). While the connection is down nothing is written: the
 * frames wait in the ring for the resumed one. Called with wlock held. */
static void flush_locked(struct hw_conn *c, const void *extra, uint64_t extra_len)
{
    struct iovec iov[REPLAY_RING_PADS + 3];
    int n = replay_ring_unsent(&c->ring, iov, REPLAY_RING_PADS + 2);
    c->wops = 0;
    if ((n == 0 && extra_len == 0) || is_down(c) || is_broken(c))
        return;
    iov[n].iov_base = (void *)extra;
    iov[n].iov_len = (size_t)extra_len;
    int rc = hw_tx_writev_full(&c->tx, iov, n + 1);
    replay_ring_mark_sent(&c->ring);
    if (c->resumable)
        replay_ring_note_send(&c->ring, c->requests_sent);
    else
        replay_ring_drop_sent(&c->ring);
    if (rc < 0)
        write_failed_locked(c);
    else if (c->heartbeat_ms)
        __atomic_store_n(&c->last_send_ms, hw_now_ms(), __ATOMIC_RELAXED);
}

static void put_frame(uint8_t *p, uint16_t opcode, uint32_t request_id, uint32_t flags,
                      const void *fixed, size_t fixed_len, uint64_t payload)
{
    struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION, opcode, request_id, flags, payload };
    hipr_header_encode(p, &h);
    if (fixed_len)
        memcpy(p + HIPR_HEADER_SIZE, fixed, fixed_len);
}

/* Room for len bytes in the ring. Not resumable: sending what is there
 * makes room. Resumable: frames the worker executed are dropped; if that
 * is not enough, the writer asks for an acknowledgement and waits for it,
 * without wlock (the resume thread may need it). NULL only when the
 * connection is gone for good. Called with wlock held; returns with it. */
static uint8_t *room_locked(struct hw_conn *c, size_t len)
{
    uint8_t *p;
    while (!(p = replay_ring_reserve(&c->ring, len))) {
        if (is_broken(c))
            return NULL;
        if (!c->resumable) {
            flush_locked(c, NULL, 0);
            continue;
        }
        uint64_t done = __atomic_load_n(&c->worker_done, __ATOMIC_ACQUIRE);
        replay_ring_release(&c->ring, done);
        if ((p = replay_ring_reserve(&c->ring, len)) != NULL)
            break;
        if (is_down(c)) {
            /* Nothing can be sent or acknowledged until the link is back. */
            pthread_mutex_unlock(&c->wlock);
            pthread_mutex_lock(&c->rlock);
            while (c->down && !c->broken)
                pthread_cond_wait(&c->rcond, &c->rlock);
            pthread_mutex_unlock(&c->rlock);
            pthread_mutex_lock(&c->wlock);
            continue;
        }
        flush_locked(c, NULL, 0);
        if (!is_down(c) && !is_broken(c)) {
            /* The ring has no room for the request for an ACK either: it
             * goes out on its own. */
            struct hipr_ack a = { .count = __atomic_load_n(&c->replies_read, __ATOMIC_ACQUIRE),
                                  .flags = HIPR_ACK_REQUEST };
            uint8_t fr[HIPR_HEADER_SIZE + HIPR_ack_SIZE], ab[HIPR_ack_SIZE];
            hipr_ack_encode(ab, &a);
            put_frame(fr, HIPR_OP_ACK, 0, HIPR_FLAG_NO_REPLY, ab, sizeof ab, sizeof ab);
            if (hw_tx_write_full(&c->tx, fr, sizeof fr) < 0) {
                write_failed_locked(c);
            } else {
                c->replies_acked = a.count;
                c->ack_asked_at = c->requests_sent;
            }
        }
        /* Room comes a send at a time: wait for the oldest one kept. */
        uint64_t target = replay_ring_oldest_send(&c->ring);
        if (target <= done)
            target = done + 1;
        if (target > c->requests_sent)
            target = c->requests_sent;
        pthread_mutex_unlock(&c->wlock);
        int rc = hw_wait_worker(c, target);
        pthread_mutex_lock(&c->wlock);
        if (rc < 0)
            return NULL;
    }
    return p;
}

/* Appends a mark (HEARTBEAT, ACK): not a request, never waited for. */
static int mark_locked(struct hw_conn *c, uint16_t opcode, const void *fixed, size_t len)
{
    uint8_t *p = room_locked(c, HIPR_HEADER_SIZE + len);
    if (!p)
        return -1;
    put_frame(p, opcode, 0, HIPR_FLAG_NO_REPLY, fixed, len, len);
    replay_ring_commit(&c->ring, HIPR_HEADER_SIZE + len);
    c->wops++;
    return 0;
}

/* Tells the worker which replies have arrived, so that it can drop its
 * copies (ask: and asks how far it got; all: even a few small ones);
 * travels in front of the next request, at no extra system call. */
static int ack_replies_locked(struct hw_conn *c, int ask, int all)
{
    uint64_t read = __atomic_load_n(&c->replies_read, __ATOMIC_ACQUIRE);
    if (read == c->replies_acked && !ask)
        return 0;
    /* Small replies cost the worker little to keep: they are acknowledged
     * in batches. One with data (a D2H copy) is acknowledged before the
     * next request, so the worker need not copy what it lent from device
     * memory. */
    if (!ask && !all && read - c->replies_acked < ACK_EVERY &&
        (!__atomic_load_n(&c->data_unacked, __ATOMIC_RELAXED) ||
         !__atomic_exchange_n(&c->data_unacked, 0, __ATOMIC_ACQ_REL)))
        return 0;
    struct hipr_ack a = { .count = read, .flags = ask ? HIPR_ACK_REQUEST : 0 };
    uint8_t buf[HIPR_ack_SIZE];
    hipr_ack_encode(buf, &a);
    if (mark_locked(c, HIPR_OP_ACK, buf, sizeof buf) < 0)
        return -1;
    c->replies_acked = read;
    if (ask)
        c->ack_asked_at = c->requests_sent;
    return 0;
}

/* Appends one request and, when flush is set or the buffer is due, sends
 * it. A tail too big for the ring goes out by writev straight from the
 * caller's memory; ext (required then) records it for a resume. *seq gets
 * the request's number before it can go out. Called with wlock held. 0
 * when the request is queued (sent, or kept for a resumed connection), -1
 * when the connection is gone for good. */
static int enqueue_locked(struct hw_conn *c, uint16_t opcode, uint32_t request_id, uint32_t flags,
                          const void *fixed, size_t fixed_len, const void *tail, uint64_t tail_len,
                          int flush, struct hw_ext_tail *ext, uint64_t *seq)
{
    uint64_t payload = fixed_len + tail_len;
    int inline_tail = payload <= c->ring.inline_max;
    size_t len = HIPR_HEADER_SIZE + fixed_len + (inline_tail ? (size_t)tail_len : 0);
    if (c->resumable && ack_replies_locked(c, 0, 0) < 0)
        return -1;
    uint8_t *p = room_locked(c, len);
    if (!p)
        return -1;
    put_frame(p, opcode, request_id, flags, fixed, fixed_len, payload);
    if (inline_tail && tail_len)
        memcpy(p + HIPR_HEADER_SIZE + fixed_len, tail, (size_t)tail_len);
    replay_ring_commit(&c->ring, len);
    *seq = ++c->requests_sent;
    if (!inline_tail) {
        if (c->resumable) {
            ext->seq = *seq;
            ext->data = tail;
            ext->len = tail_len;
            ext->next = c->ext;
            c->ext = ext;
        }
        flush_locked(c, tail, tail_len);
        return 0;
    }
    c->wops++;
    uint64_t unsent = c->ring.head - c->ring.sent;
    int due = unsent >= FLUSH_BYTES || c->wops >= FLUSH_OPS;
    /* Past half the ring, once per flush: drop what the worker executed,
     * read what it said if nobody else is reading, and if that is not
     * enough ask how far it got, well before the ring is full. */
    if (due && c->resumable && replay_ring_used(&c->ring) > c->ring.cap / 2) {
        drain_readable_locked(c);
        replay_ring_release(&c->ring, __atomic_load_n(&c->worker_done, __ATOMIC_ACQUIRE));
        if (replay_ring_used(&c->ring) > c->ring.cap / 2 &&
            c->ack_asked_at <= __atomic_load_n(&c->worker_done, __ATOMIC_ACQUIRE) &&
            ack_replies_locked(c, 1, 1) < 0)
            return 0; /* the request is in; only the question is not */
    }
    if (flush || due)
        flush_locked(c, NULL, 0);
    return 0;
}

static void unlink_ext_locked(struct hw_conn *c, struct hw_ext_tail *e)
{
    for (struct hw_ext_tail **pp = &c->ext; *pp; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            return;
        }
}

hipError_t hw_post(struct hw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
                   const void *tail, uint64_t tail_len)
{
    struct hw_ext_tail ext = { 0 };
    uint64_t seq = 0;
    if (is_broken(c))
        return hipErrorLaunchFailure;
    __atomic_add_fetch(&hw_stat_posted, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&c->wlock);
    /* The first request after a call is sent at once: the worker (and the
     * GPU) may be idle, waiting for the work the program issues next, as
     * after a training step's loss read-back. Later ones are batched. */
    int rc = enqueue_locked(c, opcode, 0, HIPR_FLAG_NO_REPLY, fixed, fixed_len, tail, tail_len,
                            c->send_next, &ext, &seq);
    c->send_next = 0;
    if (rc == 0 && ext.seq && ack_replies_locked(c, 1, 1) == 0)
        flush_locked(c, NULL, 0);
    pthread_mutex_unlock(&c->wlock);
    /* The caller may reuse its memory when this returns: a tail sent from it
     * must have reached the worker, which may need it sent again. */
    if (ext.seq) {
        int w = hw_wait_worker(c, seq);
        pthread_mutex_lock(&c->wlock);
        unlink_ext_locked(c, &ext);
        pthread_mutex_unlock(&c->wlock);
        if (w < 0)
            return hipErrorLaunchFailure;
    }
    return rc < 0 ? hipErrorLaunchFailure : hipSuccess;
}

hipError_t hw_flush(struct hw_conn *c)
{
    pthread_mutex_lock(&c->wlock);
    flush_locked(c, NULL, 0);
    pthread_mutex_unlock(&c->wlock);
    return is_broken(c) ? hipErrorLaunchFailure : hipSuccess;
}

/* Sends an acknowledgement of what has been read, now (a large reply the
 * worker should stop keeping). */
static void ack_now(struct hw_conn *c)
{
    pthread_mutex_lock(&c->wlock);
    if (ack_replies_locked(c, 0, 1) == 0)
        flush_locked(c, NULL, 0);
    pthread_mutex_unlock(&c->wlock);
}

hipError_t hw_take_async_error(struct hw_conn *c)
{
    return (hipError_t)__atomic_exchange_n(&c->async_error, 0, __ATOMIC_ACQ_REL);
}

/* ---- reading ------------------------------------------------------------- */

static void note_worker_done(struct hw_conn *c, uint64_t done)
{
    uint64_t cur = __atomic_load_n(&c->worker_done, __ATOMIC_ACQUIRE);
    while (done > cur && !__atomic_compare_exchange_n(&c->worker_done, &cur, done, 0,
                                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
}

/* Reads one frame from the worker and delivers it. Called by the reader,
 * no lock held. */
static int read_one(struct hw_conn *c)
{
    uint8_t hbuf[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    struct hipr_header h;
    struct hipr_reply_hdr rh;
    const struct hipr_op_info *info;

    if (hw_tx_read_full(&c->tx, hbuf, HIPR_HEADER_SIZE) < 0) {
        if (errno == ETIMEDOUT && c->heartbeat_ms)
            errno = EHOSTDOWN; /* said as "presumed dead" by the caller */
        return -1;
    }
    if (c->heartbeat_ms)
        __atomic_store_n(&c->last_recv_ms, hw_now_ms(), __ATOMIC_RELAXED);
    hipr_header_decode(hbuf, &h);
    if (hipr_check_reply(&h, &info) != HIPR_OK || !(h.flags & HIPR_FLAG_RESPONSE)) {
        errno = EPROTO;
        return -1;
    }
    if (hw_tx_read_full(&c->tx, hbuf + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE) < 0)
        return -1;
    hipr_reply_hdr_decode(hbuf + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE, &rh);
    if (rh.async_status != 0) {
        int expected = 0;
        __atomic_compare_exchange_n(&c->async_error, &expected, rh.async_status, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
    uint64_t rest = h.payload_length - HIPR_reply_hdr_SIZE;

    if (h.request_id == 0) {
        /* The worker's own frames: how far it got, in both kinds. */
        uint8_t b[HIPR_ack_SIZE];
        if (rest == sizeof b && (h.opcode == HIPR_OP_ACK || h.opcode == HIPR_OP_HEARTBEAT)) {
            if (hw_tx_read_full(&c->tx, b, sizeof b) < 0)
                return -1;
            note_worker_done(c, hipr_get_u64(b)); /* ACK.count, HEARTBEAT.seq */
            pthread_mutex_lock(&c->rlock);
            pthread_cond_broadcast(&c->rcond);
            pthread_mutex_unlock(&c->rlock);
            return 0;
        }
        uint8_t ga[HIPR_going_away_SIZE];
        if (rest == sizeof ga && h.opcode == HIPR_OP_GOING_AWAY) {
            if (hw_tx_read_full(&c->tx, ga, sizeof ga) < 0)
                return -1;
            /* The cut that follows is the worker's doing: nothing to resume. */
            __atomic_store_n(&c->going_away, hipr_get_u32(ga), __ATOMIC_RELEASE);
            return 0;
        }
        if (rest == HIPR_migrate_SIZE && h.opcode == HIPR_OP_MIGRATE) {
            uint8_t mb[HIPR_migrate_SIZE];
            struct hipr_migrate m;
            if (hw_tx_read_full(&c->tx, mb, sizeof mb) < 0)
                return -1;
            hipr_migrate_decode(mb, sizeof mb, &m);
            m.host[sizeof m.host - 1] = '\0';
            /* The cut that follows is the move: the session is resumed there. */
            pthread_mutex_lock(&c->rlock);
            if (m.port > 0 && m.port <= 65535 && m.host[0]) {
                snprintf(c->migrate_to.host, sizeof c->migrate_to.host, "%s", m.host);
                c->migrate_to.port = (int)m.port;
                c->migrate_session = m.session_id;
                c->migrate_pending = 1;
            }
            pthread_mutex_unlock(&c->rlock);
            /* The worker waits for this side to close before it closes (a
             * reset from its side could overtake this frame): the read
             * that follows ends the link, and resume.c goes there. */
            hw_tx_shutdown(&c->tx);
            return 0;
        }
        return hw_tx_discard(&c->tx, rest);
    }
    pthread_mutex_lock(&c->rlock);
    struct hw_waiter *w = c->waiters;
    while (w && w->request_id != h.request_id)
        w = w->next;
    pthread_mutex_unlock(&c->rlock);
    if (!w) {
        /* Nobody waits for it any more. Counted only once read whole: a
         * reply cut short comes again on a resumed connection. */
        if (hw_tx_discard(&c->tx, rest) < 0)
            return -1;
        __atomic_add_fetch(&c->replies_read, 1, __ATOMIC_ACQ_REL);
        return 0;
    }

    /* The waiter sleeps until done is set, so its buffers are ours to fill. */
    uint64_t body = rest < w->body_cap ? rest : w->body_cap;
    if (body && hw_tx_read_full(&c->tx, w->body, (size_t)body) < 0)
        return -1;
    rest -= body;
    if (rh.status == 0 && body < w->body_cap) {
        errno = EPROTO; /* a success reply must carry its whole body */
        return -1;
    }
    uint64_t tail = rest < w->tail_cap ? rest : w->tail_cap;
    if (tail && hw_tx_read_full(&c->tx, w->tail, (size_t)tail) < 0)
        return -1;
    rest -= tail;
    if (rest && hw_tx_discard(&c->tx, rest) < 0)
        return -1;
    __atomic_add_fetch(&c->replies_read, 1, __ATOMIC_ACQ_REL);
    note_worker_done(c, w->seq);
    if (tail)
        __atomic_store_n(&c->data_unacked, 1, __ATOMIC_RELEASE);
    if (tail >= ACK_NOW_BYTES)
        __atomic_store_n(&c->ack_urgent, 1, __ATOMIC_RELEASE);

    pthread_mutex_lock(&c->rlock);
    w->tail_len = tail;
    w->status = rh.status;
    w->done = 1;
    pthread_cond_broadcast(&c->rcond);
    pthread_mutex_unlock(&c->rlock);
    return 0;
}

/* Why a read failed, in words (errno as read_one left it). */
static const char *read_failure(const struct hw_conn *c, char *why, size_t len)
{
    if (errno == EHOSTDOWN)
        snprintf(why, len,
                 "nothing from the worker for %d ms with a heartbeat every %d ms: "
                 "presumed dead",
                 HW_DEAD_AFTER * c->heartbeat_ms, c->heartbeat_ms);
    else
        snprintf(why, len, "%s", errno ? hw_os_strerror(errno) : "worker closed the connection");
    return why;
}

/* Takes the reader role for one frame. Called with rlock held, returns
 * with it held; the link may have been lost meanwhile. */
static void read_as_reader_locked(struct hw_conn *c)
{
    char why[160];
    unsigned gen = c->gen;
    c->reader_active = 1;
    pthread_mutex_unlock(&c->rlock);
    int r = read_one(c);
    if (r < 0)
        read_failure(c, why, sizeof why);
    pthread_mutex_lock(&c->rlock);
    c->reader_active = 0;
    pthread_cond_broadcast(&c->rcond); /* let another waiter take over */
    if (r < 0) {
        pthread_mutex_unlock(&c->rlock);
        hw_link_lost(c, gen, why);
        pthread_mutex_lock(&c->rlock);
    }
}

/* Reads, without waiting, whatever the worker has sent (its ACKs, during a
 * burst nobody else reads), when no other thread is the reader. Called by a
 * writer with wlock held. */
static void drain_readable_locked(struct hw_conn *c)
{
    pthread_mutex_lock(&c->rlock);
    int take = !c->reader_active && !c->down && !c->broken;
    if (take)
        c->reader_active = 1;
    unsigned gen = c->gen;
    pthread_mutex_unlock(&c->rlock);
    if (!take)
        return;
    int failed = 0;
    char why[160] = "";
    while (!failed && hw_tx_poll_readable(&c->tx, 0) > 0)
        failed = read_one(c) < 0;
    if (failed)
        read_failure(c, why, sizeof why);
    pthread_mutex_lock(&c->rlock);
    c->reader_active = 0;
    pthread_cond_broadcast(&c->rcond);
    pthread_mutex_unlock(&c->rlock);
    if (failed)
        hw_link_lost(c, gen, why);
}

int hw_wait_worker(struct hw_conn *c, uint64_t seq)
{
    pthread_mutex_lock(&c->rlock);
    while (__atomic_load_n(&c->worker_done, __ATOMIC_ACQUIRE) < seq && !c->broken) {
        if (c->reader_active || c->down)
            pthread_cond_wait(&c->rcond, &c->rlock);
        else
            read_as_reader_locked(c);
    }
    int rc = c->broken ? -1 : 0;
    pthread_mutex_unlock(&c->rlock);
    return rc;
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
    struct hw_waiter w = { .body = body, .body_cap = body_cap, .tail = tail, .tail_cap = tail_cap };
    struct hw_ext_tail ext = { 0 };
    if (is_broken(c))
        return hipErrorLaunchFailure;
    __atomic_add_fetch(&hw_stat_round_trips, 1, __ATOMIC_RELAXED);

    /* The waiter is registered before its request can go out. */
    pthread_mutex_lock(&c->wlock);
    w.request_id = ++c->next_request_id;
    if (w.request_id == 0)
        w.request_id = ++c->next_request_id;
    pthread_mutex_lock(&c->rlock);
    w.next = c->waiters;
    c->waiters = &w;
    pthread_mutex_unlock(&c->rlock);
    int rc = enqueue_locked(c, opcode, w.request_id, 0, fixed, fixed_len, req_tail, req_tail_len, 1,
                            &ext, &w.seq);
    c->send_next = 1;
    pthread_mutex_unlock(&c->wlock);

    pthread_mutex_lock(&c->rlock);
    while (!w.done) {
        if (c->broken || rc < 0) {
            w.status = hipErrorLaunchFailure; /* the connection is gone for good */
            break;
        }
        if (c->reader_active || c->down)
            pthread_cond_wait(&c->rcond, &c->rlock);
        else
            read_as_reader_locked(c);
    }
    unlink_waiter(c, &w);
    pthread_mutex_unlock(&c->rlock);
    if (ext.seq) {
        pthread_mutex_lock(&c->wlock);
        unlink_ext_locked(c, &ext);
        pthread_mutex_unlock(&c->wlock);
    }
    if (c->resumable && __atomic_exchange_n(&c->ack_urgent, 0, __ATOMIC_ACQ_REL))
        ack_now(c);
    if (tail_len)
        *tail_len = w.tail_len;
    return (hipError_t)w.status;
}

/* ---- heartbeat ------------------------------------------------------------ */

/*
 * The client's half of dead-peer detection (the worker's, and why TCP
 * keepalive is not enough, is in src/worker/heartbeat.c). Every interval it
 * sends a HEARTBEAT if nothing else went out (and an ACK when replies came
 * that the worker still keeps), reads what arrived if no thread is reading
 * (the worker's heartbeats, while the application is idle), and gives the
 * worker up after HW_DEAD_AFTER intervals of silence. A thread blocked in a
 * read is covered by the socket's receive timeout. While the connection is
 * being resumed it waits.
 */
static void *heartbeat_main(void *arg)
{
    struct hw_conn *c = arg;
    int hb = c->heartbeat_ms;
    for (;;) {
        hw_os_sleep_ms(hb);
        if (__atomic_load_n(&c->closing, __ATOMIC_ACQUIRE) || is_broken(c))
            return NULL;
        if (is_down(c))
            continue;
        void (*hook)(struct hw_conn *) = __atomic_load_n(&c->heartbeat_hook, __ATOMIC_ACQUIRE);
        if (hook)
            hook(c);
        uint64_t now = hw_now_ms();
        pthread_mutex_lock(&c->wlock);
        if (!__atomic_load_n(&c->closing, __ATOMIC_ACQUIRE) && !is_down(c)) {
            int ok = !c->resumable || ack_replies_locked(c, 0, 1) == 0;
            if (ok &&
                now - __atomic_load_n(&c->last_send_ms, __ATOMIC_RELAXED) + 10 >= (uint64_t)hb) {
                struct hipr_heartbeat m = { .seq = c->requests_sent, .interval_ms = (uint32_t)hb };
                uint8_t buf[HIPR_heartbeat_SIZE];
                hipr_heartbeat_encode(buf, &m);
                ok = mark_locked(c, HIPR_OP_HEARTBEAT, buf, sizeof buf) == 0;
            }
            if (ok)
                flush_locked(c, NULL, 0);
        }
        pthread_mutex_unlock(&c->wlock);
        if (is_broken(c))
            return NULL;
        if (is_down(c))
            continue;
        /* Nobody reading: drain what came (heartbeats, in the main). */
        pthread_mutex_lock(&c->rlock);
        int take = !c->reader_active && !c->down;
        if (take)
            c->reader_active = 1;
        unsigned gen = c->gen;
        pthread_mutex_unlock(&c->rlock);
        int rfailed = 0;
        char why[160] = "";
        while (take && !rfailed && hw_tx_poll_readable(&c->tx, 0) > 0)
            rfailed = read_one(c) < 0;
        if (rfailed)
            read_failure(c, why, sizeof why);
        if (take) {
            pthread_mutex_lock(&c->rlock);
            c->reader_active = 0;
            pthread_cond_broadcast(&c->rcond);
            pthread_mutex_unlock(&c->rlock);
        }
        if (!rfailed && take &&
            hw_now_ms() - __atomic_load_n(&c->last_recv_ms, __ATOMIC_RELAXED) >
                (uint64_t)HW_DEAD_AFTER * hb) {
            errno = EHOSTDOWN;
            read_failure(c, why, sizeof why);
            rfailed = 1;
        }
        if (rfailed)
            hw_link_lost(c, gen, why);
    }
}

static void heartbeat_start(struct hw_conn *c)
{
    if (!c->heartbeat_ms)
        return;
    hw_heartbeat_link(c);
    if (pthread_create(&c->hb_thread, NULL, heartbeat_main, c) == 0)
        c->hb_running = 1;
    else
        hw_debug("cannot start the heartbeat thread; dead-peer detection is off");
}

/* Queued work must reach the worker even if the program never synchronises;
 * a resumable session is ended explicitly (a silent close would keep it on
 * the worker for its grace period). */
HW_OS_EXIT_HOOK static void conn_fini(void)
{
    if (!conn_ok)
        return;
    struct hw_conn *c = &the_conn;
    __atomic_store_n(&c->closing, 1, __ATOMIC_RELEASE);
    if (!is_broken(c) && !is_down(c)) {
        pthread_mutex_lock(&c->wlock);
        if (c->resumable) {
            uint64_t seq;
            enqueue_locked(c, HIPR_OP_GOODBYE, 0, HIPR_FLAG_NO_REPLY, NULL, 0, NULL, 0, 1, NULL,
                           &seq);
        }
        flush_locked(c, NULL, 0);
        pthread_mutex_unlock(&c->wlock);
        hw_sock_shutdown_write(c->tx.fd);
    }
    /* The resume thread stops (and, if the link is down, lets waiters go). */
    pthread_mutex_lock(&c->rlock);
    pthread_cond_broadcast(&c->resume_cond);
    pthread_mutex_unlock(&c->rlock);
}
