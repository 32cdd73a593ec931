/*
 * test_resume_auth - resuming a session takes what opening one takes and
 * more, spoken frame by frame against a worker with a token:
 * SESSION_ROUTE to a session that does not exist, a wrong token, a wrong
 * resume proof, a recorded proof replayed, the retired clear-text resume, AUTH_BEGIN naming a session on a connection that was not
 * routed: each is refused, and the session goes on undisturbed. Then the
 * right client resumes it: the worker reports the requests it executed,
 * drops the old connection, and the session's memory is still there.
 */
#include <string.h>
#include <unistd.h>

#include "hw_status.h"
#include "hw_transport.h"
#include "trust_client.h"

#define RESUME_TOKEN UINT64_C(0x5eed5eed12345678)

static struct hw_token token, wrong;

/* HELLO with a resume token, then RESUME_ENABLE. */
static void open_resumable(struct raw_conn *c)
{
    struct raw_reply r;
    int st = trust_hello_resumable(c, RESUME_TOKEN, NULL);
    EXPECT(st == 0, "HELLO refused (%d)", st);
    EXPECT(raw_call(c, HIPR_OP_RESUME_ENABLE, NULL, 0, NULL, 0, &r) == 0, "RESUME_ENABLE");
    struct hipr_resume_enable_rep er;
    EXPECT(r.rh.status == 0 && hipr_resume_enable_rep_decode(r.body, r.body_len, &er) == 0,
           "RESUME_ENABLE refused (%d)", r.rh.status);
    EXPECT(er.grace_ms == 60000, "grace %u ms, expected the default 60000", er.grace_ms);
    raw_reply_free(&r);
}

static int route(struct raw_conn *c, uint64_t session)
{
    struct hipr_session_route m = { .session_id = session };
    uint8_t fixed[HIPR_session_route_SIZE];
    hipr_session_route_encode(fixed, &m);
    EXPECT(raw_connect(c) == 0, "connect");
    return raw_status(c, HIPR_OP_SESSION_ROUTE, fixed, sizeof fixed, NULL, 0);
}

static const uint8_t plain_binding[HW_TLS_CHANNEL_BINDING_LEN];

/* SESSION_RESUME with the proof a client holding resume_token makes on the
 * connection whose AUTH_BEGIN was tb (or `proof` as given when not NULL);
 * a successful reply must carry the worker's proof. */
static int resume_with(struct raw_conn *c, const struct trust_begin *tb, uint64_t session,
                       uint64_t resume_token, const uint8_t *proof, uint64_t replies,
                       uint64_t requests, struct hipr_session_resume_rep *rep,
                       uint8_t sent_proof[HW_AUTH_PROOF_LEN])
{
    struct hipr_session_resume_req m = { .session_id = session,
                                         .replies_received = replies,
                                         .requests_sent = requests };
    uint8_t fixed[HIPR_session_resume_req_SIZE], want[HW_AUTH_PROOF_LEN];
    struct raw_reply r;
    if (proof)
        memcpy(m.proof, proof, sizeof m.proof);
    else
        hw_resume_proof(resume_token, HW_PROOF_RESUME_CLIENT, tb->cnonce, tb->wnonce, session,
                        plain_binding, m.proof);
    if (sent_proof)
        memcpy(sent_proof, m.proof, HW_AUTH_PROOF_LEN);
    hipr_session_resume_req_encode(fixed, &m);
    int rc = raw_call(c, HIPR_OP_SESSION_RESUME, fixed, sizeof fixed, NULL, 0, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0) {
        EXPECT(hipr_session_resume_rep_decode(r.body, r.body_len, rep) == 0, "short reply");
        hw_resume_proof(resume_token, HW_PROOF_RESUME_WORKER, tb->cnonce, tb->wnonce, session,
                        plain_binding, want);
        EXPECT(memcmp(want, rep->proof, sizeof want) == 0,
               "the worker's resume proof is wrong: a client could not tell it from an impostor");
    }
    raw_reply_free(&r);
    return rc;
}

static int resume(struct raw_conn *c, const struct trust_begin *tb, uint64_t session,
                  uint64_t resume_token, uint64_t replies, uint64_t requests,
                  struct hipr_session_resume_rep *rep)
{
    return resume_with(c, tb, session, resume_token, NULL, replies, requests, rep, NULL);
}

static void ping(struct raw_conn *c)
{
    uint8_t fixed[HIPR_ping_SIZE] = { 0 };
    EXPECT(raw_status(c, HIPR_OP_PING, fixed, sizeof fixed, NULL, 0) == 0,
           "the session does not answer PING");
}

