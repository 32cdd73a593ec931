/*
 * session.c - a session process: handshake, the request loop, and teardown.
 */
#include "session_main.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "admission.h"
#include "dispatch.h"
#include "drain.h"
#include "handshake.h"
#include "heartbeat.h"
#include "hw_auth.h"
#include "prewarm.h"
#include "resume.h"
#include "shm_link.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_os.h"
#include "hw_sha256.h"
#include "hw_time.h"
#include "idle.h"
#include "migrate.h"
#include "worker_metrics.h"

#define UNKNOWN_OP_SKIP_MAX (64 * HIPR_KiB)

static void on_backend_async_error(void *ctx, int status)
{
    struct session *s = ctx;
    slink_async_error(&s->link, status);
}

/* Opens the configured backend; "auto" takes the first with a device. */
static int open_device(const struct worker_config *cfg, struct hw_backend_config *bc,
                       const struct hw_backend_ops **ops_out, struct hw_backend **be_out,
                       int *count_out)
{
    static const char *const order[] = { "hip", "cuda", "cpu" };
    bc->cpu_devices = cfg->cpu_devices;
    bc->mem_limit = cfg->mem_limit;
    bc->shared = cfg->isolation == WORKER_ISOLATION_SHARED;
    int rc = HW_ENODEV;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *name = strcmp(cfg->backend, "auto") == 0 ? order[i] : cfg->backend;
        const struct hw_backend_ops *ops = hw_backend_find(name);
        if (ops && ops->abi_version == HW_BACKEND_ABI_VERSION) {
            struct hw_backend *be = NULL;
            int count = 0;
            rc = ops->open(bc, &be);
            if (rc == HW_OK && ops->device_count(be, &count) == HW_OK && count > 0) {
                *ops_out = ops;
                *be_out = be;
                *count_out = count;
                return HW_OK;
            }
            if (rc == HW_OK) {
                ops->close(be);
                rc = HW_ENODEV;
            }
        }
        if (strcmp(cfg->backend, "auto") != 0)
            break;
    }
    return rc;
}

static int open_backend(struct session *s)
{
    struct hw_backend_config bc = { .on_async_error = on_backend_async_error, .ctx = s };
    int rc = open_device(s->cfg, &bc, &s->ops, &s->be, &s->device_count);
    if (rc == HW_OK)
        limits_attach_backend(&s->lim, s->ops, s->be, s->device_count);
    return rc;
}

static void on_held_async_error(void *ctx, int status)
{
    (void)ctx;
    hw_warn("device process: a device error (status %d) outside any session", status);
}

int session_device_hold(const struct worker_config *cfg, const struct hw_backend_ops **ops,
                        struct hw_backend **be)
{
    struct hw_backend_config bc = { .on_async_error = on_held_async_error };
    int count;
    return open_device(cfg, &bc, ops, be, &count);
}

void session_device_release(const struct hw_backend_ops *ops, struct hw_backend *be)
{
    if (ops && be)
        ops->close(be);
}

