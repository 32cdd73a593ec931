/*
 * resume.c - the proxy gets a lost connection back (docs/protocol.md,
 * "Session resume"; the worker's half is src/worker/resume.c).
 *
 * When a read or write fails on a resumable session (conn.c:
 * hw_link_lost), the connection is marked down: writers keep appending to
 * the ring without sending, threads waiting for replies stay registered
 * and wait, and this thread reconnects to the same worker with backoff:
 * SESSION_ROUTE (plain, so the worker can hand the socket to the session's
 * process), TLS when configured, authentication naming the session, and
 * SESSION_RESUME with the session's token and what this side has. The
 * worker answers with the requests it executed, then sends again the
 * replies this side has not read; this side sends again every request
 * after that count, in order, from the ring and the callers' large tails.
 * Nothing is executed twice and nothing is lost. Calls wait up to
 * TF_WORKER_RESUME_TIMEOUT_MS (default: the worker's --resume-grace) from
 * the moment of the cut; after that, or when the worker no longer has the
 * session, every call fails with hipErrorLaunchFailure and one line on
 * stderr says why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "hw_link.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_os.h"
#include "hw_sha256.h"
#include "hw_time.h"

#define BACKOFF_FIRST_MS   20
#define BACKOFF_MAX_MS     250
#define CONNECT_TIMEOUT_MS 5000

static int closing(struct hw_conn *c)
{
    return __atomic_load_n(&c->closing, __ATOMIC_ACQUIRE);
}

/* Waits ms, or less when the process starts exiting. Called with rlock held. */
static void pause_locked(struct hw_conn *c, uint64_t ms)
{
    struct timespec until = hw_deadline_after_ns(CLOCK_REALTIME, ms * 1000000u);
    if (!closing(c))
        pthread_cond_timedwait(&c->resume_cond, &c->rlock, &until);
}

enum attempt { ATTEMPT_OK, ATTEMPT_RETRY, ATTEMPT_FATAL };

/* One reconnection: on success t is the session's link again and rep says
 * what the worker has. */
