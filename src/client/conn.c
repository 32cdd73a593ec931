/*
 * conn.c - the proxy's connection to hip-worker: connect, TLS and
 * authentication, the coalescing write buffer, and reply demultiplexing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "hw_auth.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_sha256.h"
#include "hw_transport.h"

#define WBUF_SIZE      (256 * 1024)
#define FLUSH_BYTES    (64 * 1024)  /* keep the worker fed while buffering */
#define FLUSH_OPS      256
#define CONNECT_TIMEOUT_MS 5000
#define HEARTBEAT_MS   5000         /* TF_WORKER_HEARTBEAT default */
#define DEAD_AFTER     4            /* heartbeats of silence before giving up */

static struct hw_conn the_conn;
static pthread_once_t conn_once = PTHREAD_ONCE_INIT;
static int conn_ok;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int env_int(const char *name, int dflt, int lo, int hi)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return dflt;
    long x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "hipwire: ignoring %s=%s (not a number in %d..%d)\n", name, v, lo, hi);
        return dflt;
    }
    return (int)x;
}

/* What the environment asks for: TLS, its trust anchors, the token. */
struct conn_security {
    int tls;
    struct hw_tls_ctx *tls_ctx;
    struct hw_token token;      /* len 0: none */
};
static struct conn_security the_security;

static void heartbeat_start(struct hw_conn *c);

static void conn_fail_line(const char *what, const char *host, int port, const char *why)
{
    /* The one line a user sees when the proxy cannot do anything. */
    fprintf(stderr, "hipwire: %s hip-worker at %s:%d: %s; HIP calls will return "
                    "hipErrorNotInitialized%s\n",
            what, host, port, why,
            strcmp(what, "cannot reach") == 0 ? " (set TF_WORKER_HOST / TF_WORKER_PORT)" : "");
}

/* Reads TF_WORKER_TOKEN[_FILE], TF_WORKER_TLS, TF_WORKER_CA and
 * TF_WORKER_TLS_VERIFY. 0, or -1 with the reason in why. */
static int security_from_env(struct conn_security *sec, char *why, size_t why_len)
{
    const char *tok = getenv("TF_WORKER_TOKEN");
    const char *tok_file = getenv("TF_WORKER_TOKEN_FILE");
    const char *tls = getenv("TF_WORKER_TLS");
    const char *ca = getenv("TF_WORKER_CA");
    const char *verify = getenv("TF_WORKER_TLS_VERIFY");
    char what[400];
    if (tok && *tok) {
        if (hw_token_from_string(tok, &sec->token, what, sizeof what) < 0) {
            snprintf(why, why_len, "TF_WORKER_TOKEN: %s", what);
            return -1;
        }
    } else if (tok_file && *tok_file) {
        if (hw_token_from_file(tok_file, &sec->token, what, sizeof what) < 0) {
            snprintf(why, why_len, "TF_WORKER_TOKEN_FILE: %s", what);
            return -1;
        }
    }
    sec->tls = tls && *tls && strcmp(tls, "0") != 0;
    if (!sec->tls)
        return 0;
    int check = !(verify && strcmp(verify, "0") == 0);
    if (!check)
        fprintf(stderr, "hipwire: TF_WORKER_TLS_VERIFY=0: the worker's certificate is not "
                        "checked; anyone in the path can pose as the worker\n");
    sec->tls_ctx = hw_tls_client_ctx(ca, check, what, sizeof what);
    if (!sec->tls_ctx) {
        snprintf(why, why_len, "TF_WORKER_TLS: %s", what);
        return -1;
    }
    return 0;
}

/*
 * AUTH_BEGIN, and AUTH_PROOF when the worker wants a token: the client
 * proves it holds the token, then checks the worker's proof (a worker that
 * cannot prove it is refused, whatever it would have accepted). session: 0
 * for a new session. HW_OK, or hipErrorNotInitialized with the reason in why.
 */
