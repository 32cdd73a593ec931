/* trust_client.c - see trust_client.h. */
#include "trust_client.h"

#include <string.h>
#include <unistd.h>

#include "hw_status.h"
#include "hw_transport.h"

uint32_t trust_send(struct raw_conn *c, uint16_t opcode, const void *fixed, size_t n,
                    struct trust_record *rec)
{
    uint8_t frame[HIPR_HEADER_SIZE + 256];
    struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION, opcode, c->next_id++, 0, n };
    EXPECT(n <= 256, "frame too big for trust_send");
    hipr_header_encode(frame, &h);
    memcpy(frame + HIPR_HEADER_SIZE, fixed, n);
    size_t len = HIPR_HEADER_SIZE + n;
    if (rec) {
        EXPECT(rec->len + len <= sizeof rec->bytes, "record full");
        memcpy(rec->bytes + rec->len, frame, len);
        rec->len += len;
    }
    raw_send_bytes(c, frame, len);
    return h.request_id;
}

static int reply_for(struct raw_conn *c, uint32_t id, struct raw_reply *r)
{
    int rc = raw_recv(c, r, RAW_TIMEOUT_MS);
    if (rc < 0)
        return rc;
    EXPECT(r->h.request_id == id, "reply for request %u, expected %u", r->h.request_id, id);
    return 0;
}

void trust_begin(struct raw_conn *c, uint64_t session, uint32_t heartbeat_ms, struct trust_begin *b,
                 struct trust_record *rec)
{
    struct hipr_auth_begin_req req;
    struct hipr_auth_begin_rep rep;
    struct raw_reply r;
    uint8_t fixed[HIPR_auth_begin_req_SIZE];
    memset(&req, 0, sizeof req);
    memset(b, 0, sizeof *b);
    EXPECT(hw_random_bytes(req.client_nonce, sizeof req.client_nonce) == 0, "random");
    memcpy(b->cnonce, req.client_nonce, sizeof b->cnonce);
    req.session = session;
    req.heartbeat_ms = heartbeat_ms;
    hipr_auth_begin_req_encode(fixed, &req);
    uint32_t id = trust_send(c, HIPR_OP_AUTH_BEGIN, fixed, sizeof fixed, rec);
    b->status = reply_for(c, id, &r);
    if (b->status < 0)
        return;
    b->status = r.rh.status;
    if (b->status == 0) {
        EXPECT(hipr_auth_begin_rep_decode(r.body, r.body_len, &rep) == 0,
               "short AUTH_BEGIN reply (%zu bytes)", r.body_len);
        memcpy(b->wnonce, rep.worker_nonce, sizeof b->wnonce);
        b->requires = rep.requires;
        b->link = rep.link;
        b->heartbeat_ms = rep.heartbeat_ms;
    }
    raw_reply_free(&r);
}

int trust_proof(struct raw_conn *c, const struct hw_token *tok, const struct trust_begin *b,
                uint64_t session, struct trust_record *rec)
{
    static const uint8_t plain_binding[HW_TLS_CHANNEL_BINDING_LEN];
    struct hipr_auth_proof p, wp;
    struct raw_reply r;
    uint8_t fixed[HIPR_auth_proof_SIZE], want[HW_AUTH_PROOF_LEN];
    hw_auth_proof(tok, HW_PROOF_CLIENT, b->cnonce, b->wnonce, session, plain_binding, p.proof);
    hipr_auth_proof_encode(fixed, &p);
    uint32_t id = trust_send(c, HIPR_OP_AUTH_PROOF, fixed, sizeof fixed, rec);
    int rc = reply_for(c, id, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0) {
        EXPECT(hipr_auth_proof_decode(r.body, r.body_len, &wp) == 0, "short AUTH_PROOF reply");
        hw_auth_proof(tok, HW_PROOF_WORKER, b->cnonce, b->wnonce, session, plain_binding, want);
        EXPECT(memcmp(want, wp.proof, sizeof want) == 0, "the worker's proof is wrong");
    } else {
        EXPECT(r.body_len == 0, "a refused AUTH_PROOF carries a proof (%zu bytes)", r.body_len);
    }
    raw_reply_free(&r);
    return rc;
}

int trust_hello(struct raw_conn *c, struct trust_record *rec)
{
    return trust_hello_resumable(c, 0, rec);
}

int trust_hello_resumable(struct raw_conn *c, uint64_t resume_token, struct trust_record *rec)
{
    struct hipr_hello_req req = { .proto_min = HIPR_VERSION,
                                  .proto_max = HIPR_VERSION,
                                  .client_pid = (uint32_t)getpid(),
                                  .resume_token = resume_token };
    struct hipr_hello_rep rep;
    struct raw_reply r;
    uint8_t fixed[HIPR_hello_req_SIZE];
    hipr_hello_req_encode(fixed, &req);
    uint32_t id = trust_send(c, HIPR_OP_HELLO, fixed, sizeof fixed, rec);
    int rc = reply_for(c, id, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0 && hipr_hello_rep_decode(r.body, r.body_len, &rep) == 0) {
        c->session_id = rep.session_id;
        c->session_pid = rep.worker_pid;
    }
    raw_reply_free(&r);
    return rc;
}

int trust_connect(struct raw_conn *c, const struct hw_token *tok)
{
    return trust_connect_hb(c, tok, 0);
}

int trust_connect_hb(struct raw_conn *c, const struct hw_token *tok, uint32_t heartbeat_ms)
{
    struct trust_begin b;
    if (raw_connect(c) < 0)
        return -1;
    trust_begin(c, 0, heartbeat_ms, &b, NULL);
    if (b.status != 0)
        return -1;
    if (tok && trust_proof(c, tok, &b, 0, NULL) != 0)
        return -1;
    return 0;
}

int trust_worker_status(const struct hw_token *tok, struct raw_worker_status *st)
{
    struct raw_conn c;
    struct raw_reply r;
    struct hipr_worker_status_rep rep;
    memset(st, 0, sizeof *st);
    if (trust_connect(&c, tok) < 0) {
        raw_close(&c);
        return -1;
    }
    int rc = raw_call(&c, HIPR_OP_WORKER_STATUS, NULL, 0, NULL, 0, &r);
    raw_close(&c);
    if (rc < 0 || r.rh.status != 0 || hipr_worker_status_rep_decode(r.body, r.body_len, &rep)) {
        if (rc == 0)
            raw_reply_free(&r);
        return -1;
    }
    st->sessions = rep.sessions;
    st->bytes_in_use = rep.bytes_in_use;
    st->sessions_served = rep.sessions_served;
    raw_reply_free(&r);
    return 0;
}

void trust_load_token(const char *path, struct hw_token *tok)
{
    char why[256];
    EXPECT(hw_token_from_file(path, tok, why, sizeof why) == 0, "token %s: %s", path, why);
}