static enum attempt reconnect(struct hw_conn *c, struct hw_transport *t, uint64_t replies_read,
                              uint64_t requests_sent, int timeout_ms,
                              struct hipr_session_resume_rep *rep, char *why, size_t why_len)
{
    int fd, status = 0, fatal = 0;
    int e = hw_tcp_connect(c->worker.host, c->worker.port, timeout_ms, &fd);
    if (e == -ECONNREFUSED) {
        /* Nothing listens there any more: the worker stopped, and its
         * sessions with it (a cut network times out, it does not refuse). */
        snprintf(why, why_len, "the worker no longer listens there; its sessions ended with it");
        return ATTEMPT_FATAL;
    }
    if (e < 0) {
        snprintf(why, why_len, "%s", hw_net_strerror(e));
        return ATTEMPT_RETRY;
    }
    hw_tx_init_plain(t, fd);
    hw_tx_set_recv_timeout(t, timeout_ms);
    struct hipr_session_route route = { .session_id = c->session_id };
    uint8_t rb[HIPR_session_route_SIZE];
    hipr_session_route_encode(rb, &route);
    if (hw_link_call(t, HIPR_OP_SESSION_ROUTE, 1, rb, sizeof rb, NULL, 0, NULL, 0, NULL, 0, NULL,
                     &status) < 0) {
        snprintf(why, why_len, "SESSION_ROUTE: %s",
                 errno ? hw_os_strerror(errno) : "the worker closed the connection");
        goto retry;
    }
    if (status != 0) {
        snprintf(why, why_len,
                 status == hipErrorNotFound
                     ? "the worker no longer has the session (it ended, or its "
                       "--resume-grace passed)"
                     : "the worker cannot route the connection (status %d)",
                 status);
        hw_tx_close(t);
        return status == hipErrorNotFound ? ATTEMPT_FATAL : ATTEMPT_RETRY;
    }
    uint32_t hb = (uint32_t)c->heartbeat_ms;
    struct hw_auth_transcript tr;
    if (hw_link_secure(t, &c->worker, c->session_id, timeout_ms, &hb, &tr, why, why_len, &fatal) <
        0) {
        hw_tx_close(t);
        return fatal ? ATTEMPT_FATAL : ATTEMPT_RETRY;
    }
    /* The resume token itself never leaves this process: only a proof bound
     * to this connection's nonces, useless to whoever reads it. */
    struct hipr_session_resume_req req = { .session_id = c->session_id,
                                           .replies_received = replies_read,
                                           .requests_sent = requests_sent };
    hw_resume_proof(c->resume_token, HW_PROOF_RESUME_CLIENT, tr.cnonce, tr.wnonce, c->session_id,
                    tr.binding, req.proof);
    uint8_t qb[HIPR_session_resume_req_SIZE], ab[HIPR_session_resume_rep_SIZE];
    hipr_session_resume_req_encode(qb, &req);
    if (hw_link_call(t, HIPR_OP_SESSION_RESUME, 3, qb, sizeof qb, NULL, 0, ab, sizeof ab, NULL, 0,
                     NULL, &status) < 0) {
        snprintf(why, why_len, "SESSION_RESUME: %s",
                 errno ? hw_os_strerror(errno) : "the worker closed the connection");
        goto retry;
    }
    if (status != 0) {
        snprintf(why, why_len, "the worker refused to resume the session (status %d)", status);
        hw_tx_close(t);
        return ATTEMPT_FATAL;
    }
    struct hipr_session_resume_rep got;
    uint8_t want[HW_AUTH_PROOF_LEN];
    hipr_session_resume_rep_decode(ab, sizeof ab, &got);
    hw_resume_proof(c->resume_token, HW_PROOF_RESUME_WORKER, tr.cnonce, tr.wnonce, c->session_id,
                    tr.binding, want);
    if (!hw_ct_equal(want, got.proof, sizeof want)) {
        /* Whatever answered is not the session's process: nothing it sent
         * (counts, replies) is trusted; the real one may still answer. */
        snprintf(why, why_len,
                 "the peer that answered SESSION_RESUME could not prove it holds the "
                 "session; not trusting it");
        goto retry;
    }
    *rep = got;
    hw_tx_set_recv_timeout(t, 0);
    return ATTEMPT_OK;
retry:
    hw_tx_close(t);
    return ATTEMPT_RETRY;
}

struct replay_ctx {
    struct hw_conn *c;
    struct iovec iov[64];
    int n;
    int failed;
};

static int replay_flush(struct replay_ctx *r)
{
    if (r->n && hw_tx_writev_full(&r->c->tx, r->iov, r->n) < 0)
        r->failed = 1;
    r->n = 0;
    return r->failed ? -1 : 0;
}

static int replay_push(struct replay_ctx *r, const void *p, size_t len)
{
    if (!len)
        return 0;
    /* Frames next to each other in the ring go out as one piece. */
    if (r->n && (const uint8_t *)r->iov[r->n - 1].iov_base + r->iov[r->n - 1].iov_len == p) {
        r->iov[r->n - 1].iov_len += len;
        return 0;
    }
    if (r->n == (int)(sizeof r->iov / sizeof r->iov[0]) && replay_flush(r) < 0)
        return -1;
    r->iov[r->n].iov_base = (void *)p;
    r->iov[r->n].iov_len = len;
    r->n++;
    return 0;
}

static int replay_frame(void *ctx, uint64_t seq, const uint8_t *frame, size_t len, uint16_t opcode,
                        uint64_t payload_length)
{
    struct replay_ctx *r = ctx;
    (void)opcode;
    if (replay_push(r, frame, len) < 0)
        return -1;
    if (HIPR_HEADER_SIZE + payload_length == len)
        return 0;
    /* A large tail sent from its caller's memory; the caller still waits. */
    for (struct hw_ext_tail *e = r->c->ext; e; e = e->next)
        if (e->seq == seq)
            return replay_push(r, e->data, (size_t)e->len);
    r->failed = 1;
    errno = EPROTO;
    return -1;
}

