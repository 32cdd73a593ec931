/*
 * The HIPR codec: golden byte vectors for the header and several messages
 * (written out by hand from docs/protocol.md, not produced by the encoder),
 * round trips of every message, every opcode's size cap, truncated and
 * oversized frames.
 */
#include <string.h>

#include "hipr.h"
#include "testutil.h"

static void check_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
    if (memcmp(got, want, n) != 0) {
        fprintf(stderr, "%s: encoding differs from the golden vector\n  got: ", what);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "%02x", got[i]);
        fprintf(stderr, "\n want: ");
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "%02x", want[i]);
        fprintf(stderr, "\n");
        exit(1);
    }
}

static void golden_header(void)
{
    struct hipr_header h = { HIPR_MAGIC,           1, 0x0201, 0x11223344, HIPR_FLAG_NO_REPLY,
                             0x0000000500000010ull };
    static const uint8_t want[24] = {
        0x52, 0x50, 0x49, 0x48,                         /* magic "HIPR" little-endian */
        0x01, 0x00,                                     /* version 1 */
        0x01, 0x02,                                     /* opcode 0x0201 MALLOC */
        0x44, 0x33, 0x22, 0x11,                         /* request_id */
        0x04, 0x00, 0x00, 0x00,                         /* flags NO_REPLY */
        0x10, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, /* payload_length */
    };
    uint8_t out[24];
    hipr_header_encode(out, &h);
    check_bytes(out, want, 24, "header");
    struct hipr_header back;
    hipr_header_decode(want, &back);
    CHECK_EQ(back.magic, HIPR_MAGIC);
    CHECK_EQ(back.opcode, 0x0201);
    CHECK_EQ(back.request_id, 0x11223344);
    CHECK_EQ(back.payload_length, 0x0000000500000010ull);
}

