/*
 * resume.c - a session that outlives its connection (docs/protocol.md,
 * "Session resume"; the client's half is src/client/resume.c).
 *
 * After RESUME_ENABLE the session keeps every reply until the client
 * acknowledges it (reply_log.h) and listens on a unix socket of its own
 * (route.h). When the connection breaks, the request loop returns and
 * session_resume_wait() holds the session - memory, modules, streams,
 * work still running - for --resume-grace. A reconnecting client names the
 * session in SESSION_ROUTE; the process that accepted that connection
 * hands the socket over; the route thread here runs TLS, authentication
 * (AUTH_BEGIN.session = this session, covered by both proofs) and checks
 * SESSION_RESUME's token; then the request loop's thread takes the new
 * connection, answers with the count of requests it executed, sends again
 * the replies the client has not read, and carries on. The client re-sends
 * the requests after that count. A request cut short by the break was not
 * executed (session.c), so nothing runs twice and nothing is lost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_auth.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_sha256.h"
#include "route.h"
#include "handshake.h"
#include "heartbeat.h"
#include "resume.h"
#include "session_main.h"
#include "hw_time.h"

#define ROUTE_POLL_MS 200 /* how often the route thread looks for a stop */
/* Routed handshakes at once: each has its own thread and one deadline, so a
 * peer that dawdles delays nobody else; past this many, new ones are
 * closed at once (every one of them ends within --handshake-timeout). */
#define ROUTE_MAX_BUSY 8

static int route_stopping(struct session *s)
{
    pthread_mutex_lock(&s->resume_lock);
    int stop = s->route_stop;
    pthread_mutex_unlock(&s->resume_lock);
    return stop;
}

/* One handed-over connection: plain SESSION_ROUTE's reply, TLS or plain,
 * authentication, SESSION_RESUME with the right token. On success it waits
 * in s->next_tx for the request loop's thread, and the old connection, if
 * it still looks alive to us, is shut down first so that thread lets it go. */
static void take_routed(struct session *s, int fd, uint32_t route_id)
{
    struct hw_transport t;
    char peer[80];
    struct hipr_header h;
    uint8_t fixed[LINK_FIXED_MAX];
    hw_tx_init_plain(&t, fd);
    hw_peer_name(fd, peer, sizeof peer);
    /* One deadline for the whole handshake, not one per read. */
    hw_tx_set_deadline(&t, s->cfg->handshake_timeout_ms);
    struct link_setup l = { .tx = &t,
                            .cfg = s->cfg,
                            .peer = peer,
                            .session = s->id,
                            .heartbeat_ms = s->link.heartbeat_ms };
    if (link_reply(&t, HIPR_OP_SESSION_ROUTE, route_id, HW_OK, NULL, 0) < 0 ||
        link_accept(&l) < 0 || link_handshake(&l, s, NULL, &h, fixed) != 0)
        goto fail;
    struct hipr_session_resume_req req;
    uint8_t want[HW_AUTH_PROOF_LEN], proof[HW_AUTH_PROOF_LEN];
    hipr_session_resume_req_decode(fixed, HIPR_session_resume_req_SIZE, &req);
    hw_resume_proof(s->resume_token, HW_PROOF_RESUME_CLIENT, l.tr.cnonce, l.tr.wnonce, s->id,
                    l.tr.binding, want);
    if (req.session_id != s->id || !hw_ct_equal(want, req.proof, sizeof want)) {
        hw_warn("session %016llx: refusing a resume from %s: %s", (unsigned long long)s->id, peer,
                req.session_id != s->id ? "it names another session" : "wrong resume proof");
        link_reply(&t, h.opcode, h.request_id, HW_ENOTINIT, NULL, 0);
        goto fail;
    }
    hw_resume_proof(s->resume_token, HW_PROOF_RESUME_WORKER, l.tr.cnonce, l.tr.wnonce, s->id,
                    l.tr.binding, proof);
    hw_tx_set_deadline(&t, 0);
    hw_tx_set_recv_timeout(&t, 0);
    /* The client gave up on the old connection even if we have not noticed.
     * Said before the new one is published: said after, it could cut the new
     * one, had the request loop already taken it. */
    slink_lost(&s->link);
    pthread_mutex_lock(&s->resume_lock);
    if (s->next_ready) /* an earlier attempt nobody took yet: the newest wins */
        hw_tx_close(&s->next_tx);
    if (hw_tx_move(&s->next_tx, &t) < 0) {
        s->next_ready = 0;
        pthread_mutex_unlock(&s->resume_lock);
        return;
    }
    s->next_h = h;
    s->next_req = req;
    memcpy(s->next_proof, proof, sizeof s->next_proof);
    snprintf(s->next_peer, sizeof s->next_peer, "%s", peer);
    s->next_ready = 1;
    pthread_cond_broadcast(&s->resume_cond);
    pthread_mutex_unlock(&s->resume_lock);
    return;
fail:
    hw_tx_close(&t);
}

