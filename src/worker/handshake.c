/*
 * handshake.c - what a connection goes through before it is a session:
 * TLS or plain, authentication, and its first real request (HELLO, or a
 * status query). See docs/protocol.md, "Connection setup".
 *
 * Until the peer has proven it holds the token, the session process has
 * allocated nothing for it but the fixed buffer below (and, on TLS, the
 * TLS state), no status slot and no backend; the handshake timer in
 * session.c ends it if it dawdles.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "hw_auth.h"
#include "hw_log.h"
#include "hw_sha256.h"
#include "session.h"

/* The largest request read before authentication, header included. */
#define PRE_AUTH_BUF (HIPR_HEADER_SIZE + HIPR_auth_begin_req_SIZE)

struct pre_auth {
    uint8_t cnonce[HW_AUTH_NONCE_LEN];
    uint8_t wnonce[HW_AUTH_NONCE_LEN];
    uint64_t session;      /* covered by the proofs: 0 new, else resumed */
    int began;             /* AUTH_BEGIN answered */
    int authed;            /* token proven, or none required */
};

static int refuse(struct session *s, const struct hipr_header *h, const char *peer,
                  const char *why)
{
    hw_warn("refusing connection from %s: %s", peer, why);
    session_reply(s, h->opcode, h->request_id, HW_ENOTINIT, NULL, 0, NULL, 0);
    return -1;
}

int session_accept_link(struct session *s, const char *peer)
{
    uint8_t first;
    ssize_t r;
    do
        r = recv(s->tx.fd, &first, 1, MSG_PEEK);
    while (r < 0 && errno == EINTR);
    if (r <= 0) {
        hw_debug("connection from %s closed before its first byte", peer);
        return -1;
    }
    if (first != HW_TLS_RECORD_HANDSHAKE)
        return 0; /* plain HIPR: the magic's first byte is 0x52 */
    if (!s->cfg->tls) {
        hw_warn("refusing connection from %s: it starts TLS, but this worker has no --tls-cert",
                peer);
        return -1;
    }
    char why[256];
    if (hw_tls_accept(&s->tx, s->cfg->tls, s->cfg->handshake_timeout_ms, why, sizeof why) < 0) {
        hw_warn("refusing connection from %s: %s", peer, why);
        return -1;
    }
    return 0;
}

static int auth_begin(struct session *s, struct pre_auth *a, const struct hipr_header *h,
                      const uint8_t *fixed, const char *peer)
{
    struct hipr_auth_begin_req req;
    struct hipr_auth_begin_rep rep;
    int plain_refused = s->cfg->require_tls && !hw_tx_is_tls(&s->tx);
    if (a->began)
        return refuse(s, h, peer, "a second AUTH_BEGIN");
    hipr_auth_begin_req_decode(fixed, HIPR_auth_begin_req_SIZE, &req);
    memcpy(a->cnonce, req.client_nonce, sizeof a->cnonce);
    a->session = req.session;
    if (hw_random_bytes(a->wnonce, sizeof a->wnonce) < 0) {
        hw_error("cannot read random bytes: %s", strerror(errno));
        return -1;
    }
    memset(&rep, 0, sizeof rep);
    memcpy(rep.worker_nonce, a->wnonce, sizeof a->wnonce);
    rep.requires = (s->cfg->token ? HIPR_AUTH_REQUIRES_TOKEN : 0) |
                   (s->cfg->require_tls ? HIPR_AUTH_REQUIRES_TLS : 0);
    rep.link = hw_tx_is_tls(&s->tx) ? HIPR_AUTH_LINK_TLS : 0;
    /* The client's interval, within sane bounds; 0 keeps heartbeats off. */
    if (req.heartbeat_ms)
        s->heartbeat_ms = req.heartbeat_ms < HW_HEARTBEAT_MIN_MS   ? HW_HEARTBEAT_MIN_MS
                          : req.heartbeat_ms > HW_HEARTBEAT_MAX_MS ? HW_HEARTBEAT_MAX_MS
                                                                   : (int)req.heartbeat_ms;
    rep.heartbeat_ms = (uint32_t)s->heartbeat_ms;
    uint8_t out[HIPR_auth_begin_rep_SIZE];
    hipr_auth_begin_rep_encode(out, &rep);
    if (session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0) < 0)
        return -1;
    if (plain_refused) {
        /* The reply told the client why; nothing more is read from it. */
        hw_warn("refusing connection from %s: plain text, but --require-tls", peer);
        return -1;
    }
    a->began = 1;
    a->authed = s->cfg->token == NULL;
    return 0;
}

