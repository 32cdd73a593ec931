/*
 * hipr.h - HIPR wire protocol: frame header, message structs and codecs.
 *
 * Structs and codecs are expanded from hipr_spec.h. The structs are the
 * in-memory form only; the wire form is always written field by field,
 * little-endian, by hipr_<msg>_encode() and read by hipr_<msg>_decode().
 */
#ifndef HIPR_H
#define HIPR_H

#include <stddef.h>
#include <stdint.h>

#include "hipr_spec.h"

#define HIPR_MAGIC        0x48495052u /* "HIPR" */
#define HIPR_VERSION      1u
#define HIPR_HEADER_SIZE  24u
#define HIPR_DEFAULT_PORT 18515

/* Header flags. */
#define HIPR_FLAG_RESPONSE 0x1u
#define HIPR_FLAG_ERROR    0x2u
#define HIPR_FLAG_NO_REPLY 0x4u
#define HIPR_FLAGS_KNOWN   0x7u

/* HELLO request flags. */
#define HIPR_HELLO_STATUS_ONLY 0x1u /* ask for WORKER_STATUS, open no session */
#define HIPR_HELLO_WAIT_OK     0x2u /* the client takes SESSION_WAIT frames */
/* the session is another worker's, moved here piece by piece (MIGRATE_STATE) */
#define HIPR_HELLO_MIGRATE_IN 0x4u

/* SESSION_WAIT states. */
#define HIPR_WAIT_QUEUED   1u
#define HIPR_WAIT_STARTING 2u
#define HIPR_WAIT_BUSY     3u

/* AUTH_BEGIN reply: what the worker requires, and what this link is. */
#define HIPR_AUTH_REQUIRES_TOKEN 0x1u
#define HIPR_AUTH_REQUIRES_TLS   0x2u
#define HIPR_AUTH_LINK_TLS       0x1u
/* The proofs bind the worker's certificate (SHA-256 of it) instead of the
 * TLS exporter: asked in AUTH_BEGIN's flags by a client whose TLS has no
 * exporter (Schannel), confirmed in the reply's link (docs/protocol.md). */
#define HIPR_AUTH_BIND_CERT      0x1u
#define HIPR_AUTH_LINK_BIND_CERT 0x2u

/* GOING_AWAY reasons. */
#define HIPR_GOING_AWAY_SHUTDOWN 1u /* the worker was told to stop (SIGTERM) */
#define HIPR_GOING_AWAY_DRAIN    2u /* drained (`hipwire drain`) and its timeout ran out */
/* stopping, and the session could not be moved to --migrate-to */
#define HIPR_GOING_AWAY_MIGRATE_FAILED 3u

/* MIGRATE_STATE kinds (hipr_spec.h, docs/protocol.md "Migration"). */
#define HIPR_MIGRATE_ALLOC    1u /* device, base, size: an allocation at that address */
#define HIPR_MIGRATE_MODULE   2u /* handle, device, tail: the image */
#define HIPR_MIGRATE_GLOBAL   3u /* handle (module), base, size, tail: the name */
#define HIPR_MIGRATE_FUNCTION 4u /* handle, a (module), tail: the name */
#define HIPR_MIGRATE_STREAM   5u /* handle, device, flags, priority */
#define HIPR_MIGRATE_EVENT    6u /* handle, device, flags */
#define HIPR_MIGRATE_REPLY    7u /* a: head bytes; tail: head then data of a kept reply */
/* a: requests executed, b: next worker handle, base: replies the client
 * has read, size: replies sent, flags: the pending async status; handle:
 * the resume token */
#define HIPR_MIGRATE_COMMIT 8u

/* ACK flags (client to worker): answer with an ACK now. */
#define HIPR_ACK_REQUEST 0x1u

/* TRANSPORT_SHM steps (hipr_spec.h). */
#define HIPR_SHM_OFFER    1u
#define HIPR_SHM_HANDOVER 2u
#define HIPR_SHM_COMMIT   3u
#define HIPR_SHM_DECLINE  4u
/* HOST_REGION ops (hipr_spec.h). */
#define HIPR_REGION_ALLOC 1u
#define HIPR_REGION_FREE  2u

/* Stream ids below this name the default (null) stream of device <id>. */
#define HIPR_FIRST_STREAM_ID 0x100u

/* MODULE_LOAD_EX reply flags. */
#define HIPR_MODULE_NO_BINARY \
    0x1u /* no code object in the image runs on the
                                      device: functions and globals resolve,
                                      launches fail with hipErrorNoBinaryForGpu */

