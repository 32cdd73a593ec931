/*
 * test_op_states.c - the spec's opcode states (HIPR_OP_STATES in
 * hipr_spec.h, shown in docs/protocol.md "Opcode states") are what the
 * worker does.
 *
 * Every opcode goes to the worker in a session of its own, without
 * NO_REPLY, followed by a PING, and the answer must be the one its state on
 * this worker's backend (named in the HELLO reply) and its place say:
 *   session + implemented: answered, never hipErrorNotSupported;
 *   session + unsupported: hipErrorNotSupported;
 *   handshake, worker:     hipErrorInvalidValue (a session's HELLO also ends it);
 *   link:                  no answer, the PING after it is answered.
 * The fixed parts are zero, so most requests are refused for their
 * arguments; that is an answer too, and what matters is that it is not
 * hipErrorNotSupported unless the spec says so. Stream-value requests get a
 * real word of device memory, since a backend without them is asked only
 * once the arguments pass. An opcode the worker does not know is answered
 * hipErrorNotSupported and the session goes on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_status.h"
#include "raw_client.h"

#define PING_NONCE 0x5157a7e5ULL

struct outcome {
    int op_answered;
    int op_status;
    int ping_answered;
    int closed;
};

static int backend_id(const char *name)
{
    for (int b = 0; b < HIPR_BACKEND_COUNT; b++)
        if (strcmp(name, hipr_backend_name((enum hipr_backend_id)b)) == 0)
            return b;
    return -1;
}

/* Sends `opcode` with a fixed part of its spec size, then a PING, and reads
 * until the PING and (when wait_op) the request are answered, or the worker
 * closes; a silence of RAW_TIMEOUT_MS fails. A reply may come after the
 * PING's: a synchronize is answered when its stream's work is done. */
static void exchange(struct raw_conn *c, uint16_t opcode, const uint8_t *fixed, size_t fixed_len,
                     int wait_op, struct outcome *o)
{
    int err;
    uint8_t ping[HIPR_ping_SIZE];
    struct hipr_ping p = { .nonce = PING_NONCE };
    memset(o, 0, sizeof *o);
    uint32_t id = raw_send(c, opcode, 0, fixed, fixed_len, NULL, 0, &err);
    EXPECT(err >= 0, "sending opcode 0x%04x", opcode);
    hipr_ping_encode(ping, &p);
    uint32_t ping_id = raw_send(c, HIPR_OP_PING, 0, ping, sizeof ping, NULL, 0, &err);
    if (err < 0) { /* the request ended the session */
        o->closed = 1;
        ping_id = 0;
    }
    while (!o->ping_answered || (wait_op && !o->op_answered)) {
        struct raw_reply r;
        int rc = raw_recv(c, &r, RAW_TIMEOUT_MS);
        if (rc == RAW_EOF) {
            o->closed = 1;
            break;
        }
        EXPECT(rc == 0, "reading the answers to opcode 0x%04x: %d", opcode, rc);
        if (r.h.request_id == id && r.h.opcode == opcode) {
            EXPECT(!o->op_answered, "opcode 0x%04x answered twice", opcode);
            o->op_answered = 1;
            o->op_status = (int)r.rh.status;
        } else if (ping_id && r.h.request_id == ping_id) {
            o->ping_answered = 1;
        } else {
            /* The worker's own ACKs (after RESUME_ENABLE) and heartbeats. */
            EXPECT(r.h.request_id == 0, "a reply to request %u, opcode 0x%04x", r.h.request_id,
                   r.h.opcode);
        }
        raw_reply_free(&r);
    }
}

/* HELLO with a resume token: RESUME_ENABLE is refused (hipErrorNotSupported,
 * as the spec's note says) to a session that has none to resume with. */
static int hello_resumable(struct raw_conn *c)
{
    struct hipr_hello_req req = { .proto_min = HIPR_VERSION,
                                  .proto_max = HIPR_VERSION,
                                  .resume_token = 0x0123456789abcdefULL };
    uint8_t fixed[HIPR_hello_req_SIZE];
    struct raw_reply r;
    struct hipr_hello_rep rep;
    hipr_hello_req_encode(fixed, &req);
    if (raw_call(c, HIPR_OP_HELLO, fixed, sizeof fixed, NULL, 0, &r) < 0)
        return -1;
    int ok = r.rh.status == 0 && hipr_hello_rep_decode(r.body, r.body_len, &rep) == 0;
    if (ok)
        snprintf(c->backend, sizeof c->backend, "%.31s", rep.backend);
    raw_reply_free(&r);
    return ok ? 0 : -1;
}