static void golden_messages(void)
{
    /* MALLOC request: i32 device, u32 flags, u64 size. */
    struct hipr_malloc_req m = { .device = 3, .flags = 0, .size = 0x123456789aull };
    static const uint8_t want_malloc[16] = { 0x03, 0,    0,    0,    0,    0, 0, 0,
                                             0x9a, 0x78, 0x56, 0x34, 0x12, 0, 0, 0 };
    uint8_t out[512];
    CHECK_EQ(hipr_malloc_req_encode(out, &m), 16);
    check_bytes(out, want_malloc, 16, "malloc_req");

    /* reply header: i32 status, i32 async_status (negative values too). */
    struct hipr_reply_hdr r = { .status = 801, .async_status = -1 };
    static const uint8_t want_reply[8] = { 0x21, 0x03, 0, 0, 0xff, 0xff, 0xff, 0xff };
    CHECK_EQ(hipr_reply_hdr_encode(out, &r), 8);
    check_bytes(out, want_reply, 8, "reply_hdr");

    /* EVENT_ELAPSED reply: f32 1.5 = 0x3fc00000. */
    struct hipr_event_elapsed_rep e = { .ms = 1.5f };
    static const uint8_t want_ms[4] = { 0x00, 0x00, 0xc0, 0x3f };
    CHECK_EQ(hipr_event_elapsed_rep_encode(out, &e), 4);
    check_bytes(out, want_ms, 4, "event_elapsed_rep");

    /* LAUNCH: four u64 then eight u32. */
    struct hipr_launch l = { .function = 1,
                             .stream = 0x100,
                             .start_event = 0,
                             .stop_event = 2,
                             .grid_x = 10,
                             .grid_y = 1,
                             .grid_z = 1,
                             .block_x = 256,
                             .block_y = 1,
                             .block_z = 1,
                             .shared_mem = 0,
                             .flags = 0 };
    static const uint8_t want_launch[64] = {
        1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
        0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    CHECK_EQ(hipr_launch_encode(out, &l), 64);
    check_bytes(out, want_launch, 64, "launch");

    /* c256 strings are NUL padded; a peer's unterminated string is cut. */
    struct hipr_hello_rep h;
    memset(&h, 0, sizeof h);
    strcpy(h.backend, "cpu");
    size_t n = hipr_hello_rep_encode(out, &h);
    CHECK_EQ(n, HIPR_hello_rep_SIZE);
    CHECK(memcmp(out + n - 256, "cpu\0\0", 5) == 0);
    memset(out + n - 256, 'x', 256);
    struct hipr_hello_rep back;
    CHECK_EQ(hipr_hello_rep_decode(out, n, &back), 0);
    CHECK_EQ(strlen(back.backend), 255);
}

static void round_trips(void)
{
    uint8_t buf[4096], buf2[4096];
    /* Every message: fill with a byte pattern, decode, encode, compare. */
#define RT_(name, FIELDS)                                                         \
    do {                                                                          \
        struct hipr_##name m;                                                     \
        for (size_t i = 0; i < HIPR_##name##_SIZE; i++)                           \
            buf[i] = (uint8_t)((i * 37 + 11) % 255 + 1); /* no NULs */            \
        /* c256 fields decode to 255 bytes + NUL, then round-trip. */             \
        CHECK_EQ(hipr_##name##_decode(buf, HIPR_##name##_SIZE, &m), 0);           \
        size_t n = hipr_##name##_encode(buf2, &m);                                \
        CHECK_EQ(n, HIPR_##name##_SIZE);                                          \
        struct hipr_##name m2;                                                    \
        CHECK_EQ(hipr_##name##_decode(buf2, n, &m2), 0);                          \
        CHECK(memcmp(&m, &m2, sizeof m) == 0);                                    \
        if (HIPR_##name##_SIZE > 0)                                               \
            CHECK_EQ(hipr_##name##_decode(buf, HIPR_##name##_SIZE - 1, &m2), -1); \
    } while (0);
    HIPR_MESSAGES(RT_)
#undef RT_
}

static void caps(void)
{
    /* Each opcode: a request at exactly its cap passes, one byte over fails,
     * one byte short of its fixed part fails. */
    CHECK(hipr_op_count() >= 30);
    for (size_t i = 0; i < hipr_op_count(); i++) {
        const struct hipr_op_info *op = hipr_op_at(i), *got = NULL;
        CHECK(hipr_op_lookup(op->opcode) == op);
        struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION,
                                 op->opcode, 1,
                                 0,          op->request_size + op->request_tail_cap };
        CHECK_EQ(hipr_check_request(&h, &got), HIPR_OK);
        CHECK(got == op);
        h.payload_length++;
        CHECK_EQ(hipr_check_request(&h, &got), HIPR_ETOOBIG);
        if (op->request_size > 0) {
            h.payload_length = op->request_size - 1;
            CHECK_EQ(hipr_check_request(&h, &got), HIPR_ETOOSHORT);
        }
        /* Lengths near 2^64 must not wrap around the cap check. */
        h.payload_length = UINT64_MAX;
        CHECK_EQ(hipr_check_request(&h, &got), HIPR_ETOOBIG);

        struct hipr_header r = {
            HIPR_MAGIC,         HIPR_VERSION,
            op->opcode,         1,
            HIPR_FLAG_RESPONSE, HIPR_reply_hdr_SIZE + op->reply_size + op->reply_tail_cap
        };
        CHECK_EQ(hipr_check_reply(&r, &got), HIPR_OK);
        r.payload_length++;
        CHECK_EQ(hipr_check_reply(&r, &got), HIPR_ETOOBIG);
        r.payload_length = HIPR_reply_hdr_SIZE - 1;
        CHECK_EQ(hipr_check_reply(&r, &got), HIPR_ETOOSHORT);
    }
    /* Opcode numbers are unique. */
    for (size_t i = 0; i < hipr_op_count(); i++)
        for (size_t j = i + 1; j < hipr_op_count(); j++)
            CHECK(hipr_op_at(i)->opcode != hipr_op_at(j)->opcode);

    const struct hipr_op_info *got = NULL;
    struct hipr_header bad = { 0x50524948, 1, HIPR_OP_PING, 1, 0, 8 };
    CHECK_EQ(hipr_check_request(&bad, &got), HIPR_EBADMAGIC);
    bad.magic = HIPR_MAGIC;
    bad.version = 2;
    CHECK_EQ(hipr_check_request(&bad, &got), HIPR_EVERSION);
    bad.version = 1;
    bad.flags = 0x80;
    CHECK_EQ(hipr_check_request(&bad, &got), HIPR_EBADFLAGS);
    bad.flags = 0;
    bad.opcode = 0x7777;
    CHECK_EQ(hipr_check_request(&bad, &got), HIPR_EOPCODE);
}

static void pinned_numbers(void)
{
    /* Opcode numbers are part of the wire: they never change. */
    CHECK_EQ(HIPR_OP_HELLO, 0x0001);
    CHECK_EQ(HIPR_OP_MALLOC, 0x0201);
    CHECK_EQ(HIPR_OP_MEMCPY_H2D, 0x0210);
    CHECK_EQ(HIPR_OP_MEMCPY_D2H, 0x0211);
    CHECK_EQ(HIPR_OP_LAUNCH, 0x0510);
    CHECK_EQ(HIPR_HEADER_SIZE, 24);
    /* two c256, one b16, seven u64, thirty-five 4-byte fields */
    CHECK_EQ(HIPR_devinfo_SIZE, 256 + 256 + 16 + 7 * 8 + 35 * 4);
}

int main(void)
{
    golden_header();
    golden_messages();
    round_trips();
    caps();
    pinned_numbers();
    printf("codec: golden vectors, round trips, caps: ok\n");
    return 0;
}