int session_send_worker_status(struct session *s, uint32_t request_id)
{
    struct status_table *t = s->table;
    struct hipr_worker_status_rep r;
    memset(&r, 0, sizeof r);
    r.sessions = status_table_count(t, &r.bytes_in_use);
    r.max_sessions = t->max_sessions;
    r.mem_limit = t->mem_limit;
    r.sessions_served = __atomic_load_n(&t->sessions_served, __ATOMIC_RELAXED);
    strncpy(r.backend, t->backend, sizeof r.backend - 1);

    size_t cap = t->max_sessions < HIPR_CAP_SESSIONS ? t->max_sessions : HIPR_CAP_SESSIONS;
    uint8_t *tail = hw_calloc(cap ? cap : 1, HIPR_session_entry_SIZE);
    size_t n = 0;
    if (!tail)
        return -1;
    for (uint32_t i = 0; i < t->max_sessions && n < cap; i++) {
        struct status_slot *sl = &t->slots[i];
        uint32_t pid = __atomic_load_n(&sl->pid, __ATOMIC_ACQUIRE);
        if (!pid)
            continue;
        struct hipr_session_entry e = {
            .session_id = __atomic_load_n(&sl->session_id, __ATOMIC_ACQUIRE),
            .pid = pid,
            .state = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE),
            .bytes_in_use = __atomic_load_n(&sl->bytes_in_use, __ATOMIC_ACQUIRE),
            .client_port = __atomic_load_n(&sl->client_port, __ATOMIC_ACQUIRE),
        };
        memcpy(e.client_addr, sl->client_addr, sizeof e.client_addr);
        hipr_session_entry_encode(tail + n * HIPR_session_entry_SIZE, &e);
        n++;
    }
    r.sessions = (uint32_t)n;
    uint8_t out[HIPR_worker_status_rep_SIZE];
    hipr_worker_status_rep_encode(out, &r);
    int rc = slink_reply(&s->link, HIPR_OP_WORKER_STATUS, request_id, HW_OK, out, sizeof out, tail,
                         n * HIPR_session_entry_SIZE);
    free(tail);
    return rc;
}

/* HELLO, once the handshake has accepted it: a status slot, the backend,
 * and the reply with the device descriptions. */
static int open_session(struct session *s, const struct hipr_header *hh,
                        const struct hipr_hello_req *hreq, const char *peer)
{
    struct hipr_header h = *hh;
    struct hipr_hello_req req = *hreq;
    if (req.proto_min > HIPR_VERSION || req.proto_max < HIPR_VERSION) {
        hw_warn("client speaks protocol %u..%u, worker %u", req.proto_min, req.proto_max,
                HIPR_VERSION);
        slink_reply(&s->link, h.opcode, h.request_id, HW_ENOTSUP, NULL, 0, NULL, 0);
        return -1;
    }
    /* A client that can hear it is told it waits (queued, its device
     * starting), so its connect timeout need not cover either. */
    int wait_ok = (req.flags & HIPR_HELLO_WAIT_OK) != 0;
    int adm = admission_claim(s, wait_ok, peer);
    if (adm != 0) {
        if (adm > 0)
            slink_reply(&s->link, h.opcode, h.request_id, HW_ERESOURCES, NULL, 0, NULL, 0);
        return -1;
    }
    status_slot_set_client(s->slot, s->link.tx.fd);
    s->metrics = worker_metrics_slot(s->cfg->metrics, (uint32_t)(s->slot - s->table->slots));
    s->link.metrics = s->metrics;
    s->lim.slot = s->slot;
    int rc = HW_OK;
    if (!s->be) { /* a prewarmed process has its device already */
        struct admission_ticker tk;
        uint64_t t0 = hw_now_ms();
        if (wait_ok)
            admission_ticker_start(&tk, s);
        rc = open_backend(s);
        if (wait_ok)
            admission_ticker_stop(&tk);
        hw_debug("session %016llx: device started in %llu ms", (unsigned long long)s->id,
                 (unsigned long long)(hw_now_ms() - t0));
    }
    if (rc != HW_OK) {
        hw_error("backend %s has no usable device (status %d)", s->cfg->backend, rc);
        slink_reply(&s->link, h.opcode, h.request_id, rc, NULL, 0, NULL, 0);
        return -1;
    }

    struct hipr_hello_rep rep;
    memset(&rep, 0, sizeof rep);
    rep.session_id = s->id;
    rep.proto_version = HIPR_VERSION;
    rep.device_count = (uint32_t)s->device_count;
    s->ops->versions(s->be, &rep.runtime_version, &rep.driver_version);
    rep.mem_limit = s->cfg->mem_limit;
    rep.worker_pid = (uint32_t)getpid();
    rep.devinfo_size = HIPR_devinfo_SIZE;
    strncpy(rep.backend, s->ops->name, sizeof rep.backend - 1);
    if (rep.device_count > HIPR_CAP_DEVICES)
        rep.device_count = HIPR_CAP_DEVICES;
    size_t tail_len = (size_t)rep.device_count * HIPR_devinfo_SIZE;
    uint8_t *tail = hw_malloc(tail_len);
    if (!tail)
        return -1;
    for (uint32_t i = 0; i < rep.device_count; i++) {
        struct hipr_devinfo di;
        if (s->ops->device_info(s->be, (int)i, &di) != HW_OK)
            memset(&di, 0, sizeof di);
        if (s->cfg->mem_limit && di.total_global_mem > s->cfg->mem_limit)
            di.total_global_mem = s->cfg->mem_limit;
        hipr_devinfo_encode(tail + i * HIPR_devinfo_SIZE, &di);
    }
    uint8_t out[HIPR_hello_rep_SIZE];
    hipr_hello_rep_encode(out, &rep);
    rc = slink_reply(&s->link, h.opcode, h.request_id, HW_OK, out, sizeof out, tail, tail_len);
    free(tail);
    if (rc < 0)
        return -1;
    s->resume_token = req.resume_token;
    s->migrate_in = (req.flags & HIPR_HELLO_MIGRATE_IN) != 0;
    hw_info("session %016llx: %s pid %u, backend %s, %d device(s)", (unsigned long long)s->id,
            s->migrate_in ? "migrating in from a worker's" : "client", req.client_pid, s->ops->name,
            s->device_count);
    return 0;
}