struct routed {
    struct session *s;
    int fd;
    uint32_t route_id;
};

static void *routed_main(void *arg)
{
    struct routed r = *(struct routed *)arg;
    free(arg);
    take_routed(r.s, r.fd, r.route_id);
    pthread_mutex_lock(&r.s->resume_lock);
    r.s->route_busy--;
    pthread_cond_broadcast(&r.s->resume_cond);
    pthread_mutex_unlock(&r.s->resume_lock);
    return NULL;
}

/* Starts the handshake of one handed-over connection in a thread of its
 * own, or closes it when too many are under way. */
static void start_routed(struct session *s, int fd, uint32_t route_id)
{
    struct routed *r = hw_malloc(sizeof *r);
    pthread_attr_t attr;
    pthread_t th;
    pthread_mutex_lock(&s->resume_lock);
    int busy = s->route_busy;
    if (r && busy < ROUTE_MAX_BUSY)
        s->route_busy++;
    pthread_mutex_unlock(&s->resume_lock);
    if (!r || busy >= ROUTE_MAX_BUSY) {
        hw_warn("session %016llx: %d resume handshakes under way; closing another",
                (unsigned long long)s->id, busy);
        goto refuse;
    }
    *r = (struct routed){ s, fd, route_id };
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &attr, routed_main, r);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        return;
    pthread_mutex_lock(&s->resume_lock);
    s->route_busy--;
    pthread_mutex_unlock(&s->resume_lock);
refuse:
    free(r);
    close(fd);
}

static void *route_main(void *arg)
{
    struct session *s = arg;
    while (!route_stopping(s)) {
        struct pollfd p = { .fd = s->route_fd, .events = POLLIN };
        if (poll(&p, 1, ROUTE_POLL_MS) <= 0)
            continue;
        int fd;
        uint32_t route_id;
        if (route_accept(s->route_fd, s->id, &fd, &route_id) == 0)
            start_routed(s, fd, route_id);
    }
    return NULL;
}

/* Listens for handed-over connections (the route thread). */
static int route_start(struct session *s)
{
    if (s->link.resumable || s->route_running)
        return HW_EINVAL;
    if (!s->cfg->resume_grace_ms || !s->resume_token)
        return HW_ENOTSUP; /* off here, or the client has no token to resume with */
    if (route_listen(s->id, &s->route_fd) < 0) {
        hw_warn("session %016llx: cannot listen for resumed connections: %s",
                (unsigned long long)s->id, strerror(errno));
        return HW_ENOTSUP;
    }
    if (pthread_create(&s->route_thread, NULL, route_main, s) != 0) {
        close(s->route_fd);
        s->route_fd = -1;
        return HW_ENOTSUP;
    }
    s->route_running = 1;
    return HW_OK;
}

int session_resume_adopt(struct session *s)
{
    return route_start(s);
}

int session_resume_enable(struct session *s, uint32_t request_id)
{
    int rc = route_start(s);
    if (rc != HW_OK)
        return rc;
    /* The reply goes out before replies are counted and kept: the client
     * reads it as part of setting the session up. */
    struct hipr_resume_enable_rep r = { .grace_ms = (uint32_t)s->cfg->resume_grace_ms };
    uint8_t out[HIPR_resume_enable_rep_SIZE];
    hipr_resume_enable_rep_encode(out, &r);
    slink_reply(&s->link, HIPR_OP_RESUME_ENABLE, request_id, HW_OK, out, sizeof out, NULL, 0);
    slink_set_resumable(&s->link);
    s->acks = 1; /* the request loop's, which runs this */
    hw_debug("session %016llx: resumable for %llu ms after a cut", (unsigned long long)s->id,
             (unsigned long long)s->cfg->resume_grace_ms);
    return HW_OK;
}

