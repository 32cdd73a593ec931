/*
 * test_auth - the token handshake against a real hip-worker started with
 * --token-file: no token, a wrong token, a replayed handshake, a proof
 * without a challenge, an unauthenticated status query. Each is refused
 * with an error reply and a log line, and none opens a session (the
 * worker's sessions_served counter, counted at HELLO, does not move).
 *
 *   test_auth TOKEN_FILE WRONG_TOKEN_FILE
 */
#include <stdio.h>
#include <string.h>

#include "hw_status.h"
#include "trust_client.h"

#define CLOSE_WITHIN_MS 3000

static struct hw_token good, bad;

static uint64_t served(void)
{
    struct raw_worker_status st;
    EXPECT(trust_worker_status(&good, &st) == 0, "authenticated WORKER_STATUS failed");
    return st.sessions_served;
}

/* No session was opened by what the current check did, and none is left. */
static void expect_no_session(uint64_t served_before)
{
    struct raw_worker_status st;
    for (int i = 0; i < 100; i++) {
        EXPECT(trust_worker_status(&good, &st) == 0, "authenticated WORKER_STATUS failed");
        if (st.sessions == 0)
            break;
        raw_sleep_ms(20);
    }
    EXPECT(st.sessions == 0, "%u session(s) still open", st.sessions);
    EXPECT(st.sessions_served == served_before,
           "a refused client got a session (sessions_served %llu -> %llu)",
           (unsigned long long)served_before, (unsigned long long)st.sessions_served);
}

static void check_no_token(void)
{
    struct raw_conn c;
    raw_begin("no token: HELLO refused with hipErrorNotInitialized, no session");
    uint64_t before = served();
    EXPECT(raw_connect(&c) == 0, "connect");
    EXPECT(trust_hello(&c, NULL) == HW_ENOTINIT, "HELLO without authentication accepted");
    EXPECT(raw_wait_closed(&c, CLOSE_WITHIN_MS), "connection left open");
    raw_close(&c);

    /* A client that asks first learns what is required, then gives up. */
    struct trust_begin b;
    EXPECT(raw_connect(&c) == 0, "connect");
    trust_begin(&c, 0, 0, &b, NULL);
    EXPECT(b.status == 0 && (b.requires & HIPR_AUTH_REQUIRES_TOKEN),
           "AUTH_BEGIN status %d requires 0x%x", b.status, b.requires);
    EXPECT(trust_hello(&c, NULL) == HW_ENOTINIT, "HELLO after AUTH_BEGIN without a proof");
    raw_close(&c);
    expect_no_session(before);
    EXPECT(raw_log_has("refusing connection", "not authenticated"), "no log line");
    raw_pass();
}

static void check_wrong_token(void)
{
    struct raw_conn c;
    struct trust_begin b;
    raw_begin("wrong token: AUTH_PROOF refused, connection closed, no session");
    uint64_t before = served();
    EXPECT(raw_connect(&c) == 0, "connect");
    trust_begin(&c, 0, 0, &b, NULL);
    EXPECT(b.status == 0, "AUTH_BEGIN status %d", b.status);
    EXPECT(trust_proof(&c, &bad, &b, 0, NULL) == HW_ENOTINIT, "wrong token accepted");
    EXPECT(raw_wait_closed(&c, CLOSE_WITHIN_MS), "connection left open");
    raw_close(&c);
    expect_no_session(before);
    EXPECT(raw_log_has("refusing connection", "authentication failed (wrong token)"),
           "no log line");
    raw_pass();
}