/* Puts the new link in place and sends again whatever the worker did not
 * execute. Holds the reader role (nobody reads the old link) and wlock. */
static int install(struct hw_conn *c, struct hw_transport *t,
                   const struct hipr_session_resume_rep *rep, uint64_t replies_read,
                   const char *line)
{
    pthread_mutex_lock(&c->rlock);
    while (c->reader_active)
        pthread_cond_wait(&c->rcond, &c->rlock);
    c->reader_active = 1;
    pthread_mutex_unlock(&c->rlock);
    pthread_mutex_lock(&c->wlock);
    int rc = -1;
    hw_tx_close(&c->tx);
    if (hw_tx_move(&c->tx, t) < 0)
        goto out;
    uint64_t done = rep->requests_done;
    __atomic_store_n(&c->worker_done, done > c->worker_done ? done : c->worker_done,
                     __ATOMIC_RELEASE);
    c->replies_acked = replies_read;
    replay_ring_release(&c->ring, done);
    struct replay_ctx r = { .c = c };
    replay_ring_walk(&c->ring, done, replay_frame, &r);
    /* And ask how far it gets: writers waiting for room need to know. */
    struct hipr_ack a = { .count = replies_read, .flags = HIPR_ACK_REQUEST };
    uint8_t fr[HIPR_HEADER_SIZE + HIPR_ack_SIZE];
    struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION,       HIPR_OP_ACK,
                             0,          HIPR_FLAG_NO_REPLY, HIPR_ack_SIZE };
    hipr_header_encode(fr, &h);
    hipr_ack_encode(fr + HIPR_HEADER_SIZE, &a);
    if (!r.failed)
        replay_push(&r, fr, sizeof fr);
    replay_flush(&r);
    replay_ring_mark_sent(&c->ring);
    replay_ring_note_send(&c->ring, c->requests_sent);
    c->ack_asked_at = c->requests_sent;
    c->gen++;
    hw_heartbeat_link(c);
    rc = r.failed ? -1 : 0;
out:
    pthread_mutex_unlock(&c->wlock);
    pthread_mutex_lock(&c->rlock);
    c->reader_active = 0;
    if (rc == 0) {
        /* Said before any waiter wakes: the program may be done a moment later. */
        fprintf(stderr, "%s\n", line);
        c->down = 0;
    }
    pthread_cond_broadcast(&c->rcond);
    pthread_mutex_unlock(&c->rlock);
    return rc;
}

/* One outage: reconnect until resumed, the deadline passes, or the worker
 * says the session is gone. */