struct resend_ctx {
    struct session *s;
};

static int resend_one(void *ctx, const void *head, size_t head_len, const void *tail,
                      uint64_t tail_len)
{
    struct resend_ctx *r = ctx;
    struct iovec iov[2] = { { (void *)head, head_len }, { (void *)tail, (size_t)tail_len } };
    return hw_tx_writev_full(&r->s->link.tx, iov, 2);
}

/* The request loop's thread takes the new connection: the client's counts
 * must fit what was kept, then SESSION_RESUME's reply, the replies it has
 * not read, and the loop carries on. 0, or -1 when the session cannot go on. */
static int rejoin(struct session *s, struct hw_transport *t, const struct hipr_header *h,
                  const struct hipr_session_resume_req *req, const uint8_t *proof, const char *peer)
{
    struct hipr_session_resume_rep rep = { .requests_done = s->requests_executed,
                                           .grace_ms = (uint32_t)s->cfg->resume_grace_ms };
    memcpy(rep.proof, proof, sizeof rep.proof);
    uint8_t out[HIPR_session_resume_rep_SIZE];
    const char *why = NULL;
    /* The one place above the link that works on its fields: the new
     * transport moves in, the kept replies go out again and the link comes
     * up under one hold of send_lock, so no completion's reply slips in
     * between. */
    pthread_mutex_lock(&s->link.send_lock);
    rep.replies_sent = s->link.replies.sent;
    if (!s->link.resumable)
        why = "it stopped keeping replies (--resume-buffer)";
    else if (req->requests_sent < s->requests_executed)
        why = "the client sent fewer requests than were executed";
    else if (!reply_log_has(&s->link.replies, req->replies_received))
        why = "the client counts replies that were never sent";
    if (why) {
        pthread_mutex_unlock(&s->link.send_lock);
        hw_warn("session %016llx: cannot resume for %s: %s; ending", (unsigned long long)s->id,
                peer, why);
        link_reply(t, h->opcode, h->request_id, HW_EINVAL, NULL, 0);
        hw_tx_close(t);
        return -1;
    }
    session_track_fd(s, -1); /* no shutdown may reach the number once closed */
    hw_tx_close(&s->link.tx);
    if (hw_tx_move(&s->link.tx, t) < 0) {
        pthread_mutex_unlock(&s->link.send_lock);
        return -1;
    }
    session_track_fd(s, s->link.tx.fd);
    reply_log_ack(&s->link.replies, req->replies_received);
    hipr_session_resume_rep_encode(out, &rep);
    struct resend_ctx rc = { s };
    uint64_t resent = rep.replies_sent - req->replies_received;
    if (link_reply(&s->link.tx, h->opcode, h->request_id, HW_OK, out, sizeof out) < 0 ||
        reply_log_resend(&s->link.replies, req->replies_received, resend_one, &rc) < 0)
        hw_tx_shutdown(&s->link.tx); /* broken again: the next read says so */
    else
        s->link.link_down = 0;
    status_slot_set_client(s->slot, s->link.tx.fd);
    if (s->link.heartbeat_ms)
        __atomic_store_n(&s->link.last_send_ms, hw_now_ms(), __ATOMIC_RELAXED);
    pthread_mutex_unlock(&s->link.send_lock);
    /* What the old connection left half read is gone with it. */
    slink_reset_reads(&s->link);
    session_heartbeat_link(s);
    hw_info("session %016llx: resumed by %s (%s): %llu requests executed, %llu replies sent "
            "again",
            (unsigned long long)s->id, peer, hw_tx_is_tls(&s->link.tx) ? "TLS" : "plain",
            (unsigned long long)rep.requests_done, (unsigned long long)resent);
    return 0;
}