static void check_replay(void)
{
    struct raw_conn c;
    struct trust_begin b;
    struct trust_record rec;
    memset(&rec, 0, sizeof rec);

    raw_begin("replayed handshake: a recorded, successful handshake fails on a new connection");
    uint64_t before = served();
    EXPECT(raw_connect(&c) == 0, "connect");
    trust_begin(&c, 0, 0, &b, &rec);
    EXPECT(b.status == 0, "AUTH_BEGIN");
    EXPECT(trust_proof(&c, &good, &b, 0, &rec) == 0, "the right token was refused");
    EXPECT(trust_hello(&c, &rec) == 0, "HELLO after authentication");
    uint64_t p;
    EXPECT(raw_malloc(&c, 4096, &p) == 0, "MALLOC in the authenticated session");
    raw_close(&c);
    expect_no_session(before + 1);

    /* The same bytes again, all at once, as an eavesdropper would send them. */
    EXPECT(raw_connect(&c) == 0, "connect");
    EXPECT(raw_send_bytes(&c, rec.bytes, rec.len) == 0, "send the recording");
    struct raw_reply r;
    EXPECT(raw_recv(&c, &r, RAW_TIMEOUT_MS) == 0 && r.h.opcode == HIPR_OP_AUTH_BEGIN &&
               r.rh.status == 0,
           "no AUTH_BEGIN reply to the replay");
    struct hipr_auth_begin_rep rep;
    EXPECT(hipr_auth_begin_rep_decode(r.body, r.body_len, &rep) == 0, "AUTH_BEGIN reply");
    EXPECT(memcmp(rep.worker_nonce, b.wnonce, sizeof b.wnonce) != 0, "the worker reused its nonce");
    raw_reply_free(&r);
    EXPECT(raw_recv(&c, &r, RAW_TIMEOUT_MS) == 0 && r.h.opcode == HIPR_OP_AUTH_PROOF,
           "no AUTH_PROOF reply to the replay");
    EXPECT(r.rh.status == HW_ENOTINIT, "the replayed proof was accepted (status %d)", r.rh.status);
    raw_reply_free(&r);
    EXPECT(raw_wait_closed(&c, CLOSE_WITHIN_MS), "the replayed HELLO was answered");
    raw_close(&c);
    expect_no_session(before + 1);
    raw_pass();
}

static void check_out_of_order(void)
{
    struct raw_conn c;
    struct trust_begin b;
    raw_begin("AUTH_PROOF without AUTH_BEGIN, AUTH_BEGIN twice, status without a proof");
    uint64_t before = served();
    memset(&b, 0, sizeof b); /* a proof over an all-zero worker nonce */
    EXPECT(raw_connect(&c) == 0, "connect");
    EXPECT(trust_proof(&c, &good, &b, 0, NULL) == HW_ENOTINIT, "proof without a challenge");
    raw_close(&c);

    EXPECT(raw_connect(&c) == 0, "connect");
    trust_begin(&c, 0, 0, &b, NULL);
    EXPECT(b.status == 0, "AUTH_BEGIN");
    trust_begin(&c, 0, 0, &b, NULL);
    EXPECT(b.status == HW_ENOTINIT, "second AUTH_BEGIN status %d", b.status);
    raw_close(&c);

    EXPECT(raw_connect(&c) == 0, "connect");
    EXPECT(raw_status(&c, HIPR_OP_WORKER_STATUS, NULL, 0, NULL, 0) == HW_ENOTINIT,
           "WORKER_STATUS answered without authentication");
    raw_close(&c);
    expect_no_session(before);
    raw_pass();
}

static void check_good_token(void)
{
    struct raw_conn c;
    uint64_t p;
    raw_begin("right token: session opens and works");
    uint64_t before = served();
    EXPECT(trust_connect(&c, &good) == 0, "authentication with the right token");
    EXPECT(trust_hello(&c, NULL) == 0, "HELLO");
    EXPECT(raw_malloc(&c, 1 << 20, &p) == 0, "MALLOC");
    struct raw_worker_status st;
    EXPECT(trust_worker_status(&good, &st) == 0 && st.sessions == 1 &&
               st.sessions_served == before + 1 && st.bytes_in_use == 1 << 20,
           "status: %u sessions, %llu served, %llu bytes", st.sessions,
           (unsigned long long)st.sessions_served, (unsigned long long)st.bytes_in_use);
    raw_close(&c);
    expect_no_session(before + 1);
    raw_pass();
}

int main(int argc, char **argv)
{
    EXPECT(argc == 3, "usage: test_auth TOKEN_FILE WRONG_TOKEN_FILE");
    trust_load_token(argv[1], &good);
    trust_load_token(argv[2], &bad);
    check_good_token();
    check_no_token();
    check_wrong_token();
    check_replay();
    check_out_of_order();
    printf("test_auth: all checks passed\n");
    return 0;
}