static void resume_outage(struct hw_conn *c)
{
    char why[256] = "", where[300];
    uint64_t backoff = BACKOFF_FIRST_MS;
    pthread_mutex_lock(&c->rlock);
    uint64_t since = c->down_since_ms;
    char lost[160];
    snprintf(lost, sizeof lost, "%s", c->down_why);
    int moved = c->migrate_pending;
    uint64_t old_session = c->session_id;
    if (moved) {
        /* The worker moved the session (MIGRATE): it is resumed there, under
         * the id it has there, with the same token and counts. */
        c->worker = c->migrate_to;
        c->session_id = c->migrate_session;
        c->migrate_pending = 0;
    }
    pthread_mutex_unlock(&c->rlock);
    hw_worker_addr_format(&c->worker, where, sizeof where);
    if (moved)
        fprintf(stderr,
                "hipwire: session %016llx moved to hip-worker at %s (session %016llx there); "
                "resuming it there (calls wait up to %d ms)\n",
                (unsigned long long)old_session, where, (unsigned long long)c->session_id,
                c->resume_ms);
    else
        fprintf(stderr,
                "hipwire: lost the connection to hip-worker at %s (%s); resuming session "
                "%016llx (calls wait up to %d ms)\n",
                where, lost, (unsigned long long)c->session_id, c->resume_ms);
    for (int attempt = 1;; attempt++) {
        uint64_t now = hw_now_ms();
        if (closing(c))
            break;
        if (now - since >= (uint64_t)c->resume_ms) {
            if (!*why)
                snprintf(why, sizeof why, "no answer");
            break;
        }
        /* Nothing is read while down: the counts are stable. */
        uint64_t replies_read = __atomic_load_n(&c->replies_read, __ATOMIC_ACQUIRE);
        pthread_mutex_lock(&c->wlock);
        uint64_t requests_sent = c->requests_sent;
        uint64_t kept_from = c->ring.tail_seq;
        pthread_mutex_unlock(&c->wlock);
        uint64_t left = (uint64_t)c->resume_ms - (now - since);
        int timeout = (int)(left < CONNECT_TIMEOUT_MS ? left : CONNECT_TIMEOUT_MS);
        struct hw_transport t;
        struct hipr_session_resume_rep rep;
        enum attempt a = reconnect(c, &t, replies_read, requests_sent, timeout ? timeout : 1, &rep,
                                   why, sizeof why);
        if (a == ATTEMPT_OK) {
            if (rep.requests_done > requests_sent || rep.requests_done < kept_from ||
                rep.replies_sent < replies_read) {
                snprintf(why, sizeof why,
                         "the worker's counts do not match ours (executed %llu "
                         "of %llu sent, %llu kept)",
                         (unsigned long long)rep.requests_done, (unsigned long long)requests_sent,
                         (unsigned long long)kept_from);
                hw_tx_close(&t);
                break;
            }
            char line[256];
            snprintf(line, sizeof line,
                     "hipwire: resumed session %016llx after %llu ms (%d "
                     "attempt%s; %llu requests sent again, %llu replies to come again)",
                     (unsigned long long)c->session_id, (unsigned long long)(hw_now_ms() - since),
                     attempt, attempt == 1 ? "" : "s",
                     (unsigned long long)(requests_sent - rep.requests_done),
                     (unsigned long long)(rep.replies_sent - replies_read));
            if (install(c, &t, &rep, replies_read, line) == 0)
                return;
            snprintf(why, sizeof why, "the resumed connection failed at once");
            continue;
        }
        hw_debug("resume attempt %d: %s", attempt, why);
        if (a == ATTEMPT_FATAL)
            break;
        pthread_mutex_lock(&c->rlock);
        pause_locked(c, backoff);
        pthread_mutex_unlock(&c->rlock);
        backoff = backoff * 2 < BACKOFF_MAX_MS ? backoff * 2 : BACKOFF_MAX_MS;
    }
    char line[1024];
    snprintf(line, sizeof line,
             "hipwire: could not resume session %016llx with hip-worker at %s "
             "within %llu ms (%s); the remote session is gone and HIP calls will fail "
             "(hipErrorLaunchFailure)",
             (unsigned long long)c->session_id, where, (unsigned long long)(hw_now_ms() - since),
             why);
    hw_conn_fail(c, line);
}

static void *resume_main(void *arg)
{
    struct hw_conn *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->rlock);
        while (!c->down && !c->broken && !closing(c))
            pthread_cond_wait(&c->resume_cond, &c->rlock);
        int stop = c->broken || closing(c), down = c->down;
        pthread_mutex_unlock(&c->rlock);
        if (stop) {
            /* The process exits while the link is down: nothing will bring
             * it back, so threads still waiting must not hang the exit. */
            if (down)
                hw_conn_fail(c, "");
            return NULL;
        }
        resume_outage(c);
    }
}

int hw_resume_start(struct hw_conn *c)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&c->resume_thread, &a, resume_main, c);
    pthread_attr_destroy(&a);
    if (rc != 0)
        return -1;
    c->resume_running = 1;
    return 0;
}
