/*
 * hipr_codec.c - encoders, decoders and the opcode table, expanded from
 * hipr_spec.h. Nothing here is written per message by hand.
 */
#include "hipr.h"

#include <string.h>

static uint8_t *put_u8(uint8_t *p, uint8_t v)
{
    *p = v;
    return p + 1;
}
static uint8_t *put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}
static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    hipr_put_u32(p, v);
    return p + 4;
}
static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    hipr_put_u64(p, v);
    return p + 8;
}
static uint8_t *put_i32(uint8_t *p, int32_t v)
{
    return put_u32(p, (uint32_t)v);
}
static uint8_t *put_i64(uint8_t *p, int64_t v)
{
    return put_u64(p, (uint64_t)v);
}
static uint8_t *put_f32(uint8_t *p, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return put_u32(p, bits);
}
static uint8_t *put_c256(uint8_t *p, const char *s)
{
    size_t n = strnlen(s, 255);
    memcpy(p, s, n);
    memset(p + n, 0, 256 - n);
    return p + 256;
}
static uint8_t *put_b16(uint8_t *p, const uint8_t *b)
{
    memcpy(p, b, 16);
    return p + 16;
}
static uint8_t *put_b32(uint8_t *p, const uint8_t *b)
{
    memcpy(p, b, 32);
    return p + 32;
}

static const uint8_t *get_u8(const uint8_t *p, uint8_t *v)
{
    *v = *p;
    return p + 1;
}
static const uint8_t *get_u16(const uint8_t *p, uint16_t *v)
{
    *v = (uint16_t)(p[0] | p[1] << 8);
    return p + 2;
}
static const uint8_t *get_u32(const uint8_t *p, uint32_t *v)
{
    *v = hipr_get_u32(p);
    return p + 4;
}
static const uint8_t *get_u64(const uint8_t *p, uint64_t *v)
{
    *v = hipr_get_u64(p);
    return p + 8;
}
static const uint8_t *get_i32(const uint8_t *p, int32_t *v)
{
    *v = (int32_t)hipr_get_u32(p);
    return p + 4;
}
static const uint8_t *get_i64(const uint8_t *p, int64_t *v)
{
    *v = (int64_t)hipr_get_u64(p);
    return p + 8;
}
static const uint8_t *get_f32(const uint8_t *p, float *v)
{
    uint32_t bits = hipr_get_u32(p);
    memcpy(v, &bits, sizeof bits);
    return p + 4;
}
/* A peer's string is never trusted to be terminated. */
static const uint8_t *get_c256(const uint8_t *p, char *s)
{
    memcpy(s, p, 255);
    s[255] = '\0';
    return p + 256;
}
static const uint8_t *get_b16(const uint8_t *p, uint8_t *b)
{
    memcpy(b, p, 16);
    return p + 16;
}
static const uint8_t *get_b32(const uint8_t *p, uint8_t *b)
{
    memcpy(b, p, 32);
    return p + 32;
}

/* Silence "unused function" for primitives no message uses yet. */
static void hipr_codec_keep_(void) __attribute__((unused));
static void hipr_codec_keep_(void)
{
    (void)put_u8;
    (void)put_u16;
    (void)put_i64;
    (void)get_u8;
    (void)get_u16;
    (void)get_i64;
}

/* A function, not an inline `<`, so empty messages compare without warnings. */
static int too_short(size_t len, size_t need)
{
    return len < need;
}

#define HIPR_ENCODE_FIELD_(t, n) p = put_##t(p, m->n);
#define HIPR_DECODE_FIELD_(t, n) p = get_##t(p, HIPR_ADDR_##t(m->n));
#define HIPR_ADDR_u8(x)          &(x)
#define HIPR_ADDR_u16(x)         &(x)
#define HIPR_ADDR_u32(x)         &(x)
#define HIPR_ADDR_u64(x)         &(x)
#define HIPR_ADDR_i32(x)         &(x)
#define HIPR_ADDR_i64(x)         &(x)
#define HIPR_ADDR_f32(x)         &(x)
#define HIPR_ADDR_c256(x)        (x)
#define HIPR_ADDR_b16(x)         (x)
#define HIPR_ADDR_b32(x)         (x)

