/*
 * fuzz_seeds.c - the seed corpus: short, valid request sequences that
 * together touch every opcode, written with the real encoders so they track
 * hipr_spec.h. Pointers are FUZZ_PTR placeholders (see fuzz_session.h).
 */
#include <string.h>

#include "fuzz_session.h"
#include "hipr.h"

struct seed_writer {
    uint8_t *out;
    size_t cap, len;
    uint32_t next_id;
    int overflow;
};

/* Appends one frame: header, fixed part (already encoded), tail. */
static void frame(struct seed_writer *w, uint16_t opcode, uint32_t flags, const void *fixed,
                  size_t fixed_len, const void *tail, size_t tail_len)
{
    size_t need = HIPR_HEADER_SIZE + fixed_len + tail_len;
    if (w->overflow || need > w->cap - w->len) {
        w->overflow = 1;
        return;
    }
    struct hipr_header h = { .magic = HIPR_MAGIC,
                             .version = HIPR_VERSION,
                             .opcode = opcode,
                             .request_id = ++w->next_id,
                             .flags = flags,
                             .payload_length = fixed_len + tail_len };
    hipr_header_encode(w->out + w->len, &h);
    w->len += HIPR_HEADER_SIZE;
    if (fixed_len)
        memcpy(w->out + w->len, fixed, fixed_len);
    w->len += fixed_len;
    if (tail_len && tail)
        memcpy(w->out + w->len, tail, tail_len);
    else if (tail_len)
        memset(w->out + w->len, 0x5A, tail_len);
    w->len += tail_len;
}

#define ENC(msg, ...)                            \
    struct hipr_##msg msg##_m = { __VA_ARGS__ }; \
    uint8_t msg##_b[HIPR_##msg##_SIZE];          \
    hipr_##msg##_encode(msg##_b, &msg##_m)

static void u64_frame(struct seed_writer *w, uint16_t opcode, uint32_t flags, uint64_t v,
                      const void *tail, size_t tail_len)
{
    uint8_t b[8];
    hipr_put_u64(b, v);
    frame(w, opcode, flags, b, sizeof b, tail, tail_len);
}

static void malloc_frame(struct seed_writer *w, int32_t device, uint64_t size)
{
    ENC(malloc_req, .device = device, .size = size);
    frame(w, HIPR_OP_MALLOC, 0, malloc_req_b, sizeof malloc_req_b, NULL, 0);
}

static void device_frame(struct seed_writer *w, uint16_t opcode, int32_t device)
{
    ENC(device, .device = device);
    frame(w, opcode, 0, device_b, sizeof device_b, NULL, 0);
}

static void hello_frame(struct seed_writer *w, uint32_t flags)
{
    ENC(hello_req, .proto_min = 1, .proto_max = 1, .client_pid = 42, .flags = flags);
    frame(w, HIPR_OP_HELLO, 0, hello_req_b, sizeof hello_req_b, NULL, 0);
}

static void seed_handshake(struct seed_writer *w)
{
    w->out[w->len++] = 0; /* the seed says HELLO itself */
    hello_frame(w, 0);
    u64_frame(w, HIPR_OP_PING, 0, 0x1234, NULL, 0);
    frame(w, HIPR_OP_GOODBYE, 0, NULL, 0, NULL, 0);
}

static void seed_status(struct seed_writer *w)
{
    w->out[w->len++] = 0;
    frame(w, HIPR_OP_WORKER_STATUS, 0, NULL, 0, NULL, 0);
}

static void seed_status_hello(struct seed_writer *w)
{
    w->out[w->len++] = 0;
    hello_frame(w, HIPR_HELLO_STATUS_ONLY);
}

/* WORKER_INFO in place of HELLO, and refused inside a session. */
static void seed_info(struct seed_writer *w)
{
    w->out[w->len++] = 0;
    frame(w, HIPR_OP_WORKER_INFO, 0, NULL, 0, NULL, 0);
}

static void seed_info_in_session(struct seed_writer *w)
{
    w->out[w->len++] = FUZZ_MODE_AUTO_HELLO;
    frame(w, HIPR_OP_WORKER_INFO, 0, NULL, 0, NULL, 0);
    u64_frame(w, HIPR_OP_PING, 0, 9, NULL, 0);
}