enum loop_end {
    LOOP_END,     /* the session is over: GOODBYE, a bad frame, idle, an error */
    LOOP_LINK,    /* the connection failed: a resumable session may rejoin */
    LOOP_MIGRATE, /* stopped between requests: the session moves (migrate.c) */
};

static volatile sig_atomic_t migrate_requested, migratable;

static enum loop_end link_failed(struct session *s)
{
    if (errno == ETIMEDOUT && s->link.heartbeat_ms)
        hw_warn("session %016llx: nothing from the client for %d ms (heartbeat every "
                "%d ms): presumed gone",
                (unsigned long long)s->id, HW_DEAD_AFTER * s->link.heartbeat_ms,
                s->link.heartbeat_ms);
    else if (errno)
        hw_info("session %016llx: connection lost: %s", (unsigned long long)s->id, strerror(errno));
    else
        hw_debug("session %016llx: client closed", (unsigned long long)s->id);
    return LOOP_LINK;
}

/* An acknowledgement: the client has read replies up to count; answer one
 * with the requests executed when it asks. Not a request of the session. */
static void take_ack(struct session *s, const uint8_t *fixed)
{
    struct hipr_ack a;
    hipr_ack_decode(fixed, HIPR_ack_SIZE, &a);
    if (!s->acks)
        return;
    slink_ack(&s->link, a.count);
    if (a.flags & HIPR_ACK_REQUEST) {
        struct hipr_ack out = { .count = s->requests_executed };
        uint8_t buf[HIPR_ack_SIZE];
        hipr_ack_encode(buf, &out);
        slink_send_unsolicited(&s->link, HIPR_OP_ACK, buf, sizeof buf);
    }
}

/* During a burst of fire-and-forget requests nothing is answered, so the
 * worker says how far it got by itself now and then (every 1 MiB or 8192
 * requests, at most every 2 ms): the client can drop what it kept for a
 * resume before its buffer fills. */
#define ACK_UNASKED_BYTES (1u << 20)
#define ACK_UNASKED_REQS  8192
#define ACK_UNASKED_NS    (2 * 1000 * 1000)

static void maybe_ack(struct session *s, uint64_t frame_bytes)
{
    s->unacked_bytes += frame_bytes;
    if (++s->unacked_reqs < ACK_UNASKED_REQS && s->unacked_bytes < ACK_UNASKED_BYTES)
        return;
    uint64_t now = hw_now_ns();
    if (now - s->last_ack_ns < ACK_UNASKED_NS)
        return;
    s->last_ack_ns = now;
    s->unacked_reqs = s->unacked_bytes = 0;
    struct hipr_ack out = { .count = s->requests_executed };
    uint8_t buf[HIPR_ack_SIZE];
    hipr_ack_encode(buf, &out);
    slink_send_unsolicited(&s->link, HIPR_OP_ACK, buf, sizeof buf);
}