static void check_op(size_t i)
{
    const struct hipr_op_info *op = hipr_op_at(i);
    const struct hipr_op_state *st = hipr_op_state_at(i);
    struct raw_conn c;
    struct outcome o;
    uint8_t fixed[512]; /* MIGRATE: 272 bytes */

    raw_begin(op->name);
    EXPECT(op->request_size <= sizeof fixed, "%s: fixed part of %u bytes", op->name,
           op->request_size);
    EXPECT(raw_connect(&c) == 0 &&
               (op->opcode == HIPR_OP_RESUME_ENABLE ? hello_resumable(&c) : raw_hello(&c)) == 0,
           "a session for %s", op->name);
    int b = backend_id(c.backend);
    EXPECT(b >= 0, "the worker's backend \"%s\" has no column in HIPR_OP_STATES", c.backend);
    memset(fixed, 0, sizeof fixed);
    if (op->opcode == HIPR_OP_STREAM_WRITE_VALUE || op->opcode == HIPR_OP_STREAM_WAIT_VALUE) {
        uint64_t word;
        EXPECT(raw_malloc(&c, 64, &word) == 0, "a word of device memory");
        /* Write 0; wait until the word (0) >= 0: done at once where it runs. */
        struct hipr_stream_value m = { .stream = 0, .ptr = word, .value = 0, .width = 4 };
        if (op->opcode == HIPR_OP_STREAM_WAIT_VALUE) {
            m.mask = 0xffffffffu;
            m.flags = HIPR_WAIT_VALUE_GTE;
        }
        hipr_stream_value_encode(fixed, &m);
    }
    exchange(&c, op->opcode, fixed, op->request_size, st->where != HIPR_WHERE_LINK, &o);

    enum hipr_state state = st->state[b];
    switch (st->where) {
    case HIPR_WHERE_SESSION:
        EXPECT(o.op_answered, "%s (session, %s on %s): no answer", op->name, hipr_state_name(state),
               c.backend);
        if (state == HIPR_STATE_UNSUPPORTED)
            EXPECT(o.op_status == HW_ENOTSUP,
                   "%s is unsupported on %s in the spec, the worker answered %d", op->name,
                   c.backend, o.op_status);
        else
            EXPECT(o.op_status != HW_ENOTSUP,
                   "%s is %s on %s in the spec, the worker answered hipErrorNotSupported", op->name,
                   hipr_state_name(state), c.backend);
        /* Only GOODBYE ends the session it is a request of. */
        EXPECT(o.ping_answered || op->opcode == HIPR_OP_GOODBYE, "%s ended the session (closed %d)",
               op->name, o.closed);
        break;
    case HIPR_WHERE_HANDSHAKE:
    case HIPR_WHERE_WORKER:
        EXPECT(o.op_answered && o.op_status == HW_EINVAL,
               "%s (%s) inside a session: answered %d, status %d, not hipErrorInvalidValue",
               op->name, hipr_where_name(st->where), o.op_answered, o.op_status);
        EXPECT(o.ping_answered || op->opcode == HIPR_OP_HELLO, "%s ended the session", op->name);
        break;
    case HIPR_WHERE_LINK:
        EXPECT(!o.op_answered, "%s (link) was answered, status %d", op->name, o.op_status);
        EXPECT(o.ping_answered, "%s ended the session", op->name);
        break;
    default: EXPECT(0, "%s: no state in HIPR_OP_STATES", op->name);
    }
    raw_close(&c);
    printf("  %-20s %-9s %-11s on %s: answered %s%d\n", op->name, hipr_where_name(st->where),
           hipr_state_name(state), c.backend, o.op_answered ? "" : "(no) ", o.op_status);
    raw_pass();
}

/* 0x000D is retired: as every number the worker does not know, it is
 * answered hipErrorNotSupported, and the session goes on. */
static void check_unknown(void)
{
    struct raw_conn c;
    struct outcome o;
    raw_begin("unknown opcode");
    EXPECT(hipr_op_lookup(0x000D) == NULL, "0x000D is retired");
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0, "a session");
    exchange(&c, 0x000D, NULL, 0, 1, &o);
    EXPECT(o.op_answered && o.op_status == HW_ENOTSUP, "answered %d, status %d", o.op_answered,
           o.op_status);
    EXPECT(o.ping_answered, "the session went on");
    raw_close(&c);
    raw_pass();
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: %s\n  sends every opcode to the worker at TF_WORKER_HOST:TF_WORKER_PORT "
               "and checks it against HIPR_OP_STATES\n",
               argv[0]);
        return 0;
    }
    for (size_t i = 0; i < hipr_op_count(); i++)
        check_op(i);
    check_unknown();
    printf("all %zu opcodes answer as their states say\n", hipr_op_count());
    return 0;
}