static hipError_t authenticate(struct hw_conn *c, const struct conn_security *sec,
                               uint64_t session, char *why, size_t why_len)
{
    struct hipr_auth_begin_req req;
    struct hipr_auth_begin_rep rep;
    struct hipr_auth_proof proof, wproof;
    uint8_t fixed[HIPR_auth_begin_req_SIZE], body[HIPR_auth_begin_rep_SIZE];
    uint8_t pbuf[HIPR_auth_proof_SIZE], pbody[HIPR_auth_proof_SIZE];
    uint8_t binding[HW_TLS_CHANNEL_BINDING_LEN], want[HW_AUTH_PROOF_LEN];

    memset(&req, 0, sizeof req);
    if (hw_random_bytes(req.client_nonce, sizeof req.client_nonce) < 0) {
        snprintf(why, why_len, "cannot read random bytes: %s", strerror(errno));
        return hipErrorNotInitialized;
    }
    req.session = session;
    req.heartbeat_ms = (uint32_t)env_int("TF_WORKER_HEARTBEAT", HEARTBEAT_MS, 0, 600000);
    hipr_auth_begin_req_encode(fixed, &req);
    hipError_t err = hw_call(c, HIPR_OP_AUTH_BEGIN, fixed, sizeof fixed, NULL, 0, body,
                             sizeof body, NULL, 0, NULL);
    if (err != hipSuccess) {
        snprintf(why, why_len, "the worker refused the handshake (%s)",
                 err == hipErrorLaunchFailure ? "it closed the connection; an older worker?"
                                              : "error reply");
        return hipErrorNotInitialized;
    }
    hipr_auth_begin_rep_decode(body, sizeof body, &rep);
    c->heartbeat_ms = req.heartbeat_ms ? (int)rep.heartbeat_ms : 0;
    if ((rep.requires & HIPR_AUTH_REQUIRES_TLS) && !(rep.link & HIPR_AUTH_LINK_TLS)) {
        snprintf(why, why_len, "the worker requires TLS (set TF_WORKER_TLS=1 and TF_WORKER_CA)");
        return hipErrorNotInitialized;
    }
    if (!(rep.requires & HIPR_AUTH_REQUIRES_TOKEN)) {
        if (sec->token.len) {
            snprintf(why, why_len, "a token is set, but the worker has none, so it cannot prove "
                                   "it is the worker you meant; refusing it");
            return hipErrorNotInitialized;
        }
        return hipSuccess;
    }
    if (!sec->token.len) {
        snprintf(why, why_len, "the worker requires authentication (set TF_WORKER_TOKEN or "
                               "TF_WORKER_TOKEN_FILE)");
        return hipErrorNotInitialized;
    }
    hw_tx_channel_binding(&c->tx, binding);
    hw_auth_proof(&sec->token, HW_PROOF_CLIENT, req.client_nonce, rep.worker_nonce, session,
                  binding, proof.proof);
    hipr_auth_proof_encode(pbuf, &proof);
    err = hw_call(c, HIPR_OP_AUTH_PROOF, pbuf, sizeof pbuf, NULL, 0, pbody, sizeof pbody, NULL,
                  0, NULL);
    if (err != hipSuccess) {
        snprintf(why, why_len, "authentication failed (the worker rejected the token)");
        return hipErrorNotInitialized;
    }
    hipr_auth_proof_decode(pbody, sizeof pbody, &wproof);
    hw_auth_proof(&sec->token, HW_PROOF_WORKER, req.client_nonce, rep.worker_nonce, session,
                  binding, want);
    if (!hw_ct_equal(want, wproof.proof, sizeof want)) {
        snprintf(why, why_len, "authentication failed (the worker could not prove it holds "
                               "the token)");
        return hipErrorNotInitialized;
    }
    return hipSuccess;
}

static hipError_t handshake(struct hw_conn *c, char *why, size_t why_len)
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
    if (err == hipErrorLaunchOutOfResources)
        snprintf(why, why_len, "the worker is at --max-sessions");
    else if (err == hipErrorNotInitialized)
        snprintf(why, why_len, "the worker refused the session (not authenticated)");
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

/* Connects to one worker: TCP, TLS when asked for, authentication, HELLO. */
static hipError_t connect_worker(struct hw_conn *c, const struct conn_security *sec,
                                 const char *host, int port, int timeout, const char **verb,
                                 char *why, size_t why_len)
{
    int fd;
    int rc = hw_tcp_connect(host, port, timeout, &fd);
    *verb = "cannot reach";
    if (rc < 0) {
        snprintf(why, why_len, "%s", strerror(-rc));
        return hipErrorNotInitialized;
    }
    hw_tx_init_plain(&c->tx, fd);
    hipError_t err = hipErrorNotInitialized;
    *verb = "cannot use";
    if (sec->tls && hw_tls_connect(&c->tx, sec->tls_ctx, host, timeout, why, why_len) < 0)
        goto fail;
    if ((err = authenticate(c, sec, 0, why, why_len)) != hipSuccess)
        goto fail;
    if ((err = handshake(c, why, why_len)) != hipSuccess) {
        if (err == hipErrorLaunchOutOfResources)
            *verb = "refused by";
        goto fail;
    }
    return hipSuccess;
fail:
    hw_tx_close(&c->tx);
    pthread_mutex_lock(&c->rlock);
    c->broken = 0;
    pthread_mutex_unlock(&c->rlock);
    return err == hipSuccess ? hipErrorNotInitialized : err;
}