/* Replies sent from device memory become copies before a request that
 * could change that memory runs (unless acknowledged first, the usual
 * case: the client's ACK travels in front of its next request). */
static int settle_borrowed(struct session *s)
{
    int rc = slink_settle_borrowed(&s->link);
    if (rc < 0)
        hw_error("session %016llx: out of memory keeping a reply", (unsigned long long)s->id);
    return rc;
}

/* RESUME_ENABLE, TRANSPORT_SHM and MIGRATE_STATE belong to the lifecycle
 * (resume.c, shm_link.c, migrate.c: they change the link or the session's
 * life), which the operations cannot call; every other request goes to the
 * operations. */
static int serve_request(struct session *s, const struct hipr_header *h,
                         const struct hipr_op_info *info, const uint8_t *fixed)
{
    switch (h->opcode) {
    case HIPR_OP_RESUME_ENABLE:
        return dispatch_finish(s, h, info, session_resume_enable(s, h->request_id));
    case HIPR_OP_TRANSPORT_SHM: return dispatch_finish(s, h, info, shm_link_request(s, h, fixed));
    case HIPR_OP_MIGRATE_STATE:
        return dispatch_finish(s, h, info, migrate_state_request(s, h, fixed));
    default: return dispatch_request(s, h, info, fixed);
    }
}

static enum loop_end request_loop(struct session *s)
{
    uint8_t hbuf[HIPR_HEADER_SIZE];
    uint8_t fixed[1024];
    struct hipr_header h;
    const struct hipr_op_info *info;

