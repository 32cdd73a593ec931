/*
 * handshake.c - what a connection goes through before it is a session:
 * TLS or plain, authentication, and its first real request (HELLO, a
 * status query, or on a routed connection SESSION_RESUME). See
 * docs/protocol.md, "Session" and "Session resume".
 *
 * Until the peer has proven it holds the token, the session process has
 * allocated nothing for it but the fixed buffer below (and, on TLS, the
 * TLS state), no status slot and no backend; the handshake timer in
 * session.c (or the routed connection's deadline in resume.c) ends it if
 * it dawdles. Everything here works on the connection's own transport, so
 * a resumed session can run it on a new connection while its old one is
 * still in use.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "drain.h"
#include "migrate.h"
#include "hw_auth.h"
#include "hw_log.h"
#include "hw_sha256.h"
#include "rtc.h"
#include "handshake.h"
#include "heartbeat.h"
#include "session_main.h"
#include "worker_info.h"

/* The largest request read before authentication, header included. */
#define PRE_AUTH_BUF (HIPR_HEADER_SIZE + LINK_FIXED_MAX)
_Static_assert(HIPR_auth_begin_req_SIZE <= LINK_FIXED_MAX, "AUTH_BEGIN outgrew LINK_FIXED_MAX");
_Static_assert(HIPR_auth_proof_SIZE <= LINK_FIXED_MAX, "AUTH_PROOF outgrew LINK_FIXED_MAX");
_Static_assert(HIPR_hello_req_SIZE <= LINK_FIXED_MAX, "HELLO outgrew LINK_FIXED_MAX");
_Static_assert(HIPR_session_resume_req_SIZE <= LINK_FIXED_MAX,
               "SESSION_RESUME outgrew LINK_FIXED_MAX");

struct pre_auth {
    uint8_t cnonce[HW_AUTH_NONCE_LEN];
    uint8_t wnonce[HW_AUTH_NONCE_LEN];
    uint64_t session; /* covered by the proofs: 0 new, else resumed */
    int began;        /* AUTH_BEGIN answered */
    int authed;       /* token proven, or none required */
    int bind_cert;    /* the proofs bind the certificate (HIPR_AUTH_BIND_CERT) */
};

/* The channel binding of a's proofs: the TLS exporter, or the worker's
 * certificate for a client that asked (Schannel has no exporter). */
static void auth_binding(struct link_setup *l, const struct pre_auth *a,
                         uint8_t out[HW_TLS_CHANNEL_BINDING_LEN])
{
    if (a->bind_cert) {
        if (hw_tls_cert_binding(l->tx, out) < 0)
            memset(out, 0, HW_TLS_CHANNEL_BINDING_LEN);
        return;
    }
    hw_tx_channel_binding(l->tx, out);
}