static void conn_init(void)
{
    struct hw_conn *c = &the_conn;
    struct conn_security *sec = &the_security;
    const char *hosts = getenv("TF_WORKER_HOST");
    int port = env_int("TF_WORKER_PORT", HIPR_DEFAULT_PORT, 1, 65535);
    int timeout = env_int("TF_CONNECT_TIMEOUT_MS", CONNECT_TIMEOUT_MS, 1, 3600000);
    char list[1024];
    char why[512] = "";
    const char *last_host = "127.0.0.1", *verb = "cannot reach";

    hw_log_init("hipwire");
    pthread_mutex_init(&c->wlock, NULL);
    pthread_mutex_init(&c->rlock, NULL);
    pthread_cond_init(&c->rcond, NULL);
    hw_tx_init_plain(&c->tx, -1);
    c->wbuf = malloc(WBUF_SIZE);
    if (!c->wbuf)
        return;
    snprintf(list, sizeof list, "%s", hosts && *hosts ? hosts : "127.0.0.1");
    if (security_from_env(sec, why, sizeof why) < 0) {
        conn_fail_line("not connecting to", list, port, why);
        goto fail;
    }

    /* TF_WORKER_HOST may list several workers: the first that answers wins. */
    for (char *save = NULL, *h = strtok_r(list, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        while (*h == ' ')
            h++;
        last_host = h;
        if (connect_worker(c, sec, h, port, timeout, &verb, why, sizeof why) == hipSuccess) {
            hw_debug("session %016llx on %s:%d (%s), backend %s, %d device(s)",
                     (unsigned long long)c->session_id, h, port,
                     hw_tx_is_tls(&c->tx) ? "TLS" : "plain TCP", c->backend, c->device_count);
            conn_ok = 1;
            heartbeat_start(c);
            return;
        }
        hw_debug("cannot use %s:%d: %s", h, port, why);
    }
    conn_fail_line(verb, last_host, port, why);
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
    if (!was)
        hw_tx_shutdown(&c->tx); /* a thread blocked reading or writing returns */
    if (!was && conn_ok && !__atomic_load_n(&c->closing, __ATOMIC_ACQUIRE))
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
    int rc = hw_tx_writev_full(&c->tx, iov, 2);
    c->wlen = 0;
    c->wops = 0;
    if (rc == 0 && c->heartbeat_ms)
        __atomic_store_n(&c->last_send_ms, now_ms(), __ATOMIC_RELAXED);
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
    __atomic_add_fetch(&hw_stat_posted, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&c->wlock);
    /* The first request after a call is sent at once: the worker (and the
     * GPU) may be idle, waiting for the work the program issues next, as
     * after a training step's loss read-back. Later ones are batched. */
    int rc = enqueue_locked(c, opcode, 0, HIPR_FLAG_NO_REPLY, fixed, fixed_len, tail, tail_len,
                            c->send_next);
    c->send_next = 0;
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

    if (hw_tx_read_full(&c->tx, hbuf, HIPR_HEADER_SIZE) < 0) {
        if (errno == ETIMEDOUT && c->heartbeat_ms)
            errno = EHOSTDOWN; /* said as "presumed dead" by the caller */
        return -1;
    }
    if (c->heartbeat_ms)
        __atomic_store_n(&c->last_recv_ms, now_ms(), __ATOMIC_RELAXED);
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

    pthread_mutex_lock(&c->rlock);
    struct hw_waiter *w = c->waiters;
    while (w && w->request_id != h.request_id)
        w = w->next;
    pthread_mutex_unlock(&c->rlock);
    if (!w)
        return hw_tx_discard(&c->tx, rest); /* nobody waits (a worker-initiated frame) */

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

    pthread_mutex_lock(&c->rlock);
    w->tail_len = tail;
    w->status = rh.status;
    w->done = 1;
    pthread_cond_broadcast(&c->rcond);
    pthread_mutex_unlock(&c->rlock);
    return 0;
}

/* Why a read failed, in words (errno as read_one left it). */
static const char *read_failure(const struct hw_conn *c)
{
    static __thread char why[160];
    if (errno == EHOSTDOWN) {
        snprintf(why, sizeof why, "nothing from the worker for %d ms with a heartbeat every "
                 "%d ms: presumed dead", DEAD_AFTER * c->heartbeat_ms, c->heartbeat_ms);
        return why;
    }
    return errno ? strerror(errno) : "worker closed the connection";
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
    __atomic_add_fetch(&hw_stat_round_trips, 1, __ATOMIC_RELAXED);

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
    c->send_next = 1;
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
            mark_broken(c, read_failure(c));
            pthread_mutex_lock(&c->rlock);
        }
    }
    unlink_waiter(c, &w);
    pthread_mutex_unlock(&c->rlock);
    if (tail_len)
        *tail_len = w.tail_len;
    return (hipError_t)w.status;
}

