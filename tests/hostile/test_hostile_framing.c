/*
 * test_hostile_framing - malformed frames against a real worker: unknown
 * opcodes, over-cap and short payloads, truncated frames, garbage before
 * and after the handshake, a second HELLO, random byte floods.
 *
 * Rule checked throughout: a frame the worker cannot trust ends that one
 * session (and frees what it held) without reading or allocating the
 * announced payload; everything else keeps working.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_ops.h"
#include "hw_status.h"

#define UNKNOWN_OPCODE  0x7777
#define CLOSE_WITHIN_MS 3000

static void expect_idle(const char *after)
{
    struct raw_worker_status st;
    EXPECT(raw_wait_worker_idle(0, 0, 5000, &st) == 0,
           "after %s the worker still reports %u sessions, %llu bytes in use", after, st.sessions,
           (unsigned long long)st.bytes_in_use);
}

/* A fresh session holding `bytes` of device memory. */
static void open_session(struct raw_conn *c, uint64_t bytes)
{
    uint64_t p;
    EXPECT(raw_connect(c) == 0, "connect");
    EXPECT(raw_hello(c) == 0, "HELLO");
    if (bytes)
        EXPECT(raw_malloc(c, bytes, &p) == 0, "MALLOC %llu", (unsigned long long)bytes);
}

static void expect_closed(struct raw_conn *c, const char *why)
{
    EXPECT(raw_wait_closed(c, CLOSE_WITHIN_MS), "the worker kept the connection open after %s",
           why);
    raw_close(c);
}

static void check_unknown_opcodes(void)
{
    struct raw_conn c;
    uint8_t payload[100];
    struct raw_reply r;
    int32_t async = 0;
    int err;
    memset(payload, 0xA5, sizeof payload);

    raw_begin("unknown opcode, small payload: ENOTSUP error reply, session continues");
    open_session(&c, 4096);
    EXPECT(raw_call(&c, UNKNOWN_OPCODE, payload, sizeof payload, NULL, 0, &r) == 0,
           "no reply to an unknown opcode");
    EXPECT(r.rh.status == HW_ENOTSUP && (r.h.flags & HIPR_FLAG_ERROR),
           "status %d flags 0x%x, expected ENOTSUP with the ERROR flag", r.rh.status, r.h.flags);
    raw_reply_free(&r);
    EXPECT(op_ping(&c, &async) == HW_OK, "PING after an unknown opcode");
    raw_pass();

    raw_begin("unknown opcode with NO_REPLY: no reply, reported as the next async_status");
    raw_send(&c, UNKNOWN_OPCODE, HIPR_FLAG_NO_REPLY, payload, sizeof payload, NULL, 0, &err);
    EXPECT(err == 0, "send");
    EXPECT(op_ping(&c, &async) == HW_OK, "PING after a NO_REPLY unknown opcode");
    EXPECT(async == HW_ENOTSUP, "async_status %d, expected ENOTSUP", async);
    EXPECT(op_ping(&c, &async) == HW_OK && async == 0, "async_status not cleared once reported");
    raw_pass();

    raw_begin("unknown opcode, huge payload: session closed without reading it");
    raw_send_header(&c, UNKNOWN_OPCODE, 0, UINT64_C(1) << 30, &err);
    expect_closed(&c, "an unknown opcode announcing 1 GiB");
    expect_idle("an unknown opcode with a huge payload");
    raw_pass();
}

/* Announces payload_length for opcode and sends nothing more: the worker must
 * end the session from the header alone. */
static void expect_header_closes(uint16_t opcode, uint32_t flags, uint64_t payload_length,
                                 const char *what)
{
    struct raw_conn c;
    int err;
    open_session(&c, 1 << 20);
    raw_send_header(&c, opcode, flags, payload_length, &err);
    EXPECT(err == 0, "send");
    expect_closed(&c, what);
}

