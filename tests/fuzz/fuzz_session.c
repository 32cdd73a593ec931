/*
 * fuzz_session.c - see fuzz_session.h.
 *
 * Two passes per input:
 *  1. The decoders alone, as the worker applies them: header decode,
 *     hipr_check_request, the fixed-part decoder of the opcode's message,
 *     plus every other message decoder over the same bytes, with an
 *     encode/decode round-trip property, and the client-side reply check.
 *  2. A real session: session_main() on a socketpair, fed the input frame by
 *     frame, its replies parsed and checked as a strict client would.
 */
#include "fuzz_session.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hipr.h"
#include "session_main.h"
#include "status_table.h"
#include "worker.h"

#define REPLY_WAIT_MS 2000  /* a MALLOC reply; far above what a healthy worker needs */
#define DRAIN_WAIT_MS 10000 /* the session ending after our EOF */
#define PTR_SLOTS     8

static void fatal(const char *what)
{
    fprintf(stderr, "fuzz_session: %s\n", what);
    abort();
}

/* ---- pass 1: decoders ------------------------------------------------------ */

/* Opcodes with no fields use this; hipr.h declares only real messages. */
struct hipr_empty {
    int unused;
};
static int hipr_empty_decode(const uint8_t *in, size_t len, struct hipr_empty *m)
{
    (void)in;
    (void)len;
    (void)m;
    return 0;
}
static size_t hipr_empty_encode(uint8_t *out, const struct hipr_empty *m)
{
    (void)out;
    (void)m;
    return 0;
}

/* encode(decode(x)) decodes to the same encoding: codecs agree with each
 * other and never read or write past their fixed size. */