int link_reply(struct hw_transport *t, uint16_t opcode, uint32_t request_id, int status,
               const void *body, size_t body_len)
{
    uint8_t hdr[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    hipr_reply_frame_encode(hdr, opcode, request_id, status, 0, body_len);
    struct iovec iov[2] = { { hdr, sizeof hdr }, { (void *)body, body_len } };
    return hw_tx_writev_full(t, iov, 2);
}

static int refuse(struct link_setup *l, const struct hipr_header *h, const char *why)
{
    hw_warn("refusing connection from %s: %s", l->peer, why);
    link_reply(l->tx, h->opcode, h->request_id, HW_ENOTINIT, NULL, 0);
    return -1;
}

int link_accept(struct link_setup *l)
{
    uint8_t first;
    ssize_t r;
    do
        r = recv(l->tx->fd, &first, 1, MSG_PEEK);
    while (r < 0 && errno == EINTR);
    if (r <= 0) {
        hw_debug("connection from %s closed before its first byte", l->peer);
        return -1;
    }
    if (first != HW_TLS_RECORD_HANDSHAKE)
        return 0; /* plain HIPR: the magic's first byte is 0x52 */
    if (!l->cfg->tls) {
        hw_warn("refusing connection from %s: it starts TLS, but this worker has no --tls-cert",
                l->peer);
        return -1;
    }
    char why[256];
    int ms = l->tx->deadline_ms ? hw_tx_wait_budget(l->tx) : l->cfg->handshake_timeout_ms;
    if (ms < 0 || hw_tls_accept(l->tx, l->cfg->tls, ms, why, sizeof why) < 0) {
        hw_warn("refusing connection from %s: %s", l->peer, why);
        return -1;
    }
    return 0;
}

static int auth_begin(struct link_setup *l, struct pre_auth *a, const struct hipr_header *h,
                      const uint8_t *fixed)
{
    struct hipr_auth_begin_req req;
    struct hipr_auth_begin_rep rep;
    const struct worker_config *cfg = l->cfg;
    int plain_refused = cfg->require_tls && !hw_tx_is_tls(l->tx);
    if (a->began)
        return refuse(l, h, "a second AUTH_BEGIN");
    hipr_auth_begin_req_decode(fixed, HIPR_auth_begin_req_SIZE, &req);
    if (req.session != l->session) {
        char why[128];
        if (l->session)
            snprintf(why, sizeof why, "AUTH_BEGIN names session %016llx, not this one",
                     (unsigned long long)req.session);
        else
            snprintf(why, sizeof why,
                     "AUTH_BEGIN names session %016llx, but a resuming "
                     "connection must start with SESSION_ROUTE",
                     (unsigned long long)req.session);
        return refuse(l, h, why);
    }
    memcpy(a->cnonce, req.client_nonce, sizeof a->cnonce);
    a->session = req.session;
    if (hw_random_bytes(a->wnonce, sizeof a->wnonce) < 0) {
        hw_error("cannot read random bytes: %s", strerror(errno));
        return -1;
    }
    memset(&rep, 0, sizeof rep);
    memcpy(rep.worker_nonce, a->wnonce, sizeof a->wnonce);
    rep.requires = (cfg->token ? HIPR_AUTH_REQUIRES_TOKEN : 0) |
                   (cfg->require_tls ? HIPR_AUTH_REQUIRES_TLS : 0);
    rep.link = hw_tx_is_tls(l->tx) ? HIPR_AUTH_LINK_TLS : 0;
    a->bind_cert = (req.flags & HIPR_AUTH_BIND_CERT) && hw_tx_is_tls(l->tx);
    if (a->bind_cert)
        rep.link |= HIPR_AUTH_LINK_BIND_CERT;
    /* The client's interval, within sane bounds; 0 keeps heartbeats off. A
     * resumed session keeps the interval it has. */
    if (!l->session && req.heartbeat_ms)
        l->heartbeat_ms = req.heartbeat_ms < HW_HEARTBEAT_MIN_MS   ? HW_HEARTBEAT_MIN_MS
                          : req.heartbeat_ms > HW_HEARTBEAT_MAX_MS ? HW_HEARTBEAT_MAX_MS
                                                                   : (int)req.heartbeat_ms;
    rep.heartbeat_ms = (uint32_t)l->heartbeat_ms;
    uint8_t out[HIPR_auth_begin_rep_SIZE];
    hipr_auth_begin_rep_encode(out, &rep);
    if (link_reply(l->tx, h->opcode, h->request_id, HW_OK, out, sizeof out) < 0)
        return -1;
    if (plain_refused) {
        /* The reply told the client why; nothing more is read from it. */
        hw_warn("refusing connection from %s: plain text, but --require-tls", l->peer);
        return -1;
    }
    a->began = 1;
    a->authed = cfg->token == NULL;
    return 0;
}

static int auth_proof(struct link_setup *l, struct pre_auth *a, const struct hipr_header *h,
                      const uint8_t *fixed)
{
    struct hipr_auth_proof req, rep;
    uint8_t binding[HW_TLS_CHANNEL_BINDING_LEN], want[HW_AUTH_PROOF_LEN];
    const struct hw_token *token = l->cfg->token;
    if (!a->began || a->authed)
        return refuse(l, h,
                      !a->began ? "AUTH_PROOF before AUTH_BEGIN"
                                : "AUTH_PROOF, but no token is configured here");
    hipr_auth_proof_decode(fixed, HIPR_auth_proof_SIZE, &req);
    auth_binding(l, a, binding);
    hw_auth_proof(token, HW_PROOF_CLIENT, a->cnonce, a->wnonce, a->session, binding, want);
    if (!hw_ct_equal(want, req.proof, sizeof want))
        return refuse(l, h, "authentication failed (wrong token)");
    a->authed = 1;
    /* Only a client that has proven itself learns that this worker can too. */
    hw_auth_proof(token, HW_PROOF_WORKER, a->cnonce, a->wnonce, a->session, binding, rep.proof);
    uint8_t out[HIPR_auth_proof_SIZE];
    hipr_auth_proof_encode(out, &rep);
    return link_reply(l->tx, h->opcode, h->request_id, HW_OK, out, sizeof out);
}

/* Why an unauthenticated first request is refused, or NULL when it may go on. */
static const char *not_allowed(const struct link_setup *l, const struct pre_auth *a)
{
    if (l->cfg->require_tls && !hw_tx_is_tls(l->tx))
        return "plain text, but --require-tls";
    if (!a->authed && l->cfg->token)
        return "not authenticated (this worker has a token; the client sent none)";
    return NULL;
}

/* Whether opcode may come before the session exists on this connection. */
static int allowed_before_session(const struct link_setup *l, uint16_t opcode)
{
    switch (opcode) {
    case HIPR_OP_AUTH_BEGIN:
    case HIPR_OP_AUTH_PROOF: return 1;
    case HIPR_OP_HELLO:
    case HIPR_OP_WORKER_STATUS:
    case HIPR_OP_RTC_CACHE_STATS:
    case HIPR_OP_WORKER_DRAIN:
    case HIPR_OP_WORKER_MIGRATE:
    case HIPR_OP_WORKER_INFO: return l->session == 0;
    case HIPR_OP_SESSION_RESUME: return l->session != 0;
    default: return 0;
    }
}

int link_handshake(struct link_setup *l, struct session *s, const uint8_t *first,
                   struct hipr_header *final_h, uint8_t *final_fixed)
{
    uint8_t buf[PRE_AUTH_BUF];
    struct pre_auth a;
    memset(&a, 0, sizeof a);
    a.authed = l->cfg->token == NULL;

    for (;;) {
        struct hipr_header h;
        const struct hipr_op_info *info;
        if (first) {
            memcpy(buf, first, HIPR_HEADER_SIZE);
            first = NULL;
        } else if (hw_tx_read_full(l->tx, buf, HIPR_HEADER_SIZE) < 0) {
            return -1;
        }
        hipr_header_decode(buf, &h);
        enum hipr_check c = hipr_check_request(&h, &info);
        if (c != HIPR_OK) {
            hw_warn("rejecting connection from %s: %s before the handshake", l->peer,
                    hipr_check_str(c));
            return -1;
        }
        if (!allowed_before_session(l, h.opcode)) {
            hw_warn("rejecting connection from %s: first request is %s, not %s", l->peer,
                    info->name, l->session ? "SESSION_RESUME" : "HELLO");
            return -1;
        }
        /* Every request allowed here has a fixed part that fits buf. */
        uint32_t fixed_len = info->request_size;
        /* WORKER_MIGRATE's tail is the target's host (at most 255 bytes,
         * the spec's cap, checked above); every other tail is dropped. */
        char host[256] = "";
        uint64_t tail = h.payload_length - fixed_len;
        size_t keep = h.opcode == HIPR_OP_WORKER_MIGRATE && tail < sizeof host ? (size_t)tail : 0;
        if (fixed_len > sizeof buf - HIPR_HEADER_SIZE ||
            hw_tx_read_full(l->tx, buf + HIPR_HEADER_SIZE, fixed_len) < 0 ||
            (keep && hw_tx_read_full(l->tx, host, keep) < 0) ||
            hw_tx_discard(l->tx, tail - keep) < 0)
            return -1;
        host[keep] = '\0';
        const uint8_t *fixed = buf + HIPR_HEADER_SIZE;
        const char *why;
        switch (h.opcode) {
        case HIPR_OP_AUTH_BEGIN:
            if (auth_begin(l, &a, &h, fixed) < 0)
                return -1;
            continue;
        case HIPR_OP_AUTH_PROOF:
            if (auth_proof(l, &a, &h, fixed) < 0)
                return -1;
            continue;
        default: break;
        }
        if ((why = not_allowed(l, &a)) != NULL)
            return refuse(l, &h, why);
        if (h.opcode == HIPR_OP_SESSION_RESUME) {
            /* Its proofs are bound to this connection's nonces. */
            if (!a.began)
                return refuse(l, &h, "SESSION_RESUME without AUTH_BEGIN");
            memcpy(l->tr.cnonce, a.cnonce, sizeof l->tr.cnonce);
            memcpy(l->tr.wnonce, a.wnonce, sizeof l->tr.wnonce);
            auth_binding(l, &a, l->tr.binding);
        }
        struct hipr_hello_req hello = { 0 };
        if (h.opcode == HIPR_OP_HELLO)
            hipr_hello_req_decode(fixed, HIPR_hello_req_SIZE, &hello);
        /* A fresh connection's status queries go out on s->link.tx, which is l->tx. */
        if (h.opcode == HIPR_OP_WORKER_STATUS || (hello.flags & HIPR_HELLO_STATUS_ONLY)) {
            session_send_worker_status(s, h.request_id);
            return 1;
        }
        if (h.opcode == HIPR_OP_RTC_CACHE_STATS) {
            rtc_send_cache_stats(s, h.request_id);
            return 1;
        }
        if (h.opcode == HIPR_OP_WORKER_DRAIN) {
            drain_answer(s, h.request_id, fixed, l->peer);
            return 1;
        }
        if (h.opcode == HIPR_OP_WORKER_MIGRATE) {
            if (strlen(host) != keep)
                host[0] = '\0'; /* an embedded NUL: refused as no host */
            return migrate_answer(s, &h, fixed, host, l->peer);
        }
        if (h.opcode == HIPR_OP_HELLO && drain_refuses_sessions(s->table)) {
            /* hipErrorNoDevice: this worker has none to give any more. */
            hw_info("refusing a new session from %s: draining", l->peer);
            link_reply(l->tx, h.opcode, h.request_id, HW_ENODEV, NULL, 0);
            return -1;
        }
        if (h.opcode == HIPR_OP_WORKER_INFO) {
            worker_info_send(s, l->cfg->info, h.request_id);
            return 1;
        }
        *final_h = h;
        memcpy(final_fixed, fixed, fixed_len);
        return 0;
    }
}