#define HIPR_DEFINE_CODEC_(name, FIELDS)                                           \
    size_t hipr_##name##_encode(uint8_t *out, const struct hipr_##name *m)         \
    {                                                                              \
        uint8_t *p = out;                                                          \
        (void)m;                                                                   \
        FIELDS(HIPR_ENCODE_FIELD_)                                                 \
        return (size_t)(p - out);                                                  \
    }                                                                              \
    int hipr_##name##_decode(const uint8_t *in, size_t len, struct hipr_##name *m) \
    {                                                                              \
        const uint8_t *p = in;                                                     \
        struct hipr_##name tmp;                                                    \
        if (too_short(len, HIPR_##name##_SIZE))                                    \
            return -1;                                                             \
        memset(&tmp, 0, sizeof tmp);                                               \
        {                                                                          \
            struct hipr_##name *const m_out = m;                                   \
            m = &tmp;                                                              \
            FIELDS(HIPR_DECODE_FIELD_)                                             \
            *m_out = tmp;                                                          \
        }                                                                          \
        (void)p;                                                                   \
        return 0;                                                                  \
    }
HIPR_MESSAGES(HIPR_DEFINE_CODEC_)

static const struct hipr_op_info op_table[] = {
#define HIPR_OP_INFO_(NAME, num, req, rep, rcap, pcap, kind) \
    { num, #NAME, HIPR_##req##_SIZE, HIPR_##rep##_SIZE, rcap, pcap, HIPR_KIND_##kind },
    HIPR_OPS(HIPR_OP_INFO_)
#undef HIPR_OP_INFO_
};

size_t hipr_op_count(void)
{
    return sizeof op_table / sizeof op_table[0];
}

const struct hipr_op_info *hipr_op_at(size_t i)
{
    return i < hipr_op_count() ? &op_table[i] : NULL;
}

enum {
#define HIPR_OP_INDEX_(NAME, num, req, rep, rcap, pcap, kind) HIPR_IDX_##NAME,
    HIPR_OPS(HIPR_OP_INDEX_)
#undef HIPR_OP_INDEX_
};

const struct hipr_op_info *hipr_op_lookup(uint16_t opcode)
{
    /* The opcode space is sparse; a switch compiles to a jump table. */
    switch (opcode) {
#define HIPR_OP_CASE_(NAME, num, req, rep, rcap, pcap, kind) \
    case num: return &op_table[HIPR_IDX_##NAME];
        HIPR_OPS(HIPR_OP_CASE_)
#undef HIPR_OP_CASE_
    default: return NULL;
    }
}

/* Indexed like op_table: a state for an opcode the spec lacks is a compile
 * error (no HIPR_IDX_), two for one is -Woverride-init, and the count check
 * below catches one left out. */
static const struct hipr_op_state state_table[] = {
#define HIPR_OP_STATE_(NAME, where, cpu, cuda, hip, note)                            \
    [HIPR_IDX_##NAME] = { HIPR_WHERE_##where,                                        \
                          { HIPR_STATE_##cpu, HIPR_STATE_##cuda, HIPR_STATE_##hip }, \
                          note },
    HIPR_OP_STATES(HIPR_OP_STATE_)
#undef HIPR_OP_STATE_
};
enum {
#define HIPR_OP_STATE_COUNT_(NAME, where, cpu, cuda, hip, note) HIPR_STATE_ROW_##NAME,
    HIPR_OP_STATES(HIPR_OP_STATE_COUNT_) HIPR_STATE_ROWS
#undef HIPR_OP_STATE_COUNT_
};
_Static_assert(HIPR_STATE_ROWS == sizeof op_table / sizeof op_table[0],
               "HIPR_OP_STATES needs one row for every opcode of HIPR_OPS");

const struct hipr_op_state *hipr_op_state_at(size_t i)
{
    return i < hipr_op_count() ? &state_table[i] : NULL;
}

const struct hipr_op_state *hipr_op_state_lookup(uint16_t opcode)
{
    const struct hipr_op_info *op = hipr_op_lookup(opcode);
    return op ? &state_table[op - op_table] : NULL;
}

const char *hipr_state_name(enum hipr_state st)
{
    switch (st) {
    case HIPR_STATE_IMPLEMENTED: return "implemented";
    case HIPR_STATE_STUB: return "stub";
    case HIPR_STATE_UNSUPPORTED: return "unsupported";
    }
    return "?";
}

const char *hipr_where_name(enum hipr_where w)
{
    switch (w) {
    case HIPR_WHERE_SESSION: return "session";
    case HIPR_WHERE_HANDSHAKE: return "handshake";
    case HIPR_WHERE_WORKER: return "worker";
    case HIPR_WHERE_LINK: return "link";
    }
    return "?";
}

const char *hipr_backend_name(enum hipr_backend_id b)
{
    static const char *const names[HIPR_BACKEND_COUNT] = { "cpu", "cuda", "hip" };
    return (unsigned)b < HIPR_BACKEND_COUNT ? names[b] : "?";
}

void hipr_header_encode(uint8_t out[HIPR_HEADER_SIZE], const struct hipr_header *h)
{
    uint8_t *p = out;
    p = put_u32(p, h->magic);
    p = put_u16(p, h->version);
    p = put_u16(p, h->opcode);
    p = put_u32(p, h->request_id);
    p = put_u32(p, h->flags);
    put_u64(p, h->payload_length);
}

void hipr_reply_frame_encode(uint8_t out[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE], uint16_t opcode,
                             uint32_t request_id, int32_t status, int32_t async_status,
                             uint64_t payload_after)
{
    struct hipr_header h = {
        .magic = HIPR_MAGIC,
        .version = HIPR_VERSION,
        .opcode = opcode,
        .request_id = request_id,
        .flags = HIPR_FLAG_RESPONSE | (status != 0 ? HIPR_FLAG_ERROR : 0),
        .payload_length = HIPR_reply_hdr_SIZE + payload_after,
    };
    struct hipr_reply_hdr rh = { .status = status, .async_status = async_status };
    hipr_header_encode(out, &h);
    hipr_reply_hdr_encode(out + HIPR_HEADER_SIZE, &rh);
}

void hipr_header_decode(const uint8_t in[HIPR_HEADER_SIZE], struct hipr_header *h)
{
    const uint8_t *p = in;
    p = get_u32(p, &h->magic);
    p = get_u16(p, &h->version);
    p = get_u16(p, &h->opcode);
    p = get_u32(p, &h->request_id);
    p = get_u32(p, &h->flags);
    get_u64(p, &h->payload_length);
}

static enum hipr_check check_common(const struct hipr_header *h, const struct hipr_op_info **info)
{
    if (h->magic != HIPR_MAGIC)
        return HIPR_EBADMAGIC;
    if (h->version != HIPR_VERSION)
        return HIPR_EVERSION;
    if (h->flags & ~HIPR_FLAGS_KNOWN)
        return HIPR_EBADFLAGS;
    *info = hipr_op_lookup(h->opcode);
    return *info ? HIPR_OK : HIPR_EOPCODE;
}

enum hipr_check hipr_check_request(const struct hipr_header *h,
                                   const struct hipr_op_info **info_out)
{
    const struct hipr_op_info *info = NULL;
    enum hipr_check c = check_common(h, &info);
    if (c != HIPR_OK)
        return c;
    if (h->payload_length < info->request_size)
        return HIPR_ETOOSHORT;
    /* Subtract rather than add: payload_length is the peer's and may be huge. */
    if (h->payload_length - info->request_size > info->request_tail_cap)
        return HIPR_ETOOBIG;
    *info_out = info;
    return HIPR_OK;
}

enum hipr_check hipr_check_reply(const struct hipr_header *h, const struct hipr_op_info **info_out)
{
    const struct hipr_op_info *info = NULL;
    enum hipr_check c = check_common(h, &info);
    if (c != HIPR_OK)
        return c;
    if (h->payload_length < HIPR_reply_hdr_SIZE)
        return HIPR_ETOOSHORT;
    /* An error reply may carry only the reply header. */
    if (h->payload_length - HIPR_reply_hdr_SIZE > (uint64_t)info->reply_size + info->reply_tail_cap)
        return HIPR_ETOOBIG;
    *info_out = info;
    return HIPR_OK;
}

const char *hipr_check_str(enum hipr_check c)
{
    switch (c) {
    case HIPR_OK: return "ok";
    case HIPR_EBADMAGIC: return "bad magic";
    case HIPR_EVERSION: return "unsupported protocol version";
    case HIPR_EBADFLAGS: return "unknown header flags";
    case HIPR_EOPCODE: return "unknown opcode";
    case HIPR_ETOOSHORT: return "payload shorter than the message";
    case HIPR_ETOOBIG: return "payload over the opcode's cap";
    }
    return "?";
}