#define ROUND_TRIP_(name)                                                                      \
    do {                                                                                       \
        struct hipr_##name a_, b_;                                                             \
        uint8_t e1_[HIPR_##name##_SIZE + 1], e2_[HIPR_##name##_SIZE + 1];                      \
        memset(&a_, 0, sizeof a_);                                                             \
        memset(&b_, 0, sizeof b_);                                                             \
        if (hipr_##name##_decode(p, n, &a_) == 0) {                                            \
            size_t l1_ = hipr_##name##_encode(e1_, &a_);                                       \
            if (l1_ != (size_t)HIPR_##name##_SIZE || hipr_##name##_decode(e1_, l1_, &b_) != 0) \
                fatal("codec size mismatch: " #name);                                          \
            size_t l2_ = hipr_##name##_encode(e2_, &b_);                                       \
            if (l2_ != l1_ || memcmp(e1_, e2_, l1_) != 0)                                      \
                fatal("codec round trip differs: " #name);                                     \
        } else if (n >= (size_t)HIPR_##name##_SIZE) {                                          \
            fatal("decoder refused a long enough buffer: " #name);                             \
        }                                                                                      \
    } while (0)

static void decode_all_messages(const uint8_t *p, size_t n)
{
#define DECODE_ONE_(name, FIELDS) ROUND_TRIP_(name);
    HIPR_MESSAGES(DECODE_ONE_)
#undef DECODE_ONE_
}

/* The fixed part exactly as the worker decodes it for this opcode. */
static void decode_request_fixed(uint16_t opcode, const uint8_t *p, size_t n)
{
    switch (opcode) {
#define FIXED_CASE_(NAME, num, req, rep, rcap, pcap, kind)                       \
    case num: {                                                                  \
        struct hipr_##req m_;                                                    \
        if (hipr_##req##_decode(p, n, &m_) != 0)                                 \
            fatal("fixed part shorter than hipr_check_request allowed: " #NAME); \
        (void)hipr_##req##_encode;                                               \
        break;                                                                   \
    }
        HIPR_OPS(FIXED_CASE_)
#undef FIXED_CASE_
    default: fatal("hipr_check_request accepted an opcode with no message");
    }
}

static void decode_pass(const uint8_t *data, size_t size)
{
    while (size >= HIPR_HEADER_SIZE) {
        struct hipr_header h;
        const struct hipr_op_info *info = NULL, *rinfo = NULL;
        hipr_header_decode(data, &h);
        data += HIPR_HEADER_SIZE;
        size -= HIPR_HEADER_SIZE;
        uint64_t avail = h.payload_length < size ? h.payload_length : size;
        enum hipr_check c = hipr_check_request(&h, &info);
        (void)hipr_check_str(c);
        (void)hipr_check_reply(&h, &rinfo);
        if (c == HIPR_OK) {
            if (!info || info->opcode != h.opcode || hipr_op_lookup(h.opcode) != info)
                fatal("hipr_check_request returned the wrong op entry");
            if (h.payload_length < info->request_size ||
                h.payload_length - info->request_size > info->request_tail_cap)
                fatal("hipr_check_request accepted a length outside the spec");
            if (avail >= info->request_size)
                decode_request_fixed(h.opcode, data, info->request_size);
        } else if (c == HIPR_ETOOBIG && info) {
            fatal("info_out written on failure");
        }
        decode_all_messages(data, (size_t)avail);
        data += avail;
        size -= (size_t)avail;
    }
}

/* ---- pass 2: a real session ------------------------------------------------ */

static struct worker_config fuzz_cfg = {
    .bind = "fuzz",
    .port = 0,
    .backend = "cpu",
    .max_sessions = 4,
    .mem_limit = 1u << 20, /* keeps every copy, memset and allocation small */
    .cpu_devices = 2,
    .handshake_timeout_ms = 1000,
    .max_handles = 64,
    .max_module_size = 1u << 20,
    .max_inflight = 4u << 20,
};
static struct status_table *fuzz_table;
static uint64_t fuzz_session_id;

struct session_thread {
    int fd;
    uint64_t id;
};

static void *session_thread_main(void *arg)
{
    struct session_thread *t = arg;
    session_main(t->fd, &fuzz_cfg, fuzz_table, t->id);
    return NULL;
}

/* Incremental parser of the worker's replies, checked like a strict client. */
struct rx {
    uint8_t hdr[HIPR_HEADER_SIZE];
    size_t hdr_have;
    struct hipr_header h;
    uint64_t payload_left;
    uint8_t head[HIPR_reply_hdr_SIZE + 8]; /* reply_hdr + a MALLOC's ptr */
    size_t head_have;
    int eof;
    /* The MALLOC reply we wait for. */
    uint32_t want_id;
    int want_done;
    int32_t want_status;
    uint64_t want_ptr;
};

static void rx_frame_done(struct rx *r)
{
    if (r->h.request_id == r->want_id && r->h.opcode == HIPR_OP_MALLOC) {
        struct hipr_reply_hdr rh;
        r->want_done = 1;
        r->want_status = -1;
        if (r->head_have >= HIPR_reply_hdr_SIZE) {
            hipr_reply_hdr_decode(r->head, r->head_have, &rh);
            r->want_status = rh.status;
            if (rh.status == 0 && r->head_have == sizeof r->head)
                r->want_ptr = hipr_get_u64(r->head + HIPR_reply_hdr_SIZE);
        }
    }
    r->hdr_have = 0;
    r->head_have = 0;
}

static void rx_header(struct rx *r)
{
    const struct hipr_op_info *info;
    hipr_header_decode(r->hdr, &r->h);
    enum hipr_check c = hipr_check_reply(&r->h, &info);
    /* An unknown opcode gets a bare error reply, nothing else. */
    if (c == HIPR_EOPCODE && r->h.magic == HIPR_MAGIC && r->h.version == HIPR_VERSION &&
        r->h.payload_length == HIPR_reply_hdr_SIZE)
        c = HIPR_OK;
    if (c != HIPR_OK || !(r->h.flags & HIPR_FLAG_RESPONSE))
        fatal("the worker sent a malformed reply header");
    r->payload_left = r->h.payload_length;
}

static void rx_feed(struct rx *r, const uint8_t *p, size_t n)
{
    while (n > 0) {
        if (r->hdr_have < HIPR_HEADER_SIZE) {
            size_t k = HIPR_HEADER_SIZE - r->hdr_have;
            if (k > n)
                k = n;
            memcpy(r->hdr + r->hdr_have, p, k);
            r->hdr_have += k;
            p += k;
            n -= k;
            if (r->hdr_have < HIPR_HEADER_SIZE)
                return;
            rx_header(r);
            if (r->payload_left == 0) {
                rx_frame_done(r);
                continue;
            }
        }
        size_t k = r->payload_left < n ? (size_t)r->payload_left : n;
        size_t keep = sizeof r->head - r->head_have;
        if (keep > k)
            keep = k;
        memcpy(r->head + r->head_have, p, keep);
        r->head_have += keep;
        r->payload_left -= k;
        p += k;
        n -= k;
        if (r->payload_left == 0)
            rx_frame_done(r);
    }
}

/* Reads what is available (waiting up to timeout_ms for the first byte). */
static void rx_poll(int fd, struct rx *r, int timeout_ms)
{
    uint8_t buf[65536];
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    if (r->eof || poll(&pfd, 1, timeout_ms) <= 0)
        return;
    ssize_t got = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (got > 0)
        rx_feed(r, buf, (size_t)got);
    else if (got == 0 || (errno != EAGAIN && errno != EINTR))
        r->eof = 1;
}

/* Writes all of buf while draining replies, so neither side can block the
 * other on a full socket buffer. -1 once the session has closed. */
static int tx_all(int fd, struct rx *r, const uint8_t *buf, size_t n)
{
    while (n > 0) {
        struct pollfd pfd[1] = { { .fd = fd, .events = POLLIN | POLLOUT } };
        if (poll(pfd, 1, DRAIN_WAIT_MS) <= 0)
            fatal("session neither reads nor writes for 10 s");
        if (pfd[0].revents & (POLLIN | POLLHUP))
            rx_poll(fd, r, 0);
        if (pfd[0].revents & (POLLERR | POLLHUP) && !(pfd[0].revents & POLLOUT))
            return -1;
        if (pfd[0].revents & POLLOUT) {
            ssize_t w = send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                return -1;
            if (w > 0) {
                buf += w;
                n -= (size_t)w;
            }
        }
    }
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Rewrites FUZZ_PTR placeholders in the first 64 payload bytes. */
static void patch_pointers(uint8_t *payload, size_t n, const uint64_t *slots, size_t nslots)
{
    for (size_t off = 0; off + 8 <= n && off < 64; off += 8) {
        uint64_t v = hipr_get_u64(payload + off);
        if ((v >> 40) != FUZZ_PTR_TAG)
            continue;
        size_t k = (size_t)(v >> 32) & (PTR_SLOTS - 1);
        if (k < nslots)
            hipr_put_u64(payload + off, slots[k] + (uint32_t)v);
    }
}

static void append_hello(uint8_t *out, size_t *len)
{
    struct hipr_header h = { .magic = HIPR_MAGIC,
                             .version = HIPR_VERSION,
                             .opcode = HIPR_OP_HELLO,
                             .request_id = 0xFFFFFFF0u,
                             .payload_length = HIPR_hello_req_SIZE };
    struct hipr_hello_req req = { .proto_min = 1, .proto_max = 1, .client_pid = 1 };
    hipr_header_encode(out + *len, &h);
    hipr_hello_req_encode(out + *len + HIPR_HEADER_SIZE, &req);
    *len += HIPR_HEADER_SIZE + HIPR_hello_req_SIZE;
}

static void session_pass(const uint8_t *data, size_t size)
{
    int sv[2];
    pthread_t tid;
    struct rx r;
    uint64_t slots[PTR_SLOTS];
    size_t nslots = 0;
    uint8_t *frame = NULL;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        fatal("socketpair");
    struct session_thread st = { sv[1], ++fuzz_session_id };
    if (pthread_create(&tid, NULL, session_thread_main, &st) != 0)
        fatal("pthread_create");
    memset(&r, 0, sizeof r);
    r.want_id = UINT32_MAX;

    uint8_t mode = data[0];
    data++;
    size--;
    frame = malloc(size + HIPR_HEADER_SIZE + HIPR_hello_req_SIZE + 1);
    if (!frame)
        fatal("malloc");
    if (mode & FUZZ_MODE_AUTO_HELLO) {
        size_t len = 0;
        append_hello(frame, &len);
        if (tx_all(sv[0], &r, frame, len) < 0)
            goto done;
    }
    while (size > 0) {
        /* Frame the stream by its own headers; a short tail is sent as is. */
        size_t len = size;
        struct hipr_header h;
        int valid = 0;
        if (size >= HIPR_HEADER_SIZE) {
            hipr_header_decode(data, &h);
            uint64_t rest = size - HIPR_HEADER_SIZE;
            len = HIPR_HEADER_SIZE + (size_t)(h.payload_length < rest ? h.payload_length : rest);
            valid = h.magic == HIPR_MAGIC;
        }
        memcpy(frame, data, len);
        if (valid) {
            uint8_t *payload = frame + HIPR_HEADER_SIZE;
            size_t plen = len - HIPR_HEADER_SIZE;
            patch_pointers(payload, plen, slots, nslots);
            /* Loading a CPU code object runs it (by design, docs/worker.md):
             * never hand the loader an ELF, so the harness tests the worker,
             * not the dynamic linker. */
            if (h.opcode == HIPR_OP_MODULE_LOAD && plen > HIPR_module_load_req_SIZE &&
                payload[HIPR_module_load_req_SIZE] == 0x7f)
                payload[HIPR_module_load_req_SIZE] = 0;
        }
        data += len;
        size -= len;
        if (tx_all(sv[0], &r, frame, len) < 0)
            goto done;
        if (valid && h.opcode == HIPR_OP_MALLOC && !(h.flags & HIPR_FLAG_NO_REPLY)) {
            /* Wait for the address, so later frames can name it. */
            int64_t deadline = now_ms() + REPLY_WAIT_MS;
            r.want_id = h.request_id;
            r.want_done = 0;
            while (!r.want_done && !r.eof && now_ms() < deadline)
                rx_poll(sv[0], &r, 50);
            if (r.want_done && r.want_status == 0 && r.want_ptr)
                slots[nslots++ % PTR_SLOTS] = r.want_ptr;
            r.want_id = UINT32_MAX;
            if (nslots > PTR_SLOTS)
                nslots = PTR_SLOTS;
        }
    }
done:
    /* Our EOF ends the session; it then closes its end. */
    shutdown(sv[0], SHUT_WR);
    {
        int64_t deadline = now_ms() + DRAIN_WAIT_MS;
        while (!r.eof) {
            if (now_ms() > deadline)
                fatal("the session did not end within 10 s of the client's EOF");
            rx_poll(sv[0], &r, 100);
        }
    }
    pthread_join(tid, NULL);
    close(sv[0]);
    uint64_t sid;
    status_table_release_pid(fuzz_table, getpid(), &sid);
    uint64_t bytes = 0;
    if (status_table_count(fuzz_table, &bytes) != 0)
        fatal("a finished session is still in the status table");
    free(frame);
}

int fuzz_session_run(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return 0;
    if (!fuzz_table) {
        signal(SIGPIPE, SIG_IGN);
        fuzz_table = status_table_create((uint32_t)fuzz_cfg.max_sessions, fuzz_cfg.mem_limit,
                                         fuzz_cfg.backend);
        if (!fuzz_table)
            fatal("status_table_create");
    }
    decode_pass(data + 1, size - 1);
    session_pass(data, size);
    return 0;
}