static long session_vm_hwm_kib(uint32_t pid)
{
    char path[64], line[256];
    long kib = -1;
    snprintf(path, sizeof path, "/proc/%u/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

static void check_bad_headers(void)
{
    raw_begin("payload_length over an opcode's cap: session closed from the header alone");
    expect_header_closes(HIPR_OP_MEMCPY_H2D, 0, HIPR_memcpy_h2d_SIZE + HIPR_CAP_COPY_CHUNK + 1,
                         "an H2D of cap + 1 bytes");
    expect_header_closes(HIPR_OP_MODULE_LOAD, 0, HIPR_module_load_req_SIZE + HIPR_CAP_MODULE + 1,
                         "a MODULE_LOAD of cap + 1 bytes");
    expect_header_closes(HIPR_OP_LAUNCH, 0, HIPR_launch_SIZE + HIPR_CAP_KERNEL_ARGS + 1,
                         "a LAUNCH with cap + 1 argument bytes");
    expect_header_closes(HIPR_OP_MODULE_GET_FUNCTION, 0, HIPR_module_SIZE + HIPR_CAP_NAME + 1,
                         "a function name of cap + 1 bytes");
    expect_header_closes(HIPR_OP_PING, 0, HIPR_ping_SIZE + 1, "a PING with a tail");
    expect_header_closes(HIPR_OP_MEMCPY_H2D, 0, UINT64_MAX, "an H2D of 2^64-1 bytes");
    raw_pass();

    raw_begin("an over-cap announcement does not grow the session process");
    {
        struct raw_conn c;
        int err;
        open_session(&c, 0);
        long before = session_vm_hwm_kib(c.session_pid);
        EXPECT(before > 0, "cannot read /proc/%u/status (same host?)", c.session_pid);
        raw_send_header(&c, HIPR_OP_MODULE_LOAD, 0, UINT64_C(1) << 40, &err);
        /* Sample while the worker handles the header, then it must close. */
        long peak = before;
        for (int i = 0; i < 20; i++) {
            long now = session_vm_hwm_kib(c.session_pid);
            if (now > peak)
                peak = now;
            raw_sleep_ms(1);
        }
        EXPECT(peak - before < 16 * 1024, "session peak RSS grew by %ld KiB", peak - before);
        expect_closed(&c, "a 1 TiB MODULE_LOAD announcement");
    }
    raw_pass();

    raw_begin("payload shorter than the fixed message, bad flags, bad version: session closed");
    expect_header_closes(HIPR_OP_MALLOC, 0, HIPR_malloc_req_SIZE - 1, "a short MALLOC");
    expect_header_closes(HIPR_OP_PING, 0x80, HIPR_ping_SIZE, "unknown header flags");
    {
        struct raw_conn c;
        uint8_t hdr[HIPR_HEADER_SIZE];
        struct hipr_header h = { .magic = HIPR_MAGIC,
                                 .version = 2,
                                 .opcode = HIPR_OP_PING,
                                 .request_id = 9,
                                 .payload_length = 8 };
        open_session(&c, 1 << 20);
        hipr_header_encode(hdr, &h);
        EXPECT(raw_send_bytes(&c, hdr, sizeof hdr) == 0, "send");
        expect_closed(&c, "a frame of protocol version 2");
    }
    expect_idle("the bad headers");
    raw_pass();
}

static void check_truncated_frame(void)
{
    struct raw_conn c;
    uint64_t p = 0;
    const size_t len = 1 << 20;
    uint8_t *data = calloc(1, len);
    uint8_t fixed[HIPR_memcpy_h2d_SIZE];
    int err;

    raw_begin("connection closed mid-payload: session ends, its memory is freed");
    EXPECT(data != NULL, "malloc");
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0, "HELLO");
    EXPECT(raw_malloc(&c, len, &p) == 0, "MALLOC");
    uint64_t sid = c.session_id;
    struct hipr_memcpy_h2d m = { .dst = p, .stream = DEFAULT_STREAM };
    hipr_memcpy_h2d_encode(fixed, &m);
    raw_send_header(&c, HIPR_OP_MEMCPY_H2D, HIPR_FLAG_NO_REPLY, sizeof fixed + len, &err);
    EXPECT(raw_send_bytes(&c, fixed, sizeof fixed) == 0, "send fixed part");
    EXPECT(raw_send_bytes(&c, data, len / 2) == 0, "send half the data");
    raw_close(&c);
    expect_idle("a client vanished mid-frame");
    char id[32];
    snprintf(id, sizeof id, "session %016llx", (unsigned long long)sid);
    EXPECT(raw_log_has(id, "freed 1048576 bytes"), "worker log has no '%s: freed 1048576 bytes'",
           id);
    free(data);
    raw_pass();
}

static void expect_hello_works(const char *after)
{
    struct raw_conn c;
    EXPECT(raw_connect(&c) == 0, "connect after %s", after);
    EXPECT(raw_hello(&c) == 0, "a proper HELLO failed after %s", after);
    EXPECT(op_ping(&c, NULL) == HW_OK, "PING failed after %s", after);
    raw_close(&c);
}

static void check_before_handshake(void)
{
    struct raw_conn c;
    uint8_t garbage[64];
    uint64_t rng = 0xBADC0FFEE;
    int err;

    raw_begin("garbage before the handshake: connection closed, worker keeps serving");
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (uint8_t)raw_rand(&rng);
    garbage[0] = 'X'; /* never the first byte of the magic */
    EXPECT(raw_connect(&c) == 0, "connect");
    EXPECT(raw_send_bytes(&c, garbage, sizeof garbage) == 0, "send");
    expect_closed(&c, "64 bytes of garbage instead of HELLO");
    expect_hello_works("garbage before a handshake");
    raw_pass();

    raw_begin("a valid request other than HELLO first: connection closed");
    EXPECT(raw_connect(&c) == 0, "connect");
    uint8_t fixed[HIPR_malloc_req_SIZE] = { 0 };
    hipr_put_u64(fixed + 8, 4096);
    raw_send(&c, HIPR_OP_MALLOC, 0, fixed, sizeof fixed, NULL, 0, &err);
    expect_closed(&c, "MALLOC before HELLO");
    expect_hello_works("MALLOC before HELLO");
    raw_pass();

    raw_begin("a stalled partial header: closed at the handshake deadline");
    EXPECT(raw_connect(&c) == 0, "connect");
    EXPECT(raw_send_bytes(&c, "HIPR\1\0", 6) == 0, "send");
    /* with_worker passes --handshake-timeout=500 for this test. */
    expect_closed(&c, "a partial header and silence");
    raw_pass();

    raw_begin("HELLO asking for an unsupported protocol version: refused");
    {
        struct hipr_hello_req req = { .proto_min = 2, .proto_max = 5 };
        uint8_t hello[HIPR_hello_req_SIZE];
        struct raw_reply r;
        hipr_hello_req_encode(hello, &req);
        EXPECT(raw_connect(&c) == 0, "connect");
        EXPECT(raw_call(&c, HIPR_OP_HELLO, hello, sizeof hello, NULL, 0, &r) == 0, "no reply");
        EXPECT(r.rh.status == HW_ENOTSUP, "status %d, expected ENOTSUP", r.rh.status);
        raw_reply_free(&r);
        expect_closed(&c, "a refused HELLO");
    }
    expect_idle("the handshake checks");
    raw_pass();
}

static void check_second_hello(void)
{
    struct raw_conn c;
    struct hipr_hello_req req = { .proto_min = 1, .proto_max = 1 };
    uint8_t hello[HIPR_hello_req_SIZE];
    struct raw_reply r;
    int err;

    raw_begin("a second HELLO inside a session ends it without a second session");
    open_session(&c, 1 << 20);
    hipr_hello_req_encode(hello, &req);
    raw_send(&c, HIPR_OP_HELLO, 0, hello, sizeof hello, NULL, 0, &err);
    int rc = raw_recv(&c, &r, 3000);
    if (rc == 0) {
        EXPECT(r.rh.status != 0, "a second HELLO was accepted (status 0)");
        raw_reply_free(&r);
    } else {
        EXPECT(rc == RAW_EOF, "no reply and no close within 3 s (%d)", rc);
    }
    expect_closed(&c, "a second HELLO");
    expect_idle("a second HELLO");
    raw_pass();
}

static void send_random_burst(struct raw_conn *c, uint64_t seed)
{
    const size_t len = 1 << 20;
    uint8_t *buf = malloc(len);
    EXPECT(buf != NULL, "malloc");
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = raw_rand(&seed);
        memcpy(buf + i, &v, 8);
    }
    buf[0] = 'X'; /* a first byte that cannot start the magic */
    /* The worker may close as soon as it sees the first header, so a failed
     * send (EPIPE, ECONNRESET) is the expected outcome, not an error. */
    (void)raw_send_bytes(c, buf, len);
    free(buf);
}