    for (;;) {
        /* A planned migration stops here, between two requests. */
        if (migrate_requested && s->link.resumable)
            return LOOP_MIGRATE;
        if (idle_wait_request(&s->lim) < 0)
            return LOOP_END;
        if (slink_read(&s->link, hbuf, sizeof hbuf) < 0)
            return link_failed(s);
        hipr_header_decode(hbuf, &h);
        idle_note_request(&s->lim, h.opcode);
        wm_add(s->metrics, WM_bytes_in, HIPR_HEADER_SIZE + h.payload_length);
        enum hipr_check c = hipr_check_request(&h, &info);
        if (c == HIPR_EOPCODE && h.magic == HIPR_MAGIC && h.version == HIPR_VERSION &&
            h.payload_length <= UNKNOWN_OP_SKIP_MAX) {
            /* A newer client's call this worker lacks: refuse it, keep the session. */
            if (slink_discard(&s->link, h.payload_length) < 0)
                return link_failed(s);
            if (!(h.flags & HIPR_FLAG_NO_REPLY))
                slink_reply(&s->link, h.opcode, h.request_id, HW_ENOTSUP, NULL, 0, NULL, 0);
            else
                slink_async_error(&s->link, HW_ENOTSUP);
            __atomic_store_n(&s->requests_executed, s->requests_executed + 1, __ATOMIC_RELAXED);
            continue;
        }
        if (c != HIPR_OK) {
            hw_warn("session %016llx: ending: %s (opcode 0x%04x, payload %llu)",
                    (unsigned long long)s->id, hipr_check_str(c), h.opcode,
                    (unsigned long long)h.payload_length);
            return LOOP_END;
        }
        if (info->request_size > sizeof fixed)
            return LOOP_END;
        if (slink_read(&s->link, fixed, info->request_size) < 0)
            return link_failed(s);
        s->link.tail_left = h.payload_length - info->request_size;
        if (h.opcode == HIPR_OP_ACK) {
            if (s->link.tail_left && slink_discard(&s->link, s->link.tail_left) < 0)
                return link_failed(s);
            s->link.tail_left = 0;
            take_ack(s, fixed);
            continue;
        }
        if (s->link.replies.borrowed && settle_borrowed(s) < 0)
            return LOOP_END;
        errno = 0;
        s->link.read_failed = 0;
        uint64_t t0 = s->metrics ? hw_now_ns() : 0;
        int rc = serve_request(s, &h, info, fixed);
        migratable = s->link.resumable; /* SIGUSR1 may cut a blocked read */
        if (s->metrics)
            wm_call(s->metrics, (size_t)(info - hipr_op_at(0)), hw_now_ns() - t0, 0);
        /* A request cut short by the connection did not happen: a resumed
         * client sends it again. */
        if (s->link.read_failed) {
            hw_info("session %016llx: connection lost in the middle of %s: %s%s",
                    (unsigned long long)s->id, info->name,
                    errno ? strerror(errno) : "the client closed the connection",
                    s->link.resumable ? " (not executed; a resumed client sends it again)" : "");
            return LOOP_LINK;
        }
        /* Counted once executed (heartbeats and resume's own requests are
         * not requests of the session); read by the heartbeat thread. */
        if (h.opcode != HIPR_OP_HEARTBEAT && h.opcode != HIPR_OP_RESUME_ENABLE &&
            h.opcode != HIPR_OP_TRANSPORT_SHM && h.opcode != HIPR_OP_MIGRATE_STATE) {
            __atomic_store_n(&s->requests_executed, s->requests_executed + 1, __ATOMIC_RELAXED);
            if (s->acks)
                maybe_ack(s, HIPR_HEADER_SIZE + h.payload_length);
        }
        if (rc < 0 && h.opcode != HIPR_OP_GOODBYE && h.opcode != HIPR_OP_HELLO)
            hw_info("session %016llx: ending in the middle of %s", (unsigned long long)s->id,
                    info->name);
        if (rc < 0)
            return LOOP_END;
        /* A session moved here: the source's connection goes, the client's
         * resume comes (as after a cut). */
        if (s->migrated_in == 1) {
            s->migrated_in = 2; /* once */
            return LOOP_LINK;
        }
        /* Whatever a handler left unread (after an early error) is skipped;
         * the request itself is done. */
        if (s->link.tail_left && slink_discard(&s->link, s->link.tail_left) < 0)
            return link_failed(s);
        s->link.tail_left = 0;
        if (s->link.send_failed)
            return LOOP_END;
    }
}

/* A session process's one session, for its signal handlers. */
static volatile int session_fd = -1;
static volatile sig_atomic_t handshake_expired, term_requested;

static int shared_mode(const struct session *s)
{
    return s->cfg->isolation == WORKER_ISOLATION_SHARED;
}

/* SIGTERM from the supervisor's shutdown: stop reading; the request loop sees
 * end of input and the session frees everything on its way out. */
static void on_term(int sig)
{
    (void)sig;
    term_requested = 1;
    if (session_fd >= 0)
        shutdown(session_fd, SHUT_RD);
}

/* SIGUSR1 (migrate.c): move to the worker in the status table. A blocked
 * read of a resumable session is cut short so that the loop notices;
 * what the cut loses, the client sends again wherever it resumes. */
static const struct status_table *signal_table; /* for on_migrate */
static volatile sig_atomic_t migrate_refused;

static void on_migrate(int sig)
{
    (void)sig;
    migrate_requested = 1;
    if (migratable) {
        if (session_fd >= 0)
            shutdown(session_fd, SHUT_RD);
        return;
    }
    /* It cannot move (no resume). When the worker stops anyway, it ends now,
     * its client told why, rather than hold the stop until --migrate-wait. */
    if (signal_table && __atomic_load_n(&signal_table->migrate_then_stop, __ATOMIC_ACQUIRE)) {
        migrate_refused = 1;
        term_requested = 1;
        if (session_fd >= 0)
            shutdown(session_fd, SHUT_RD);
    }
}

int session_tracked_fd(void)
{
    return session_fd;
}