/* Session resume: enabled (HELLO with a token), acknowledgements both
 * ways, then the routing and resuming requests, which belong to a routed
 * connection's handshake and are refused inside a session. */
static void seed_resume(struct seed_writer *w)
{
    w->out[w->len++] = 0;
    ENC(hello_req, .proto_min = 1, .proto_max = 1, .client_pid = 42,
        .resume_token = 0x1122334455667788ull);
    frame(w, HIPR_OP_HELLO, 0, hello_req_b, sizeof hello_req_b, NULL, 0);
    frame(w, HIPR_OP_RESUME_ENABLE, 0, NULL, 0, NULL, 0);
    malloc_frame(w, 0, 4096);
    ENC(ack, .count = 1, .flags = HIPR_ACK_REQUEST);
    frame(w, HIPR_OP_ACK, HIPR_FLAG_NO_REPLY, ack_b, sizeof ack_b, NULL, 0);
    u64_frame(w, HIPR_OP_PING, 0, 3, NULL, 0);
    ENC(session_resume_req, .session_id = 1, .replies_received = 2, .requests_sent = 2,
        .proof = { 0x11, 0x22, 0x33, 0x44 });
    frame(w, HIPR_OP_SESSION_RESUME, 0, session_resume_req_b, sizeof session_resume_req_b, NULL, 0);
    u64_frame(w, HIPR_OP_SESSION_ROUTE, 0, 1, NULL, 0);
    frame(w, HIPR_OP_RESUME_ENABLE, 0, NULL, 0, NULL, 0); /* a second time: refused */
    frame(w, HIPR_OP_GOODBYE, 0, NULL, 0, NULL, 0);
}

/* A fresh connection asking to be routed to a session that does not exist. */
static void seed_route(struct seed_writer *w)
{
    w->out[w->len++] = 0;
    u64_frame(w, HIPR_OP_SESSION_ROUTE, 0, 0x6b00000000000001ull, NULL, 0);
}

static void seed_device(struct seed_writer *w)
{
    w->out[w->len++] = FUZZ_MODE_AUTO_HELLO;
    u64_frame(w, HIPR_OP_PING, 0, 7, NULL, 0);
    frame(w, HIPR_OP_SESSION_STATS, 0, NULL, 0, NULL, 0);
    device_frame(w, HIPR_OP_MEM_GET_INFO, 0);
    device_frame(w, HIPR_OP_DEVICE_SYNCHRONIZE, 1);
    device_frame(w, HIPR_OP_MEM_GET_INFO, 2);
    frame(w, HIPR_OP_WORKER_STATUS, 0, NULL, 0, NULL, 0);
}

static void seed_copies(struct seed_writer *w)
{
    w->out[w->len++] = FUZZ_MODE_AUTO_HELLO;
    malloc_frame(w, 0, 4096);
    malloc_frame(w, 0, 4096);
    {
        ENC(memcpy_h2d, .dst = FUZZ_PTR(0, 0), .stream = 0);
        frame(w, HIPR_OP_MEMCPY_H2D, 0, memcpy_h2d_b, sizeof memcpy_h2d_b, NULL, 64);
    }
    {
        ENC(memcpy_d2h, .src = FUZZ_PTR(0, 0), .size = 64, .stream = 0);
        frame(w, HIPR_OP_MEMCPY_D2H, 0, memcpy_d2h_b, sizeof memcpy_d2h_b, NULL, 0);
    }
    {
        ENC(memcpy_d2d, .dst = FUZZ_PTR(1, 128), .src = FUZZ_PTR(0, 0), .size = 512, .stream = 0);
        frame(w, HIPR_OP_MEMCPY_D2D, 0, memcpy_d2d_b, sizeof memcpy_d2d_b, NULL, 0);
    }
    {
        ENC(memset, .dst = FUZZ_PTR(1, 0), .count = 16, .stream = 0, .value = 0xAB, .elem_size = 4);
        frame(w, HIPR_OP_MEMSET, HIPR_FLAG_NO_REPLY, memset_b, sizeof memset_b, NULL, 0);
    }
    u64_frame(w, HIPR_OP_FREE, 0, FUZZ_PTR(0, 0), NULL, 0);
    u64_frame(w, HIPR_OP_FREE, 0, FUZZ_PTR(0, 0), NULL, 0); /* double free */
    device_frame(w, HIPR_OP_DEVICE_SYNCHRONIZE, 0);
}