int main(int argc, char **argv)
{
    struct raw_conn a, b;
    struct trust_begin tb;
    struct hipr_session_resume_rep rep;
    uint64_t ptr;
    EXPECT(argc == 3, "usage: test_resume_auth TOKEN_FILE WRONG_TOKEN_FILE");
    trust_load_token(argv[1], &token);
    trust_load_token(argv[2], &wrong);

    raw_begin("a resumable session");
    EXPECT(trust_connect(&a, &token) == 0, "authenticate");
    open_resumable(&a);
    EXPECT(raw_malloc(&a, 4096, &ptr) == 0, "MALLOC");
    ping(&a);
    raw_pass();

    raw_begin("SESSION_ROUTE to a session that does not exist");
    EXPECT(route(&b, a.session_id ^ 0xffff) == HW_ENOTFOUND, "not refused with hipErrorNotFound");
    EXPECT(raw_wait_closed(&b, 5000), "connection left open");
    raw_close(&b);
    raw_pass();

    raw_begin("routed, wrong token");
    EXPECT(route(&b, a.session_id) == 0, "SESSION_ROUTE refused");
    trust_begin(&b, a.session_id, 0, &tb, NULL);
    EXPECT(tb.status == 0 && (tb.requires & HIPR_AUTH_REQUIRES_TOKEN), "AUTH_BEGIN");
    EXPECT(trust_proof(&b, &wrong, &tb, a.session_id, NULL) == HW_ENOTINIT, "wrong token taken");
    EXPECT(raw_wait_closed(&b, 5000), "connection left open");
    raw_close(&b);
    ping(&a);
    raw_pass();

    raw_begin("routed, the right token, a wrong resume token");
    EXPECT(route(&b, a.session_id) == 0, "SESSION_ROUTE refused");
    trust_begin(&b, a.session_id, 0, &tb, NULL);
    EXPECT(trust_proof(&b, &token, &tb, a.session_id, NULL) == 0, "token refused");
    uint8_t seen[HW_AUTH_PROOF_LEN];
    EXPECT(resume_with(&b, &tb, a.session_id, RESUME_TOKEN + 1, NULL, 3, 3, &rep, seen) ==
               HW_ENOTINIT,
           "a wrong resume token was taken");
    EXPECT(raw_wait_closed(&b, 5000), "connection left open");
    raw_close(&b);
    EXPECT(raw_log_has("refusing a resume", "wrong resume proof"), "no log line");
    ping(&a);
    raw_pass();

    /* What crosses the wire is a proof bound to one connection's nonces: a
     * right one, recorded, is useless on the next connection. */
    raw_begin("a recorded resume proof replayed on a new connection");
    EXPECT(route(&b, a.session_id) == 0, "SESSION_ROUTE refused");
    trust_begin(&b, a.session_id, 0, &tb, NULL);
    EXPECT(trust_proof(&b, &token, &tb, a.session_id, NULL) == 0, "token refused");
    hw_resume_proof(RESUME_TOKEN, HW_PROOF_RESUME_CLIENT, tb.cnonce, tb.wnonce, a.session_id,
                    plain_binding, seen);
    raw_close(&b); /* recorded, never used: the session stays put */
    EXPECT(route(&b, a.session_id) == 0, "SESSION_ROUTE refused");
    trust_begin(&b, a.session_id, 0, &tb, NULL);
    EXPECT(trust_proof(&b, &token, &tb, a.session_id, NULL) == 0, "token refused");
    EXPECT(resume_with(&b, &tb, a.session_id, RESUME_TOKEN, seen, 3, 3, &rep, NULL) == HW_ENOTINIT,
           "a replayed resume proof was taken");
    EXPECT(raw_wait_closed(&b, 5000), "connection left open");
    raw_close(&b);
    ping(&a);
    raw_pass();

    raw_begin("the retired SESSION_RESUME 0x000D (token in clear) is refused");
    EXPECT(route(&b, a.session_id) == 0, "SESSION_ROUTE refused");
    trust_begin(&b, a.session_id, 0, &tb, NULL);
    EXPECT(trust_proof(&b, &token, &tb, a.session_id, NULL) == 0, "token refused");
    {
        uint8_t old[32] = { 0 };
        struct raw_reply r0;
        int rc0 = raw_call(&b, 0x000D, old, sizeof old, NULL, 0, &r0);
        EXPECT(rc0 < 0 || r0.rh.status != 0, "0x000D was answered with success");
        if (rc0 == 0)
            raw_reply_free(&r0);
    }
    EXPECT(raw_wait_closed(&b, 5000), "connection left open");
    raw_close(&b);
    ping(&a);
    raw_pass();

    raw_begin("AUTH_BEGIN naming the session, not routed");
    EXPECT(raw_connect(&b) == 0, "connect");
    trust_begin(&b, a.session_id, 0, &tb, NULL);
    EXPECT(tb.status == HW_ENOTINIT, "AUTH_BEGIN for a session on a fresh connection: %d",
           tb.status);
    raw_close(&b);
    ping(&a);
    raw_pass();

    /* MALLOC, 6 PINGs: 7 requests executed, 7 replies read. */
    raw_begin("the right client resumes");
    EXPECT(route(&b, a.session_id) == 0, "SESSION_ROUTE refused");
    trust_begin(&b, a.session_id, 0, &tb, NULL);
    EXPECT(trust_proof(&b, &token, &tb, a.session_id, NULL) == 0, "token refused");
    EXPECT(resume(&b, &tb, a.session_id, RESUME_TOKEN, 7, 7, &rep) == 0, "resume refused");
    EXPECT(rep.requests_done == 7 && rep.replies_sent == 7,
           "worker executed %llu, sent %llu; expected 7 and 7",
           (unsigned long long)rep.requests_done, (unsigned long long)rep.replies_sent);
    EXPECT(raw_wait_closed(&a, 5000), "the old connection was not dropped");
    struct raw_reply r;
    struct hipr_session_stats_rep st;
    EXPECT(raw_call(&b, HIPR_OP_SESSION_STATS, NULL, 0, NULL, 0, &r) == 0, "SESSION_STATS");
    EXPECT(r.rh.status == 0 && hipr_session_stats_rep_decode(r.body, r.body_len, &st) == 0,
           "SESSION_STATS refused");
    EXPECT(st.allocations == 1 && st.bytes_in_use == 4096,
           "%u allocations, %llu bytes after the resume", st.allocations,
           (unsigned long long)st.bytes_in_use);
    raw_reply_free(&r);
    EXPECT(raw_status(&b, HIPR_OP_GOODBYE, NULL, 0, NULL, 0) == 0, "GOODBYE");
    raw_close(&b);
    raw_close(&a);
    raw_pass();
    return 0;
}