static int auth_proof(struct session *s, struct pre_auth *a, const struct hipr_header *h,
                      const uint8_t *fixed, const char *peer)
{
    struct hipr_auth_proof req, rep;
    uint8_t binding[HW_TLS_CHANNEL_BINDING_LEN], want[HW_AUTH_PROOF_LEN];
    if (!a->began || a->authed)
        return refuse(s, h, peer, !a->began ? "AUTH_PROOF before AUTH_BEGIN"
                                            : "AUTH_PROOF, but no token is configured here");
    hipr_auth_proof_decode(fixed, HIPR_auth_proof_SIZE, &req);
    hw_tx_channel_binding(&s->tx, binding);
    hw_auth_proof(s->cfg->token, HW_PROOF_CLIENT, a->cnonce, a->wnonce, a->session, binding,
                  want);
    if (!hw_ct_equal(want, req.proof, sizeof want))
        return refuse(s, h, peer, "authentication failed (wrong token)");
    a->authed = 1;
    /* Only a client that has proven itself learns that this worker can too. */
    hw_auth_proof(s->cfg->token, HW_PROOF_WORKER, a->cnonce, a->wnonce, a->session, binding,
                  rep.proof);
    uint8_t out[HIPR_auth_proof_SIZE];
    hipr_auth_proof_encode(out, &rep);
    return session_reply(s, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
}

/* Why an unauthenticated first request is refused, or NULL when it may go on. */
static const char *not_allowed(const struct session *s, const struct pre_auth *a)
{
    if (s->cfg->require_tls && !hw_tx_is_tls(&s->tx))
        return "plain text, but --require-tls";
    if (!a->authed && s->cfg->token)
        return "not authenticated (this worker has a token; the client sent none)";
    return NULL;
}

int session_handshake(struct session *s, const char *peer, struct hipr_header *hello_h,
                      struct hipr_hello_req *hello)
{
    uint8_t buf[PRE_AUTH_BUF];
    struct pre_auth a;
    memset(&a, 0, sizeof a);
    a.authed = s->cfg->token == NULL;

    for (;;) {
        struct hipr_header h;
        const struct hipr_op_info *info;
        if (hw_tx_read_full(&s->tx, buf, HIPR_HEADER_SIZE) < 0)
            return -1;
        hipr_header_decode(buf, &h);
        enum hipr_check c = hipr_check_request(&h, &info);
        if (c != HIPR_OK) {
            hw_warn("rejecting connection from %s: %s before the handshake", peer,
                    hipr_check_str(c));
            return -1;
        }
        /* Every request allowed here has a fixed part that fits buf. */
        uint32_t fixed_len = info->request_size;
        switch (h.opcode) {
        case HIPR_OP_AUTH_BEGIN: case HIPR_OP_AUTH_PROOF: case HIPR_OP_HELLO:
        case HIPR_OP_WORKER_STATUS:
            break;
        default:
            hw_warn("rejecting connection from %s: first request is %s, not HELLO", peer,
                    info->name);
            return -1;
        }
        if (fixed_len > sizeof buf - HIPR_HEADER_SIZE ||
            hw_tx_read_full(&s->tx, buf + HIPR_HEADER_SIZE, fixed_len) < 0 ||
            hw_tx_discard(&s->tx, h.payload_length - fixed_len) < 0)
            return -1;
        const uint8_t *fixed = buf + HIPR_HEADER_SIZE;
        const char *why;
        switch (h.opcode) {
        case HIPR_OP_AUTH_BEGIN:
            if (auth_begin(s, &a, &h, fixed, peer) < 0)
                return -1;
            continue;
        case HIPR_OP_AUTH_PROOF:
            if (auth_proof(s, &a, &h, fixed, peer) < 0)
                return -1;
            continue;
        case HIPR_OP_WORKER_STATUS:
            if ((why = not_allowed(s, &a)) != NULL)
                return refuse(s, &h, peer, why);
            session_send_worker_status(s, h.request_id);
            return 1;
        default: /* HELLO */
            break;
        }
        hipr_hello_req_decode(fixed, HIPR_hello_req_SIZE, hello);
        if ((why = not_allowed(s, &a)) != NULL)
            return refuse(s, &h, peer, why);
        if (hello->flags & HIPR_HELLO_STATUS_ONLY) {
            session_send_worker_status(s, h.request_id);
            return 1;
        }
        *hello_h = h;
        return 0;
    }
}