static void seed_copies_2d(struct seed_writer *w)
{
    w->out[w->len++] = FUZZ_MODE_AUTO_HELLO;
    malloc_frame(w, 0, 4096);
    malloc_frame(w, 1, 4096);
    {
        ENC(memcpy2d_h2d, .dst = FUZZ_PTR(0, 0), .dpitch = 64, .width = 32, .height = 4,
            .stream = 0);
        frame(w, HIPR_OP_MEMCPY2D_H2D, 0, memcpy2d_h2d_b, sizeof memcpy2d_h2d_b, NULL, 128);
    }
    {
        ENC(memcpy2d_d2h, .src = FUZZ_PTR(0, 0), .spitch = 64, .width = 32, .height = 4,
            .stream = 0);
        frame(w, HIPR_OP_MEMCPY2D_D2H, 0, memcpy2d_d2h_b, sizeof memcpy2d_d2h_b, NULL, 0);
    }
    {
        ENC(memcpy2d_d2d, .dst = FUZZ_PTR(1, 0), .dpitch = 128, .src = FUZZ_PTR(0, 0), .spitch = 64,
            .width = 64, .height = 8, .stream = 1);
        frame(w, HIPR_OP_MEMCPY2D_D2D, 0, memcpy2d_d2d_b, sizeof memcpy2d_d2d_b, NULL, 0);
    }
    device_frame(w, HIPR_OP_DEVICE_RESET, 0);
}

static void seed_big_h2d(struct seed_writer *w)
{
    /* Over 64 KiB: the zero-copy path straight into device memory. */
    w->out[w->len++] = FUZZ_MODE_AUTO_HELLO;
    malloc_frame(w, 0, 1u << 17);
    ENC(memcpy_h2d, .dst = FUZZ_PTR(0, 0), .stream = 0);
    frame(w, HIPR_OP_MEMCPY_H2D, HIPR_FLAG_NO_REPLY, memcpy_h2d_b, sizeof memcpy_h2d_b, NULL,
          70000);
    ENC(memcpy_d2h, .src = FUZZ_PTR(0, 4), .size = 70000, .stream = 0);
    frame(w, HIPR_OP_MEMCPY_D2H, 0, memcpy_d2h_b, sizeof memcpy_d2h_b, NULL, 0);
}

static void seed_streams_events(struct seed_writer *w)
{
    w->out[w->len++] = FUZZ_MODE_AUTO_HELLO;
    {
        ENC(stream_create, .stream = 0x100, .device = 0, .flags = 1, .priority = 0);
        frame(w, HIPR_OP_STREAM_CREATE, 0, stream_create_b, sizeof stream_create_b, NULL, 0);
    }
    {
        ENC(event_create, .event = 1, .device = 0, .flags = 0);
        frame(w, HIPR_OP_EVENT_CREATE, 0, event_create_b, sizeof event_create_b, NULL, 0);
    }
    {
        ENC(event_create, .event = 2, .device = 0, .flags = 0);
        frame(w, HIPR_OP_EVENT_CREATE, 0, event_create_b, sizeof event_create_b, NULL, 0);
    }
    {
        ENC(event_record, .event = 1, .stream = 0x100);
        frame(w, HIPR_OP_EVENT_RECORD, 0, event_record_b, sizeof event_record_b, NULL, 0);
    }
    {
        ENC(stream_wait_event, .stream = 0, .event = 1, .flags = 0);
        frame(w, HIPR_OP_STREAM_WAIT_EVENT, 0, stream_wait_event_b, sizeof stream_wait_event_b,
              NULL, 0);
    }
    {
        ENC(event_record, .event = 2, .stream = 0);
        frame(w, HIPR_OP_EVENT_RECORD, 0, event_record_b, sizeof event_record_b, NULL, 0);
    }
    u64_frame(w, HIPR_OP_EVENT_SYNCHRONIZE, 0, 2, NULL, 0);
    u64_frame(w, HIPR_OP_EVENT_QUERY, 0, 1, NULL, 0);
    {
        ENC(event_elapsed_req, .start = 1, .stop = 2);
        frame(w, HIPR_OP_EVENT_ELAPSED, 0, event_elapsed_req_b, sizeof event_elapsed_req_b, NULL,
              0);
    }
    u64_frame(w, HIPR_OP_STREAM_SYNCHRONIZE, 0, 0x100, NULL, 0);
    u64_frame(w, HIPR_OP_STREAM_QUERY, 0, 0x100, NULL, 0);
    u64_frame(w, HIPR_OP_EVENT_DESTROY, 0, 1, NULL, 0);
    u64_frame(w, HIPR_OP_STREAM_DESTROY, HIPR_FLAG_NO_REPLY, 0x100, NULL, 0);
    u64_frame(w, HIPR_OP_STREAM_QUERY, 0, 0x100, NULL, 0);
}

