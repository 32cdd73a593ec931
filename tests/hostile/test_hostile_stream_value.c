/*
 * test_hostile_stream_value - forged STREAM_WRITE_VALUE and STREAM_WAIT_VALUE
 * requests against a real worker, in raw HIPR.
 *
 * A write is a store of up to 8 bytes wherever the request says, a wait a
 * load there, so every pointer, width and alignment must be checked against
 * the session's own allocations: on the CPU device an unchecked one would
 * touch the session process's heap for real (a crash is an EOF here, a
 * stray store a changed pattern). A wait nothing will ever satisfy must not
 * keep a session that its client left from ending.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "hostile_ops.h"
#include "hw_status.h"

#define ALLOC_SIZE 4000u /* not a multiple of the CPU backend's rounding */
#define STREAM_ID  0x100u

static uint8_t pattern_a[ALLOC_SIZE], pattern_b[ALLOC_SIZE];

static int op_value(struct raw_conn *c, uint16_t opcode, uint64_t stream, uint64_t ptr,
                    uint64_t value, uint64_t mask, uint32_t width, uint32_t flags)
{
    struct hipr_stream_value m = { stream, ptr, value, mask, width, flags };
    uint8_t buf[HIPR_stream_value_SIZE];
    hipr_stream_value_encode(buf, &m);
    return raw_status(c, opcode, buf, sizeof buf, NULL, 0);
}

static void expect_status(int status, int want, const char *what)
{
    EXPECT(status == want, "%s: got status %d, expected %d%s", what, status, want,
           status == RAW_EOF ? " (session died: memory was touched?)" : "");
}

static void expect_rejected(int status, const char *what, uint64_t ptr, uint32_t width)
{
    EXPECT(status > 0, "%s at 0x%llx width %u: got %d, expected an error status", what,
           (unsigned long long)ptr, width, status);
}

static void fill_pattern(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7);
}

static void expect_patterns(struct raw_conn *c, uint64_t a, uint64_t b, const char *after)
{
    static uint8_t got[ALLOC_SIZE];
    expect_status(op_d2h(c, a, ALLOC_SIZE, DEFAULT_STREAM, got, sizeof got), HW_OK, "D2H a");
    EXPECT(memcmp(got, pattern_a, ALLOC_SIZE) == 0, "allocation a changed after %s", after);
    expect_status(op_d2h(c, b, ALLOC_SIZE, DEFAULT_STREAM, got, sizeof got), HW_OK, "D2H b");
    EXPECT(memcmp(got, pattern_b, ALLOC_SIZE) == 0, "allocation b changed after %s", after);
}