int session_resume_wait(struct session *s)
{
    if (!s->link.resumable || session_terminating(s))
        return -1;
    if (!slink_detach(&s->link))
        return -1;
    uint64_t grace = s->cfg->resume_grace_ms, deadline = hw_now_ms() + grace;
    status_slot_set_state(s->slot, HIPR_SESSION_DETACHED);
    hw_info("session %016llx: keeping it for --resume-grace %llu ms for its client to resume",
            (unsigned long long)s->id, (unsigned long long)grace);
    pthread_mutex_lock(&s->resume_lock);
    while (!s->next_ready && !session_terminating(s) && hw_now_ms() < deadline &&
           __atomic_load_n(&s->link.resumable, __ATOMIC_ACQUIRE)) {
        uint64_t left = deadline - hw_now_ms();
        /* Short slices: SIGTERM only sets a flag. */
        uint64_t slice = left < ROUTE_POLL_MS ? left : ROUTE_POLL_MS;
        struct timespec until = hw_deadline_after_ns(CLOCK_MONOTONIC, slice * 1000000u);
        pthread_cond_timedwait(&s->resume_cond, &s->resume_lock, &until);
    }
    if (!s->next_ready) {
        pthread_mutex_unlock(&s->resume_lock);
        if (!session_terminating(s))
            hw_info("session %016llx: not resumed within --resume-grace %llu ms; ending",
                    (unsigned long long)s->id, (unsigned long long)grace);
        return -1;
    }
    struct hw_transport t;
    struct hipr_header h = s->next_h;
    struct hipr_session_resume_req req = s->next_req;
    uint8_t proof[HW_AUTH_PROOF_LEN];
    memcpy(proof, s->next_proof, sizeof proof);
    char peer[80];
    snprintf(peer, sizeof peer, "%s", s->next_peer);
    int moved = hw_tx_move(&t, &s->next_tx);
    s->next_ready = 0;
    pthread_mutex_unlock(&s->resume_lock);
    if (moved < 0)
        return -1;
    return rejoin(s, &t, &h, &req, proof, peer);
}

void session_resume_end(struct session *s)
{
    if (s->route_running) {
        pthread_mutex_lock(&s->resume_lock);
        s->route_stop = 1;
        pthread_mutex_unlock(&s->resume_lock);
        pthread_join(s->route_thread, NULL);
        s->route_running = 0;
    }
    /* Handshakes still under way use s: each ends by its deadline. */
    pthread_mutex_lock(&s->resume_lock);
    while (s->route_busy > 0)
        pthread_cond_wait(&s->resume_cond, &s->resume_lock);
    pthread_mutex_unlock(&s->resume_lock);
    if (s->route_fd >= 0)
        close(s->route_fd);
    s->route_fd = -1;
    pthread_mutex_lock(&s->resume_lock);
    if (s->next_ready)
        hw_tx_close(&s->next_tx);
    s->next_ready = 0;
    pthread_mutex_unlock(&s->resume_lock);
    slink_resume_off(&s->link);
}

int session_route(struct hw_transport *t, const struct status_table *table, const char *peer,
                  const struct hipr_header *h)
{
    const struct hipr_op_info *info;
    uint8_t fixed[HIPR_session_route_SIZE];
    struct hipr_session_route m;
    if (hipr_check_request(h, &info) != HIPR_OK || hw_tx_read_full(t, fixed, sizeof fixed) < 0 ||
        hw_tx_discard(t, h->payload_length - sizeof fixed) < 0) {
        hw_warn("rejecting connection from %s: a malformed SESSION_ROUTE", peer);
        return 1;
    }
    hipr_session_route_decode(fixed, sizeof fixed, &m);
    pid_t owner = status_table_pid_of(table, m.session_id);
    if (!owner)
        errno = ENOENT;
    if (!owner || route_send(m.session_id, owner, t->fd, h->request_id) < 0) {
        int e = errno;
        hw_info("connection from %s asks to resume session %016llx: %s", peer,
                (unsigned long long)m.session_id,
                e == ENOENT ? "no such session (ended, or never resumable)" : strerror(e));
        link_reply(t, h->opcode, h->request_id,
                   e == ENOENT || e == EPERM ? HW_ENOTFOUND : HW_EUNKNOWN, NULL, 0);
        return 1;
    }
    hw_debug("connection from %s handed to session %016llx", peer,
             (unsigned long long)m.session_id);
    return 0;
}