void session_track_fd(struct session *s, int fd)
{
    if (!shared_mode(s))
        session_fd = fd;
    pthread_mutex_lock(&s->term_lock);
    s->track_fd = fd;
    pthread_mutex_unlock(&s->term_lock);
}

int session_terminating(struct session *s)
{
    return term_requested || __atomic_load_n(&s->term, __ATOMIC_ACQUIRE);
}

void session_stop(struct session *s)
{
    pthread_mutex_lock(&s->term_lock);
    __atomic_store_n(&s->term, 1, __ATOMIC_RELEASE);
    if (s->track_fd >= 0)
        shutdown(s->track_fd, SHUT_RD);
    pthread_mutex_unlock(&s->term_lock);
    /* A session waiting for its client to come back hears it now. */
    pthread_mutex_lock(&s->resume_lock);
    pthread_cond_broadcast(&s->resume_cond);
    pthread_mutex_unlock(&s->resume_lock);
}

/* The handshake deadline: whatever the peer is doing (trickling bytes one at
 * a time, stalling a TLS handshake), the connection ends. */
static void on_handshake_timer(int sig)
{
    (void)sig;
    handshake_expired = 1;
    if (session_fd >= 0)
        shutdown(session_fd, SHUT_RDWR);
}

static void handshake_timer(int ms)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = ms / 1000;
    it.it_value.tv_usec = (ms % 1000) * 1000;
    setitimer(ITIMER_REAL, &it, NULL);
}

int session_check_deadline(struct session *s, uint64_t now_ms)
{
    pthread_mutex_lock(&s->term_lock);
    int pending = s->hs_deadline_ms != 0;
    if (pending && now_ms >= s->hs_deadline_ms) {
        s->hs_deadline_ms = 0;
        pending = 0;
        __atomic_store_n(&s->hs_expired, 1, __ATOMIC_RELEASE);
        if (s->track_fd >= 0)
            shutdown(s->track_fd, SHUT_RDWR);
    }
    pthread_mutex_unlock(&s->term_lock);
    return pending;
}

/* Sets (ms > 0) or clears the handshake deadline: a process timer in a
 * session process; in a shared device process (one timer for many
 * sessions) a time its main thread looks at (session_check_deadline). */
static void handshake_deadline(struct session *s, int ms)
{
    if (!shared_mode(s)) {
        handshake_timer(ms);
        return;
    }
    pthread_mutex_lock(&s->term_lock);
    s->hs_deadline_ms = ms ? hw_now_ms() + (uint64_t)ms : 0;
    pthread_mutex_unlock(&s->term_lock);
}

static int handshake_timed_out(struct session *s)
{
    return shared_mode(s) ? __atomic_load_n(&s->hs_expired, __ATOMIC_ACQUIRE) : handshake_expired;
}

/* TLS or plain, then (plain only) a first frame that may be SESSION_ROUTE:
 * such a connection belongs to another session process and is handed on
 * (returns 2). Else the handshake proper: 0 with HELLO, 1 after a status
 * query, -1 on failure. */
static int accept_connection(struct session *s, struct link_setup *l, struct hipr_header *hello_h,
                             struct hipr_hello_req *hello, int *route_status)
{
    uint8_t first[HIPR_HEADER_SIZE], fixed[LINK_FIXED_MAX];
    const uint8_t *pre = NULL;
    if (link_accept(l) < 0)
        return -1;
    if (!hw_tx_is_tls(&s->link.tx)) {
        struct hipr_header fh;
        if (hw_tx_read_full(&s->link.tx, first, sizeof first) < 0)
            return -1;
        hipr_header_decode(first, &fh);
        if (fh.magic == HIPR_MAGIC && fh.opcode == HIPR_OP_SESSION_ROUTE) {
            *route_status = session_route(&s->link.tx, s->table, l->peer, &fh);
            return 2;
        }
        pre = first;
    }
    int hs = link_handshake(l, s, pre, hello_h, fixed);
    if (hs == 0)
        hipr_hello_req_decode(fixed, HIPR_hello_req_SIZE, hello);
    return hs;
}

