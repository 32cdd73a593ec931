/* hw_link.c - see hw_link.h. */
#include "hw_link.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "hipr.h"
#include "hw_sha256.h"

int hw_link_call(struct hw_transport *t, uint16_t opcode, uint32_t request_id, const void *fixed,
                 size_t fixed_len, const void *req_tail, size_t req_tail_len, void *body,
                 size_t body_cap, void *tail, uint64_t tail_cap, uint64_t *tail_len, int *status)
{
    return hw_link_call_watch(t, opcode, request_id, fixed, fixed_len, req_tail, req_tail_len, body,
                              body_cap, tail, tail_cap, tail_len, status, NULL, NULL);
}

int hw_link_call_watch(struct hw_transport *t, uint16_t opcode, uint32_t request_id,
                       const void *fixed, size_t fixed_len, const void *req_tail,
                       size_t req_tail_len, void *body, size_t body_cap, void *tail,
                       uint64_t tail_cap, uint64_t *tail_len, int *status, hw_link_watch_fn watch,
                       void *watch_ctx)
{
    uint8_t hbuf[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION,
                             opcode,     request_id,
                             0,          fixed_len + req_tail_len };
    hipr_header_encode(hbuf, &h);
    struct iovec iov[3] = { { hbuf, HIPR_HEADER_SIZE },
                            { (void *)fixed, fixed_len },
                            { (void *)req_tail, req_tail_len } };
    if (hw_tx_writev_full(t, iov, 3) < 0)
        return -1;
    for (;;) {
        const struct hipr_op_info *info;
        struct hipr_reply_hdr rh;
        if (hw_tx_read_full(t, hbuf, HIPR_HEADER_SIZE) < 0)
            return -1;
        hipr_header_decode(hbuf, &h);
        if (hipr_check_reply(&h, &info) != HIPR_OK || !(h.flags & HIPR_FLAG_RESPONSE)) {
            errno = EPROTO;
            return -1;
        }
        if (hw_tx_read_full(t, hbuf + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE) < 0)
            return -1;
        hipr_reply_hdr_decode(hbuf + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE, &rh);
        uint64_t rest = h.payload_length - HIPR_reply_hdr_SIZE;
        if (h.request_id != request_id) {
            if (h.request_id != 0) {
                errno = EPROTO; /* nothing else is outstanding on this link */
                return -1;
            }
            if (watch && rest <= 64) {
                uint8_t notice[64];
                if (rest && hw_tx_read_full(t, notice, (size_t)rest) < 0)
                    return -1;
                if (watch(watch_ctx, h.opcode, notice, (size_t)rest) < 0)
                    return -1;
                continue;
            }
            if (hw_tx_discard(t, rest) < 0)
                return -1;
            continue;
        }
        if (h.opcode != opcode) {
            errno = EPROTO;
            return -1;
        }
        uint64_t b = rest < body_cap ? rest : body_cap;
        if (b && hw_tx_read_full(t, body, (size_t)b) < 0)
            return -1;
        rest -= b;
        if (rh.status == 0 && b < body_cap) {
            errno = EPROTO; /* a success reply carries its whole body */
            return -1;
        }
        uint64_t tl = rest < tail_cap ? rest : tail_cap;
        if (tl && hw_tx_read_full(t, tail, (size_t)tl) < 0)
            return -1;
        rest -= tl;
        if (rest && hw_tx_discard(t, rest) < 0)
            return -1;
        if (tail_len)
            *tail_len = tl;
        *status = rh.status;
        return 0;
    }
}