/*
 * The client's half of dead-peer detection (the worker's, and why TCP
 * keepalive is not enough, is in src/worker/heartbeat.c). Every interval it
 * sends a HEARTBEAT if nothing else went out, reads what arrived if no
 * thread is reading (the worker's heartbeats, while the application is
 * idle), and gives the worker up after DEAD_AFTER intervals of silence. A
 * thread blocked in a read is covered by the socket's receive timeout.
 */
static void *heartbeat_main(void *arg)
{
    struct hw_conn *c = arg;
    int hb = c->heartbeat_ms;
    for (;;) {
        struct timespec ts = { hb / 1000, (long)(hb % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
            ;
        if (__atomic_load_n(&c->closing, __ATOMIC_ACQUIRE) || is_broken(c))
            return NULL;
        uint64_t now = now_ms();
        if (now - __atomic_load_n(&c->last_send_ms, __ATOMIC_RELAXED) + 10 >= (uint64_t)hb) {
            struct hipr_heartbeat m = { .interval_ms = (uint32_t)hb };
            uint8_t buf[HIPR_heartbeat_SIZE];
            hipr_heartbeat_encode(buf, &m);
            pthread_mutex_lock(&c->wlock);
            int rc = __atomic_load_n(&c->closing, __ATOMIC_ACQUIRE)
                         ? 0
                         : enqueue_locked(c, HIPR_OP_HEARTBEAT, 0, HIPR_FLAG_NO_REPLY, buf,
                                          sizeof buf, NULL, 0, 1);
            pthread_mutex_unlock(&c->wlock);
            if (rc < 0) {
                mark_broken(c, strerror(errno));
                return NULL;
            }
        }
        /* Nobody reading: drain what came (heartbeats, in the main). */
        pthread_mutex_lock(&c->rlock);
        int take = !c->reader_active;
        if (take)
            c->reader_active = 1;
        pthread_mutex_unlock(&c->rlock);
        int failed = 0;
        while (take && !failed && hw_tx_poll_readable(&c->tx, 0) > 0)
            failed = read_one(c) < 0;
        const char *why = failed ? read_failure(c) : NULL;
        if (take) {
            pthread_mutex_lock(&c->rlock);
            c->reader_active = 0;
            pthread_cond_broadcast(&c->rcond);
            pthread_mutex_unlock(&c->rlock);
        }
        if (!why && now_ms() - __atomic_load_n(&c->last_recv_ms, __ATOMIC_RELAXED) >
                        (uint64_t)DEAD_AFTER * hb) {
            errno = EHOSTDOWN;
            why = read_failure(c);
        }
        if (why) {
            mark_broken(c, why);
            return NULL;
        }
    }
}

static void heartbeat_start(struct hw_conn *c)
{
    if (!c->heartbeat_ms)
        return;
    int dead_ms = DEAD_AFTER * c->heartbeat_ms;
    hw_tx_set_recv_timeout(&c->tx, dead_ms);
    hw_tcp_user_timeout(c->tx.fd, dead_ms);
    __atomic_store_n(&c->last_send_ms, now_ms(), __ATOMIC_RELAXED);
    __atomic_store_n(&c->last_recv_ms, now_ms(), __ATOMIC_RELAXED);
    if (pthread_create(&c->hb_thread, NULL, heartbeat_main, c) == 0)
        c->hb_running = 1;
    else
        hw_debug("cannot start the heartbeat thread; dead-peer detection is off");
}

/* Queued work must reach the worker even if the program never synchronises. */
__attribute__((destructor)) static void conn_fini(void)
{
    if (!conn_ok)
        return;
    struct hw_conn *c = &the_conn;
    __atomic_store_n(&c->closing, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&c->wlock);
    flush_locked(c, NULL, 0);
    pthread_mutex_unlock(&c->wlock);
    shutdown(c->tx.fd, SHUT_WR);
}