static void check_random_bursts(void)
{
    struct raw_conn c;

    raw_begin("1 MiB of random bytes before the handshake: closed, worker keeps serving");
    EXPECT(raw_connect(&c) == 0, "connect");
    send_random_burst(&c, 0x1234567);
    expect_closed(&c, "1 MiB of random bytes");
    expect_hello_works("a random burst before a handshake");
    raw_pass();

    raw_begin("1 MiB of random bytes inside a session: session closed, memory freed");
    open_session(&c, 1 << 20);
    send_random_burst(&c, 0x89ABCDEF);
    expect_closed(&c, "1 MiB of random bytes in a session");
    expect_idle("a random burst in a session");
    expect_hello_works("a random burst in a session");
    raw_pass();
}

static void check_final_state(void)
{
    struct raw_conn c;
    uint64_t p = 0;
    uint8_t data[4096], got[4096];

    raw_begin("after everything: a new session works and nothing leaked");
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13);
    open_session(&c, 0);
    EXPECT(raw_malloc(&c, sizeof data, &p) == 0, "MALLOC");
    EXPECT(op_h2d(&c, p, DEFAULT_STREAM, data, sizeof data) == HW_OK, "H2D");
    EXPECT(op_d2h(&c, p, sizeof got, DEFAULT_STREAM, got, sizeof got) == HW_OK, "D2H");
    EXPECT(memcmp(data, got, sizeof data) == 0, "round trip corrupted");
    EXPECT(op_free(&c, p) == HW_OK, "FREE");
    EXPECT(raw_status(&c, HIPR_OP_GOODBYE, NULL, 0, NULL, 0) == HW_OK, "GOODBYE");
    expect_closed(&c, "GOODBYE");
    expect_idle("all framing checks");
    raw_pass();
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    check_unknown_opcodes();
    check_bad_headers();
    check_truncated_frame();
    check_before_handshake();
    check_second_hello();
    check_random_bursts();
    check_final_state();
    printf("all hostile framing checks passed\n");
    return 0;
}