int hw_link_authenticate(struct hw_transport *t, const struct hw_token *token, uint64_t session,
                         uint32_t *heartbeat_ms, struct hw_auth_transcript *tr, char *why,
                         size_t why_len)
{
    struct hipr_auth_begin_req req;
    struct hipr_auth_begin_rep rep;
    struct hipr_auth_proof proof, wproof;
    uint8_t fixed[HIPR_auth_begin_req_SIZE], body[HIPR_auth_begin_rep_SIZE];
    uint8_t pbuf[HIPR_auth_proof_SIZE], pbody[HIPR_auth_proof_SIZE];
    uint8_t binding[HW_TLS_CHANNEL_BINDING_LEN], want[HW_AUTH_PROOF_LEN];
    int status = 0;

    memset(&req, 0, sizeof req);
    if (hw_random_bytes(req.client_nonce, sizeof req.client_nonce) < 0) {
        snprintf(why, why_len, "cannot read random bytes: %s", strerror(errno));
        return -1;
    }
    req.session = session;
    req.heartbeat_ms = *heartbeat_ms;
    /* A TLS without RFC 5705's exporter (Windows' Schannel) binds the
     * proofs to the worker's certificate instead; HIPWIRE_TLS_BIND_CERT=1
     * makes a Linux client do the same (the tests check the worker's side). */
    const char *force_cert = getenv("HIPWIRE_TLS_BIND_CERT");
    int bind_cert =
        hw_tx_is_tls(t) && (!hw_tls_has_exporter() || (force_cert && strcmp(force_cert, "1") == 0));
    if (bind_cert)
        req.flags |= HIPR_AUTH_BIND_CERT;
    hipr_auth_begin_req_encode(fixed, &req);
    int rc = hw_link_call(t, HIPR_OP_AUTH_BEGIN, 1, fixed, sizeof fixed, NULL, 0, body, sizeof body,
                          NULL, 0, NULL, &status);
    if (rc < 0 || status != 0) {
        snprintf(why, why_len, "the worker refused the handshake (%s)",
                 rc == 0              ? "error reply"
                 : errno == ETIMEDOUT ? "no answer in time"
                                      : "it closed the connection; an older worker?");
        return -1;
    }
    hipr_auth_begin_rep_decode(body, sizeof body, &rep);
    if (bind_cert) {
        memset(binding, 0, sizeof binding);
        if (hw_tls_cert_binding(t, binding) < 0) {
            snprintf(why, why_len, "cannot read the worker's TLS certificate");
            return -1;
        }
    } else {
        hw_tx_channel_binding(t, binding);
    }
    *heartbeat_ms = req.heartbeat_ms ? rep.heartbeat_ms : 0;
    if ((rep.requires & HIPR_AUTH_REQUIRES_TLS) && !(rep.link & HIPR_AUTH_LINK_TLS)) {
        snprintf(why, why_len, "the worker requires TLS (set TF_WORKER_TLS=1 and TF_WORKER_CA)");
        return -1;
    }
    if (!(rep.requires & HIPR_AUTH_REQUIRES_TOKEN)) {
        if (token->len) {
            snprintf(why, why_len,
                     "a token is set, but the worker has none, so it cannot prove "
                     "it is the worker you meant; refusing it");
            return -1;
        }
        goto done;
    }
    if (bind_cert && !(rep.link & HIPR_AUTH_LINK_BIND_CERT)) {
        snprintf(why, why_len,
                 "the worker requires a token but cannot bind it to this client's TLS "
                 "(it predates the certificate binding that Windows clients use; "
                 "update hip-worker)");
        return -1;
    }
    if (!token->len) {
        snprintf(why, why_len,
                 "the worker requires authentication (set TF_WORKER_TOKEN or "
                 "TF_WORKER_TOKEN_FILE)");
        return -1;
    }
    hw_auth_proof(token, HW_PROOF_CLIENT, req.client_nonce, rep.worker_nonce, session, binding,
                  proof.proof);
    hipr_auth_proof_encode(pbuf, &proof);
    if (hw_link_call(t, HIPR_OP_AUTH_PROOF, 2, pbuf, sizeof pbuf, NULL, 0, pbody, sizeof pbody,
                     NULL, 0, NULL, &status) < 0 ||
        status != 0) {
        snprintf(why, why_len, "authentication failed (the worker rejected the token)");
        return -1;
    }
    hipr_auth_proof_decode(pbody, sizeof pbody, &wproof);
    hw_auth_proof(token, HW_PROOF_WORKER, req.client_nonce, rep.worker_nonce, session, binding,
                  want);
    if (!hw_ct_equal(want, wproof.proof, sizeof want)) {
        snprintf(why, why_len,
                 "authentication failed (the worker could not prove it holds "
                 "the token)");
        return -1;
    }
done:
    if (tr) {
        memcpy(tr->cnonce, req.client_nonce, sizeof tr->cnonce);
        memcpy(tr->wnonce, rep.worker_nonce, sizeof tr->wnonce);
        memcpy(tr->binding, binding, sizeof tr->binding);
    }
    return 0;
}