static void seed_modules(struct seed_writer *w)
{
    static const uint8_t not_elf[64] = { 0x7e, 'E', 'L', 'F', 2, 1, 1 };
    w->out[w->len++] = FUZZ_MODE_AUTO_HELLO;
    {
        ENC(module_load_req, .device = 0, .flags = 0);
        frame(w, HIPR_OP_MODULE_LOAD, 0, module_load_req_b, sizeof module_load_req_b, not_elf,
              sizeof not_elf);
    }
    u64_frame(w, HIPR_OP_MODULE_GET_FUNCTION, 0, 1, "vadd", 4);
    u64_frame(w, HIPR_OP_MODULE_GET_GLOBAL, 0, 1, "hw_global_table", 15);
    u64_frame(w, HIPR_OP_MODULE_UNLOAD, 0, 1, NULL, 0);
    {
        ENC(launch, .function = 2, .stream = 0, .grid_x = 1, .grid_y = 1, .grid_z = 1,
            .block_x = 64, .block_y = 1, .block_z = 1);
        frame(w, HIPR_OP_LAUNCH, 0, launch_b, sizeof launch_b, NULL, 32);
    }
}

static void seed_bad_frames(struct seed_writer *w)
{
    w->out[w->len++] = FUZZ_MODE_AUTO_HELLO;
    frame(w, 0x7777, 0, NULL, 0, NULL, 16);                 /* unknown, small */
    frame(w, 0x7778, HIPR_FLAG_NO_REPLY, NULL, 0, NULL, 8); /* unknown, deferred */
    u64_frame(w, HIPR_OP_PING, 0, 1, NULL, 0);
    {
        ENC(memcpy_h2d, .dst = 0x1000, .stream = 0);
        frame(w, HIPR_OP_MEMCPY_H2D, HIPR_FLAG_NO_REPLY, memcpy_h2d_b, sizeof memcpy_h2d_b, NULL,
              8);
    }
    u64_frame(w, HIPR_OP_PING, 0, 2, NULL, 0);
    hello_frame(w, 0); /* a second HELLO ends the session */
}

typedef void (*seed_fn)(struct seed_writer *w);
static const seed_fn seeds[] = {
    seed_handshake, seed_status,          seed_status_hello,   seed_device,  seed_copies,
    seed_copies_2d, seed_big_h2d,         seed_streams_events, seed_modules, seed_bad_frames,
    seed_info,      seed_info_in_session, seed_resume,         seed_route,
};

size_t fuzz_seed_count(void)
{
    return sizeof seeds / sizeof seeds[0];
}

size_t fuzz_seed_build(size_t i, uint8_t *out, size_t cap)
{
    struct seed_writer w = { out, cap, 0, 0, 0 };
    if (i >= fuzz_seed_count() || cap < 1)
        return 0;
    seeds[i](&w);
    return w.overflow ? 0 : w.len;
}