/* What every session process sets up before it has a connection. */
static void session_setup(struct session *s, const struct worker_config *cfg,
                          struct status_table *table)
{
    memset(s, 0, sizeof *s);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_migrate;
    sigaction(SIGUSR1, &sa, NULL);
    sess_res_init(&s->res);
    slink_init(&s->link, &s->res.bufs, cfg->resume_buffer);
    limits_init(&s->lim, cfg, &s->link, &s->res, table);
    hw_tx_init_plain(&s->next_tx, -1);
    s->route_fd = -1;
    s->shm_side_fd = -1;
    s->cfg = cfg;
    s->table = table;
    signal_table = table;
    pthread_mutex_init(&s->resume_lock, NULL);
    pthread_mutex_init(&s->term_lock, NULL);
    s->track_fd = -1;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->resume_cond, &ca);
    pthread_condattr_destroy(&ca);
}

/* The connection, from its first byte to the session's end. */
/* The client is gone for good and nobody will read what its work produces.
 * Work that does not end within a moment (a kernel that spins, on the CPU
 * device a thread of this process) would hold this process, its memory and a
 * core until its time limit: the process ends instead, which ends the work
 * with it (the GPU backends' contexts go with the process). The supervisor
 * reaps it and frees what the status table and the compile slots held. */
