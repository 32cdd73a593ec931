/*
 * test_resume_auth - resuming a session takes what opening one takes and
 * more, spoken frame by frame against a worker with a token:
 * SESSION_ROUTE to a session that does not exist, a wrong token, a wrong
 * resume token, AUTH_BEGIN naming a session on a connection that was not
 * routed: each is refused, and the session goes on undisturbed. Then the
 * right client resumes it: the worker reports the requests it executed,
 * drops the old connection, and the session's memory is still there.
 */
#include <string.h>
#include <unistd.h>

#include "hw_status.h"
#include "trust_client.h"

#define RESUME_TOKEN UINT64_C(0x5eed5eed12345678)

static struct hw_token token, wrong;

/* HELLO with a resume token, then RESUME_ENABLE. */
static void open_resumable(struct raw_conn *c)
{
    struct hipr_hello_req req = { .proto_min = HIPR_VERSION,
                                  .proto_max = HIPR_VERSION,
                                  .client_pid = (uint32_t)getpid(),
                                  .resume_token = RESUME_TOKEN };
    struct hipr_hello_rep rep;
    struct raw_reply r;
    uint8_t fixed[HIPR_hello_req_SIZE];
    hipr_hello_req_encode(fixed, &req);
    EXPECT(raw_call(c, HIPR_OP_HELLO, fixed, sizeof fixed, NULL, 0, &r) == 0, "HELLO");
    EXPECT(r.rh.status == 0 && hipr_hello_rep_decode(r.body, r.body_len, &rep) == 0,
           "HELLO refused (%d)", r.rh.status);
    c->session_id = rep.session_id;
    raw_reply_free(&r);
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

static int resume(struct raw_conn *c, uint64_t session, uint64_t resume_token, uint64_t replies,
                  uint64_t requests, struct hipr_session_resume_rep *rep)
{
    struct hipr_session_resume_req m = { .session_id = session,
                                         .resume_token = resume_token,
                                         .replies_received = replies,
                                         .requests_sent = requests };
    uint8_t fixed[HIPR_session_resume_req_SIZE];
    struct raw_reply r;
    hipr_session_resume_req_encode(fixed, &m);
    int rc = raw_call(c, HIPR_OP_SESSION_RESUME, fixed, sizeof fixed, NULL, 0, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0)
        EXPECT(hipr_session_resume_rep_decode(r.body, r.body_len, rep) == 0, "short reply");
    raw_reply_free(&r);
    return rc;
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
    EXPECT(resume(&b, a.session_id, RESUME_TOKEN + 1, 3, 3, &rep) == HW_ENOTINIT,
           "a wrong resume token was taken");
    EXPECT(raw_wait_closed(&b, 5000), "connection left open");
    raw_close(&b);
    EXPECT(raw_log_has("refusing a resume", "wrong resume token"), "no log line");
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

    /* MALLOC, 4 PINGs: 5 requests executed, 5 replies read. */
    raw_begin("the right client resumes");
    EXPECT(route(&b, a.session_id) == 0, "SESSION_ROUTE refused");
    trust_begin(&b, a.session_id, 0, &tb, NULL);
    EXPECT(trust_proof(&b, &token, &tb, a.session_id, NULL) == 0, "token refused");
    EXPECT(resume(&b, a.session_id, RESUME_TOKEN, 5, 5, &rep) == 0, "resume refused");
    EXPECT(rep.requests_done == 5 && rep.replies_sent == 5,
           "worker executed %llu, sent %llu; expected 5 and 5",
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