/* LAUNCH flags. */
#define HIPR_LAUNCH_COOPERATIVE 0x1u

/* STREAM_WAIT_VALUE flags: the comparison, with hipStreamWaitValue*'s numbers
 * (Gte: (*ptr & mask) >= value; Eq: ==; And: ((*ptr & mask) & value) != 0;
 * Nor: ~((*ptr & mask) | (value & mask)) != 0). */
#define HIPR_WAIT_VALUE_GTE 0u
#define HIPR_WAIT_VALUE_EQ  1u
#define HIPR_WAIT_VALUE_AND 2u
#define HIPR_WAIT_VALUE_NOR 3u
/* DEVICE_ATTRIBUTES arch bits, hipDeviceArch_t's fields in its order. */
#define HIPR_ARCH_GLOBAL_INT32_ATOMICS     0x00001u
#define HIPR_ARCH_GLOBAL_FLOAT_ATOMIC_EXCH 0x00002u
#define HIPR_ARCH_SHARED_INT32_ATOMICS     0x00004u
#define HIPR_ARCH_SHARED_FLOAT_ATOMIC_EXCH 0x00008u
#define HIPR_ARCH_FLOAT_ATOMIC_ADD         0x00010u
#define HIPR_ARCH_GLOBAL_INT64_ATOMICS     0x00020u
#define HIPR_ARCH_SHARED_INT64_ATOMICS     0x00040u
#define HIPR_ARCH_DOUBLES                  0x00080u
#define HIPR_ARCH_WARP_VOTE                0x00100u
#define HIPR_ARCH_WARP_BALLOT              0x00200u
#define HIPR_ARCH_WARP_SHUFFLE             0x00400u
#define HIPR_ARCH_FUNNEL_SHIFT             0x00800u
#define HIPR_ARCH_THREAD_FENCE_SYSTEM      0x01000u
#define HIPR_ARCH_SYNC_THREADS_EXT         0x02000u
#define HIPR_ARCH_SURFACE_FUNCS            0x04000u
#define HIPR_ARCH_3D_GRID                  0x08000u
#define HIPR_ARCH_DYNAMIC_PARALLELISM      0x10000u

struct hipr_header {
    uint32_t magic;
    uint16_t version;
    uint16_t opcode;
    uint32_t request_id;
    uint32_t flags;
    uint64_t payload_length;
};

typedef uint8_t hipr_u8_t;
typedef uint16_t hipr_u16_t;
typedef uint32_t hipr_u32_t;
typedef uint64_t hipr_u64_t;
typedef int32_t hipr_i32_t;
typedef int64_t hipr_i64_t;
typedef float hipr_f32_t;
typedef char hipr_c256_t[256];
typedef uint8_t hipr_b16_t[16];
typedef uint8_t hipr_b32_t[32];

#define HIPR_SIZE_u8   1
#define HIPR_SIZE_u16  2
#define HIPR_SIZE_u32  4
#define HIPR_SIZE_u64  8
#define HIPR_SIZE_i32  4
#define HIPR_SIZE_i64  8
#define HIPR_SIZE_f32  4
#define HIPR_SIZE_c256 256
#define HIPR_SIZE_b16  16
#define HIPR_SIZE_b32  32