static void abandon_if_busy(struct session *s)
{
    /* Other sessions live in a shared device process: the teardown waits
     * for this one's work instead (docs/worker.md, "Isolation modes"). */
    if (shared_mode(s))
        return;
    for (int i = 0; i < 100 && idle_work_running(&s->lim); i++) {
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
    if (!idle_work_running(&s->lim))
        return;
    hw_info("session %016llx: the client is gone and work is still running on its streams; "
            "ending the session process without waiting for it",
            (unsigned long long)s->id);
    if (s->slot) {
        status_table_release(s->slot);
        s->slot = NULL;
        admission_notify(s->cfg->admission);
    }
    _exit(0);
}

static int session_serve(struct session *s, int fd, uint64_t session_id)
{
    const struct worker_config *cfg = s->cfg;
    struct hipr_header hello_h;
    struct hipr_hello_req hello;
    char peer[80];
    int route_status = 1;
    hw_tx_init_plain(&s->link.tx, fd);
    s->id = session_id;
    s->link.id = session_id;
    s->lim.id = session_id;
    session_track_fd(s, fd);
    if (!shared_mode(s)) { /* the process's signals are this session's */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term;
        sigaction(SIGTERM, &sa, NULL);
        sa.sa_handler = on_handshake_timer;
        sigaction(SIGALRM, &sa, NULL);
    }
    hw_peer_name(fd, peer, sizeof peer);

    struct link_setup l = { .tx = &s->link.tx, .cfg = cfg, .peer = peer };
    handshake_deadline(s, cfg->handshake_timeout_ms);
    int hs = accept_connection(s, &l, &hello_h, &hello, &route_status);
    handshake_deadline(s, 0);
    if (!shared_mode(s))
        signal(SIGALRM, SIG_IGN); /* a late tick must not cut a session's link */
    if (hs == 2) {
        session_track_fd(s, -1);
        hw_tx_close(&s->link.tx);
        return route_status;
    }
    if (handshake_timed_out(s)) {
        hw_warn("connection from %s: no HELLO within --handshake-timeout %d ms", peer,
                cfg->handshake_timeout_ms);
        hs = -1;
    }
    s->link.heartbeat_ms = l.heartbeat_ms;
    /* Only an accepted HELLO gets the request buffer, a status slot and a backend. */
    if (hs == 0) {
        hs = slink_open(&s->link) == 0 ? open_session(s, &hello_h, &hello, peer) : -1;
    }
    int client_gone = 0, migrate_failed = 0;
    if (hs == 0 && session_heartbeat_start(s) == 0)
        for (;;) {
            enum loop_end e = request_loop(s);
            client_gone = e != LOOP_END;
            if (e == LOOP_END)
                break;
            if (migrate_requested && s->link.resumable) {
                if (session_migrate_out(s) == 0)
                    break; /* the session lives on at the target */
                migrate_requested = 0;
                if (__atomic_load_n(&s->table->migrate_then_stop, __ATOMIC_ACQUIRE)) {
                    migrate_failed = 1; /* the worker stops: the client must know */
                    client_gone = 0;
                    break;
                }
                /* It stays: the client, cut off, resumes it here. */
                hw_tx_shutdown(&s->link.tx);
            }
            if (session_resume_wait(s) != 0)
                break;
        }
    if (hs == 0 && client_gone && !session_terminating(s))
        abandon_if_busy(s);
    if (hs == 0 && (session_terminating(s) || migrate_failed)) {
        /* The client would otherwise take the cut for a network fault and
         * try to resume for as long as it is willing to wait. */
        struct hipr_going_away ga = {
            .reason = migrate_failed || migrate_refused ? HIPR_GOING_AWAY_MIGRATE_FAILED
                      : __atomic_load_n(&s->table->draining, __ATOMIC_ACQUIRE) == DRAIN_TIMEDOUT
                          ? HIPR_GOING_AWAY_DRAIN
                          : HIPR_GOING_AWAY_SHUTDOWN
        };
        uint8_t out[HIPR_going_away_SIZE];
        hipr_going_away_encode(out, &ga);
        slink_send_unsolicited(&s->link, HIPR_OP_GOING_AWAY, out, sizeof out);
    }
    /* Wakes the heartbeat thread if it is blocked writing to a dead peer. */
    hw_tx_shutdown(&s->link.tx);
    session_heartbeat_stop(s);
    session_resume_end(s);
    shm_link_drop(s);
    session_release_all(s);
    if (s->shm_side_fd >= 0) {
        close(s->shm_side_fd);
        s->shm_side_fd = -1;
    }
    stage_buf_drop_all(&s->res.bufs);
    /* Wake a client blocked on a reply before the process goes away. */
    hw_tx_shutdown(&s->link.tx);
    session_track_fd(s, -1);
    hw_tx_close(&s->link.tx);
    slink_close(&s->link);
    /* The slot goes to the next queued client now, not when the
     * supervisor gets round to reaping this process. */
    if (s->slot) {
        status_table_release(s->slot);
        s->slot = NULL;
        admission_notify(cfg->admission);
    }
    return hs < 0 ? 1 : 0;
}

struct session *session_new(const struct worker_config *cfg, struct status_table *table)
{
    struct session *s = hw_malloc(sizeof *s);
    if (s)
        session_setup(s, cfg, table);
    return s;
}

int session_serve_thread(struct session *s, int fd, uint64_t session_id)
{
    return session_serve(s, fd, session_id);
}

void session_free(struct session *s)
{
    if (!s)
        return;
    pthread_mutex_destroy(&s->term_lock);
    pthread_mutex_destroy(&s->resume_lock);
    pthread_cond_destroy(&s->resume_cond);
    free(s);
}

int session_main(int fd, const struct worker_config *cfg, struct status_table *table,
                 uint64_t session_id)
{
    struct session s;
    session_setup(&s, cfg, table);
    return session_serve(&s, fd, session_id);
}

int session_warm_main(int sock, const struct worker_config *cfg, struct status_table *table)
{
    struct session s;
    uint64_t sid;
    int fd = -1;
    session_setup(&s, cfg, table);
    int rc = open_backend(&s);
    if (rc != HW_OK) {
        hw_error("prewarm: backend %s has no usable device (status %d)", cfg->backend, rc);
        return 1;
    }
    if (prewarm_ready(sock) < 0 || prewarm_receive(sock, &sid, &fd) < 0) {
        /* The supervisor is stopping (or gone): nothing was served. */
        s.ops->close(s.be);
        return 0;
    }
    close(sock);
    return session_serve(&s, fd, sid);
}