int main(void)
{
    struct raw_conn c;
    struct raw_worker_status st;
    uint64_t a = 0, b = 0, freed = 0;
    signal(SIGPIPE, SIG_IGN);

    raw_begin("setup: two patterned allocations and a freed one");
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0, "HELLO");
    EXPECT(raw_malloc(&c, ALLOC_SIZE, &a) == 0 && raw_malloc(&c, ALLOC_SIZE, &b) == 0 &&
               raw_malloc(&c, ALLOC_SIZE, &freed) == 0,
           "MALLOC");
    expect_status(op_free(&c, freed), HW_OK, "FREE");
    fill_pattern(pattern_a, ALLOC_SIZE, 0x21);
    fill_pattern(pattern_b, ALLOC_SIZE, 0x93);
    expect_status(op_h2d(&c, a, DEFAULT_STREAM, pattern_a, ALLOC_SIZE), HW_OK, "H2D a");
    expect_status(op_h2d(&c, b, DEFAULT_STREAM, pattern_b, ALLOC_SIZE), HW_OK, "H2D b");
    raw_pass();

    raw_begin("words the client does not own are rejected by writes and waits");
    const uint64_t forged[] = {
        0x1000,
        UINT64_C(0xdeadbeef000),
        freed,
        freed + 64,
        a + ALLOC_SIZE,         /* the rounding pad after a: mapped, not the client's */
        a + ALLOC_SIZE - 4 + 8, /* still the pad */
        b - 8,                  /* right before the neighbour */
        UINT64_MAX - 7,
        UINT64_MAX & ~UINT64_C(3),
    };
    const uint16_t ops[2] = { HIPR_OP_STREAM_WRITE_VALUE, HIPR_OP_STREAM_WAIT_VALUE };
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++)
        for (uint32_t width = 4; width <= 8; width += 4)
            for (int o = 0; o < 2; o++) {
                uint64_t p = forged[i] & ~(uint64_t)(width - 1);
                if (p >= a && p < a + ALLOC_SIZE)
                    continue;
                if (p >= b && p < b + ALLOC_SIZE)
                    continue;
                expect_rejected(op_value(&c, ops[o], DEFAULT_STREAM, p, 0x5A5A5A5A5A5A5A5Aull,
                                         o ? ~0ull : 0, width, 0),
                                o ? "WAIT_VALUE" : "WRITE_VALUE", p, width);
            }
    raw_pass();

    raw_begin("a word straddling an allocation's end, misaligned words and odd widths");
    /* The last 8 bytes of a end at a + 4000; a + 3996 holds only 4 of 8. */
    expect_rejected(op_value(&c, HIPR_OP_STREAM_WRITE_VALUE, DEFAULT_STREAM, a + ALLOC_SIZE - 4,
                             ~0ull, 0, 8, 0),
                    "straddling write", a + ALLOC_SIZE - 4, 8);
    expect_rejected(
        op_value(&c, HIPR_OP_STREAM_WAIT_VALUE, DEFAULT_STREAM, a + ALLOC_SIZE - 4, 0, ~0ull, 8, 0),
        "straddling wait", a + ALLOC_SIZE - 4, 8);
    expect_rejected(op_value(&c, HIPR_OP_STREAM_WRITE_VALUE, DEFAULT_STREAM, a + 2, 1, 0, 4, 0),
                    "misaligned write", a + 2, 4);
    expect_rejected(op_value(&c, HIPR_OP_STREAM_WAIT_VALUE, DEFAULT_STREAM, a + 4, 1, ~0ull, 8, 0),
                    "misaligned wait", a + 4, 8);
    const uint32_t widths[] = { 0, 1, 2, 3, 5, 16, 4096, UINT32_MAX };
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        expect_rejected(
            op_value(&c, HIPR_OP_STREAM_WRITE_VALUE, DEFAULT_STREAM, a, 1, 0, widths[i], 0),
            "write width", a, widths[i]);
        expect_rejected(
            op_value(&c, HIPR_OP_STREAM_WAIT_VALUE, DEFAULT_STREAM, a, 1, ~0ull, widths[i], 0),
            "wait width", a, widths[i]);
    }
    raw_pass();

    raw_begin("unknown comparisons, write flags and masks, and unknown streams");
    expect_status(op_value(&c, HIPR_OP_STREAM_WAIT_VALUE, DEFAULT_STREAM, a, 0, ~0ull, 4, 4),
                  HW_EINVAL, "wait flags 4");
    expect_status(
        op_value(&c, HIPR_OP_STREAM_WAIT_VALUE, DEFAULT_STREAM, a, 0, ~0ull, 4, UINT32_MAX),
        HW_EINVAL, "wait flags ~0");
    expect_status(op_value(&c, HIPR_OP_STREAM_WRITE_VALUE, DEFAULT_STREAM, a, 0, 0, 4, 1),
                  HW_EINVAL, "write flags 1");
    expect_status(op_value(&c, HIPR_OP_STREAM_WRITE_VALUE, DEFAULT_STREAM, a, 0, 1, 4, 0),
                  HW_EINVAL, "write mask 1");
    expect_status(op_value(&c, HIPR_OP_STREAM_WRITE_VALUE, 0x77777, a, 0, 0, 4, 0), HW_EHANDLE,
                  "write on an unknown stream");
    expect_status(op_value(&c, HIPR_OP_STREAM_WAIT_VALUE, 63, a, 0, ~0ull, 4, 0), HW_EHANDLE,
                  "wait on another device's default stream that does not exist");
    raw_pass();

    raw_begin("nothing was touched, and the worker still serves the session");
    expect_patterns(&c, a, b, "the rejected requests");
    raw_pass();

    raw_begin("a valid write changes exactly its word, and a satisfied wait passes");
    uint64_t word = a + 8;
    expect_status(op_value(&c, HIPR_OP_STREAM_WRITE_VALUE, DEFAULT_STREAM, word,
                           0x1122334455667788ull, 0, 8, 0),
                  HW_OK, "write 8");
    expect_status(op_value(&c, HIPR_OP_STREAM_WAIT_VALUE, DEFAULT_STREAM, word,
                           0x1122334455667788ull, ~0ull, 8, 1),
                  HW_OK, "wait eq");
    memcpy(pattern_a + 8, &(uint64_t){ 0x1122334455667788ull }, 8); /* little-endian host */
    expect_patterns(&c, a, b, "one valid 8-byte write");
    raw_pass();

    raw_begin("a client that leaves a wait nobody will satisfy does not keep its session");
    expect_status(op_stream_create(&c, STREAM_ID, 0), HW_OK, "STREAM_CREATE");
    expect_status(
        op_value(&c, HIPR_OP_STREAM_WAIT_VALUE, STREAM_ID, b, 0, 0, 4, HIPR_WAIT_VALUE_AND), HW_OK,
        "wait that can never be met");
    raw_close(&c);
    EXPECT(raw_wait_worker_idle(0, 0, 5000, &st) == 0,
           "worker reports %u sessions, %llu bytes in use", st.sessions,
           (unsigned long long)st.bytes_in_use);
    raw_pass();

    raw_begin("a new session works");
    uint64_t p = 0;
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0 && raw_malloc(&c, 64, &p) == 0, "HELLO");
    expect_status(op_value(&c, HIPR_OP_STREAM_WRITE_VALUE, DEFAULT_STREAM, p, 7, 0, 4, 0), HW_OK,
                  "write");
    uint32_t got = 0;
    expect_status(op_d2h(&c, p, 4, DEFAULT_STREAM, &got, sizeof got), HW_OK, "D2H");
    EXPECT(got == 7, "read back %u", got);
    raw_close(&c);
    EXPECT(raw_wait_worker_idle(0, 0, 5000, &st) == 0, "worker not idle");
    raw_pass();

    printf("all hostile stream value checks passed\n");
    return 0;
}