#define HIPR_STRUCT_FIELD_(t, n) hipr_##t##_t n;
#define HIPR_FIELD_SIZE_(t, n)   +HIPR_SIZE_##t
#define HIPR_DECLARE_MSG_(name, FIELDS)                                     \
    struct hipr_##name {                                                    \
        FIELDS(HIPR_STRUCT_FIELD_)                                          \
    };                                                                      \
    enum { HIPR_##name##_SIZE = 0 FIELDS(HIPR_FIELD_SIZE_) };               \
    size_t hipr_##name##_encode(uint8_t *out, const struct hipr_##name *m); \
    int hipr_##name##_decode(const uint8_t *in, size_t len, struct hipr_##name *m);
HIPR_MESSAGES(HIPR_DECLARE_MSG_)
#undef HIPR_DECLARE_MSG_

/* Opcodes with no fields in one direction use the empty message. */
enum { HIPR_empty_SIZE = 0 };

enum hipr_opcode {
#define HIPR_OPCODE_ENUM_(NAME, num, req, rep, rcap, pcap, kind) HIPR_OP_##NAME = num,
    HIPR_OPS(HIPR_OPCODE_ENUM_)
#undef HIPR_OPCODE_ENUM_
};

enum hipr_kind { HIPR_KIND_SYNC, HIPR_KIND_ASYNC };

/* What the spec says about one opcode. */
struct hipr_op_info {
    uint16_t opcode;
    const char *name;
    uint32_t request_size; /* fixed part of the request payload */
    uint32_t reply_size;   /* fixed part of the reply body (after reply_hdr) */
    uint64_t request_tail_cap;
    uint64_t reply_tail_cap;
    enum hipr_kind kind;
};

/* The spec entry for `opcode`, or NULL when it is not a known opcode. */
const struct hipr_op_info *hipr_op_lookup(uint16_t opcode);
/* Number of opcodes, and the i-th in spec order (for tests and docs). */
size_t hipr_op_count(void);
const struct hipr_op_info *hipr_op_at(size_t i);

/* What the worker does with an opcode (HIPR_OP_STATES in hipr_spec.h). */
enum hipr_where {
    HIPR_WHERE_SESSION = 1,
    HIPR_WHERE_HANDSHAKE,
    HIPR_WHERE_WORKER,
    HIPR_WHERE_LINK
};
enum hipr_state { HIPR_STATE_IMPLEMENTED = 1, HIPR_STATE_STUB, HIPR_STATE_UNSUPPORTED };
enum hipr_backend_id { HIPR_BACKEND_CPU, HIPR_BACKEND_CUDA, HIPR_BACKEND_HIP, HIPR_BACKEND_COUNT };

struct hipr_op_state {
    enum hipr_where where;
    enum hipr_state state[HIPR_BACKEND_COUNT]; /* indexed by enum hipr_backend_id */
    const char *note;                          /* "" when there is nothing to add */
};

/* The state of the i-th opcode in spec order (hipr_op_at(i)), and of an
 * opcode by number (NULL when it is not a known opcode). */
const struct hipr_op_state *hipr_op_state_at(size_t i);
const struct hipr_op_state *hipr_op_state_lookup(uint16_t opcode);
/* "implemented", "stub", "unsupported"; "session", "handshake", "worker",
 * "link"; "cpu", "cuda", "hip". */
const char *hipr_state_name(enum hipr_state st);
const char *hipr_where_name(enum hipr_where w);
const char *hipr_backend_name(enum hipr_backend_id b);

void hipr_header_encode(uint8_t out[HIPR_HEADER_SIZE], const struct hipr_header *h);
void hipr_header_decode(const uint8_t in[HIPR_HEADER_SIZE], struct hipr_header *h);
/* A reply's frame header and reply header (RESPONSE, ERROR when status is
 * not 0), for payload_after bytes of body and tail after them. */
void hipr_reply_frame_encode(uint8_t out[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE], uint16_t opcode,
                             uint32_t request_id, int32_t status, int32_t async_status,
                             uint64_t payload_after);

/* Frame check results, ordered so that any non-zero value is fatal. */
enum hipr_check {
    HIPR_OK = 0,
    HIPR_EBADMAGIC, /* not a HIPR frame */
    HIPR_EVERSION,  /* unsupported protocol version */
    HIPR_EBADFLAGS, /* unknown flag bits */
    HIPR_EOPCODE,   /* opcode not in the spec */
    HIPR_ETOOSHORT, /* payload shorter than the fixed message */
    HIPR_ETOOBIG,   /* payload over the opcode's cap */
};

/*
 * Validates a request header against the spec before anything is read or
 * allocated for its payload. On HIPR_OK, *info_out is the opcode's entry.
 */
enum hipr_check hipr_check_request(const struct hipr_header *h,
                                   const struct hipr_op_info **info_out);
/* The same for a reply to a request with opcode h->opcode. */
enum hipr_check hipr_check_reply(const struct hipr_header *h, const struct hipr_op_info **info_out);
const char *hipr_check_str(enum hipr_check c);

/* Little-endian primitives shared by the codecs and hand-written tails. */
static inline void hipr_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void hipr_put_u64(uint8_t *p, uint64_t v)
{
    hipr_put_u32(p, (uint32_t)v);
    hipr_put_u32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t hipr_get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t hipr_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t hipr_get_u64(const uint8_t *p)
{
    return (uint64_t)hipr_get_u32(p) | (uint64_t)hipr_get_u32(p + 4) << 32;
}

#endif /* HIPR_H */
