/*
 * test_hostile_admission - admission on the wire (docs/protocol.md,
 * "Admission"), against `hip-worker --max-sessions 1 --admission-queue 2`:
 *
 *   - a client that sets HELLO's WAIT_OK and must wait gets SESSION_WAIT
 *     frames (RESPONSE, request_id 0): QUEUED with its position, again
 *     within interval_ms, then its HELLO reply once a session ends;
 *   - a client without WAIT_OK (an older proxy) queues the same way but
 *     hears nothing until its HELLO reply;
 *   - with the queue full, a WAIT_OK client gets BUSY with retry_after_ms,
 *     then a refusal (hipErrorLaunchOutOfResources) and the end of the
 *     connection;
 *   - a SESSION_WAIT sent by a client is refused (hipErrorInvalidValue).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raw_client.h"

static void send_hello(struct raw_conn *c, uint32_t flags)
{
    struct hipr_hello_req req = {
        .proto_min = HIPR_VERSION, .proto_max = HIPR_VERSION, .client_pid = 1, .flags = flags
    };
    uint8_t fixed[HIPR_hello_req_SIZE];
    int err = 0;
    hipr_hello_req_encode(fixed, &req);
    raw_send(c, HIPR_OP_HELLO, 0, fixed, sizeof fixed, NULL, 0, &err);
    EXPECT(err == 0, "HELLO not sent");
}

/* The next frame must be a SESSION_WAIT; returns it decoded. */
static struct hipr_session_wait next_wait(struct raw_conn *c, int timeout_ms)
{
    struct raw_reply r;
    struct hipr_session_wait w;
    int rc = raw_recv(c, &r, timeout_ms);
    EXPECT(rc == 0, "no frame within %d ms (%d)", timeout_ms, rc);
    EXPECT(r.h.opcode == HIPR_OP_SESSION_WAIT && r.h.request_id == 0 &&
               r.h.flags == HIPR_FLAG_RESPONSE && r.rh.status == 0,
           "expected SESSION_WAIT, got opcode 0x%04x id %u flags 0x%x status %d", r.h.opcode,
           r.h.request_id, r.h.flags, r.rh.status);
    EXPECT(hipr_session_wait_decode(r.body, r.body_len, &w) == 0 &&
               r.body_len == HIPR_session_wait_SIZE,
           "SESSION_WAIT of %zu bytes", r.body_len);
    raw_reply_free(&r);
    return w;
}

/* The HELLO reply: its status. */
static int hello_reply(struct raw_conn *c, int timeout_ms)
{
    struct raw_reply r;
    int rc = raw_recv(c, &r, timeout_ms);
    EXPECT(rc == 0, "no HELLO reply within %d ms (%d)", timeout_ms, rc);
    EXPECT(r.h.opcode == HIPR_OP_HELLO && r.h.request_id != 0,
           "expected the HELLO reply, got 0x%04x", r.h.opcode);
    int status = r.rh.status;
    raw_reply_free(&r);
    return status;
}

int main(void)
{
    struct raw_conn a, b, c, d;

    raw_begin("the first client gets the only session at once");
    EXPECT(raw_connect(&a) == 0 && raw_hello(&a) == 0, "first HELLO failed");
    raw_pass();

    raw_begin("a WAIT_OK client is told it is queued, position 1, and again within interval_ms");
    EXPECT(raw_connect(&b) == 0, "connect");
    send_hello(&b, HIPR_HELLO_WAIT_OK);
    struct hipr_session_wait w = next_wait(&b, 2000);
    EXPECT(w.state == HIPR_WAIT_QUEUED && w.position == 1 && w.interval_ms > 0 &&
               w.interval_ms <= 1000,
           "state %u position %u interval %u", w.state, w.position, w.interval_ms);
    w = next_wait(&b, (int)w.interval_ms + 500);
    EXPECT(w.state == HIPR_WAIT_QUEUED && w.position == 1, "keepalive: state %u position %u",
           w.state, w.position);
    raw_pass();

    raw_begin("a client without WAIT_OK queues silently");
    EXPECT(raw_connect(&c) == 0, "connect");
    send_hello(&c, 0);
    struct raw_reply r;
    EXPECT(raw_recv(&c, &r, 1500) == RAW_TIMEOUT, "it heard something while queued");
    raw_pass();

    raw_begin("with the queue full, BUSY with retry_after_ms, a refusal, the end");
    EXPECT(raw_connect(&d) == 0, "connect");
    send_hello(&d, HIPR_HELLO_WAIT_OK);
    w = next_wait(&d, 2000);
    EXPECT(w.state == HIPR_WAIT_BUSY && w.retry_after_ms > 0, "state %u retry_after %u", w.state,
           w.retry_after_ms);
    int st = hello_reply(&d, 2000);
    EXPECT(st == 701, "refusal status %d, expected hipErrorLaunchOutOfResources (701)", st);
    EXPECT(raw_wait_closed(&d, 2000), "the refused connection stayed open");
    raw_close(&d);
    raw_pass();

    raw_begin("when the session ends, the first in line gets its HELLO reply");
    raw_close(&a);
    for (;;) { /* QUEUED keepalives may come first */
        int rc = raw_recv(&b, &r, 3000);
        EXPECT(rc == 0, "no frame after the session ended (%d)", rc);
        if (r.h.opcode == HIPR_OP_SESSION_WAIT) {
            raw_reply_free(&r);
            continue;
        }
        EXPECT(r.h.opcode == HIPR_OP_HELLO && r.rh.status == 0, "opcode 0x%04x status %d",
               r.h.opcode, r.rh.status);
        raw_reply_free(&r);
        break;
    }
    raw_pass();

    raw_begin("a client never sends SESSION_WAIT: refused with hipErrorInvalidValue");
    struct hipr_session_wait fake = { .state = HIPR_WAIT_QUEUED };
    uint8_t fb[HIPR_session_wait_SIZE];
    hipr_session_wait_encode(fb, &fake);
    st = raw_status(&b, HIPR_OP_SESSION_WAIT, fb, sizeof fb, NULL, 0);
    EXPECT(st == 1, "status %d", st);
    raw_pass();

    raw_begin("the silent client is next: its HELLO reply, with nothing before it");
    raw_close(&b);
    st = hello_reply(&c, 3000);
    EXPECT(st == 0, "status %d", st);
    raw_close(&c);
    raw_pass();
    printf("hostile admission: ok\n");
    return 0;
}
