/*
 * raw_client.c - see raw_client.h.
 */
#include "raw_client.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hw_net.h"

const char *raw_current_check = "(setup)";

void raw_begin(const char *name)
{
    raw_current_check = name;
    printf("check: %s ...\n", name);
    fflush(stdout);
}

void raw_pass(void)
{
    printf("ok: %s\n", raw_current_check);
    fflush(stdout);
}

void raw_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "FAILED: %s\n  %s:%d: %s\n  ", raw_current_check, file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void raw_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t raw_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

int raw_connect(struct raw_conn *c)
{
    const char *host = getenv("TF_WORKER_HOST");
    const char *port = getenv("TF_WORKER_PORT");
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->next_id = 1;
    if (!host || !port) {
        fprintf(stderr,
                "raw_client: TF_WORKER_HOST/TF_WORKER_PORT not set (run under with_worker)\n");
        return -1;
    }
    int err = hw_tcp_connect(host, atoi(port), 5000, &c->fd);
    if (err < 0) {
        fprintf(stderr, "raw_client: connect %s:%s: %s\n", host, port, strerror(-err));
        c->fd = -1;
        return -1;
    }
    return 0;
}

void raw_close(struct raw_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

int raw_send_bytes(struct raw_conn *c, const void *buf, size_t n)
{
    return hw_write_full(c->fd, buf, n); /* MSG_NOSIGNAL: a closed peer is EPIPE */
}

uint32_t raw_send_header(struct raw_conn *c, uint16_t opcode, uint32_t flags,
                         uint64_t payload_length, int *err)
{
    return raw_send(c, opcode, flags, NULL, 0, NULL, payload_length, err);
}

uint32_t raw_send(struct raw_conn *c, uint16_t opcode, uint32_t flags, const void *fixed,
                  size_t fixed_len, const void *tail, size_t tail_len, int *err)
{
    uint8_t hdr[HIPR_HEADER_SIZE];
    struct hipr_header h = {
        .magic = HIPR_MAGIC,
        .version = HIPR_VERSION,
        .opcode = opcode,
        .request_id = c->next_id++,
        .flags = flags,
        .payload_length = fixed_len + tail_len,
    };
    hipr_header_encode(hdr, &h);
    /* raw_send_header passes a length with no tail: send the header alone. */
    struct iovec iov[3] = {
        { hdr, sizeof hdr },
        { (void *)fixed, fixed_len },
        { (void *)tail, tail ? tail_len : 0 },
    };
    int rc = hw_writev_full(c->fd, iov, 3);
    if (err)
        *err = rc;
    return h.request_id;
}

/* Reads exactly n bytes, waiting at most until deadline. */
static int read_deadline(int fd, void *buf, size_t n, int64_t deadline)
{
    uint8_t *p = buf;
    while (n > 0) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return RAW_TIMEOUT;
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int pr = poll(&pfd, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            return RAW_TIMEOUT;
        ssize_t r = recv(fd, p, n, 0);
        if (r > 0) {
            p += r;
            n -= (size_t)r;
        } else if (r == 0 || errno != EINTR) {
            return RAW_EOF; /* FIN or RST: the worker is gone either way */
        }
    }
    return 0;
}

int raw_recv(struct raw_conn *c, struct raw_reply *r, int timeout_ms)
{
    uint8_t hdr[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    const struct hipr_op_info *info;
    int64_t deadline = now_ms() + timeout_ms;
    memset(r, 0, sizeof *r);
    int rc = read_deadline(c->fd, hdr, HIPR_HEADER_SIZE, deadline);
    if (rc < 0)
        return rc;
    hipr_header_decode(hdr, &r->h);
    /* The worker is checked as strictly as it checks us. */
    enum hipr_check chk = hipr_check_reply(&r->h, &info);
    /* An opcode the worker does not know can only get a bare error reply. */
    if (chk == HIPR_EOPCODE && r->h.magic == HIPR_MAGIC && r->h.version == HIPR_VERSION &&
        r->h.payload_length == HIPR_reply_hdr_SIZE)
        chk = HIPR_OK;
    if (chk != HIPR_OK || !(r->h.flags & HIPR_FLAG_RESPONSE)) {
        fprintf(stderr, "raw_client: malformed reply (opcode 0x%04x, flags 0x%x, length %llu)\n",
                r->h.opcode, r->h.flags, (unsigned long long)r->h.payload_length);
        return RAW_BADREPLY;
    }
    rc = read_deadline(c->fd, hdr + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE, deadline);
    if (rc < 0)
        return rc;
    hipr_reply_hdr_decode(hdr + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE, &r->rh);
    r->body_len = (size_t)(r->h.payload_length - HIPR_reply_hdr_SIZE);
    r->body = malloc(r->body_len ? r->body_len : 1);
    if (!r->body)
        return RAW_BADREPLY;
    rc = read_deadline(c->fd, r->body, r->body_len, deadline);
    if (rc < 0) {
        raw_reply_free(r);
        return rc;
    }
    return 0;
}

void raw_reply_free(struct raw_reply *r)
{
    free(r->body);
    r->body = NULL;
    r->body_len = 0;
}

int raw_call(struct raw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
             const void *tail, size_t tail_len, struct raw_reply *r)
{
    int err;
    uint32_t id = raw_send(c, opcode, 0, fixed, fixed_len, tail, tail_len, &err);
    memset(r, 0, sizeof *r);
    if (err < 0)
        return RAW_EOF;
    int rc = raw_recv(c, r, RAW_TIMEOUT_MS);
    /* The worker's own heartbeats and acknowledgements (request_id 0) may
     * arrive before the reply at any time: a client passes over them. */
    while (rc == 0 && r->h.request_id == 0 &&
           (r->h.opcode == HIPR_OP_HEARTBEAT || r->h.opcode == HIPR_OP_ACK)) {
        raw_reply_free(r);
        rc = raw_recv(c, r, RAW_TIMEOUT_MS);
    }
    if (rc < 0)
        return rc;
    if (r->h.request_id != id || r->h.opcode != opcode) {
        fprintf(stderr, "raw_client: reply for request %u (opcode 0x%04x), expected %u (0x%04x)\n",
                r->h.request_id, r->h.opcode, id, opcode);
        raw_reply_free(r);
        return RAW_BADREPLY;
    }
    /* The ERROR flag and the status must agree. */
    if (!!(r->h.flags & HIPR_FLAG_ERROR) != (r->rh.status != 0)) {
        fprintf(stderr, "raw_client: ERROR flag 0x%x disagrees with status %d\n", r->h.flags,
                r->rh.status);
        raw_reply_free(r);
        return RAW_BADREPLY;
    }
    return 0;
}

int raw_status(struct raw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
               const void *tail, size_t tail_len)
{
    struct raw_reply r;
    int rc = raw_call(c, opcode, fixed, fixed_len, tail, tail_len, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    raw_reply_free(&r);
    return rc;
}

int raw_hello(struct raw_conn *c)
{
    struct hipr_hello_req req = { .proto_min = HIPR_VERSION,
                                  .proto_max = HIPR_VERSION,
                                  .client_pid = (uint32_t)getpid() };
    uint8_t fixed[HIPR_hello_req_SIZE];
    struct raw_reply r;
    struct hipr_hello_rep rep;
    hipr_hello_req_encode(fixed, &req);
    if (raw_call(c, HIPR_OP_HELLO, fixed, sizeof fixed, NULL, 0, &r) < 0)
        return -1;
    int ok = r.rh.status == 0 && hipr_hello_rep_decode(r.body, r.body_len, &rep) == 0 &&
             rep.proto_version == HIPR_VERSION && rep.device_count > 0;
    if (ok) {
        c->session_id = rep.session_id;
        c->session_pid = rep.worker_pid;
        snprintf(c->backend, sizeof c->backend, "%.31s", rep.backend);
    }
    raw_reply_free(&r);
    return ok ? 0 : -1;
}

int raw_malloc(struct raw_conn *c, uint64_t size, uint64_t *ptr)
{
    struct hipr_malloc_req m = { .device = 0, .size = size };
    uint8_t fixed[HIPR_malloc_req_SIZE];
    struct raw_reply r;
    struct hipr_ptr p;
    hipr_malloc_req_encode(fixed, &m);
    int rc = raw_call(c, HIPR_OP_MALLOC, fixed, sizeof fixed, NULL, 0, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0 && hipr_ptr_decode(r.body, r.body_len, &p) == 0)
        *ptr = p.ptr;
    else if (rc == 0)
        rc = RAW_BADREPLY;
    raw_reply_free(&r);
    return rc;
}

int raw_wait_closed(struct raw_conn *c, int timeout_ms)
{
    int64_t deadline = now_ms() + timeout_ms;
    uint8_t sink[65536];
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return 0;
        struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
        int pr = poll(&pfd, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            return 0;
        ssize_t r = recv(c->fd, sink, sizeof sink, 0);
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
            return 1;
    }
}

int raw_worker_status(struct raw_worker_status *st)
{
    struct raw_conn c;
    struct raw_reply r;
    struct hipr_worker_status_rep rep;
    int rc = -1;
    memset(st, 0, sizeof *st);
    if (raw_connect(&c) < 0)
        return -1;
    if (raw_call(&c, HIPR_OP_WORKER_STATUS, NULL, 0, NULL, 0, &r) < 0)
        goto out;
    if (r.rh.status != 0 || hipr_worker_status_rep_decode(r.body, r.body_len, &rep) < 0)
        goto out_reply;
    size_t tail = r.body_len - HIPR_worker_status_rep_SIZE;
    if (tail != (size_t)rep.sessions * HIPR_session_entry_SIZE)
        goto out_reply;
    st->sessions = rep.sessions;
    st->bytes_in_use = rep.bytes_in_use;
    st->sessions_served = rep.sessions_served;
    for (uint32_t i = 0; i < rep.sessions && i < 64; i++) {
        hipr_session_entry_decode(r.body + HIPR_worker_status_rep_SIZE +
                                      i * HIPR_session_entry_SIZE,
                                  HIPR_session_entry_SIZE, &st->entry[i]);
        st->entries++;
    }
    rc = 0;
out_reply:
    raw_reply_free(&r);
out:
    raw_close(&c);
    return rc;
}

int raw_wait_worker_idle(uint32_t max_sessions, uint64_t max_bytes, int timeout_ms,
                         struct raw_worker_status *last)
{
    int64_t deadline = now_ms() + timeout_ms;
    for (;;) {
        int rc = raw_worker_status(last);
        if (rc == 0 && last->sessions <= max_sessions && last->bytes_in_use <= max_bytes)
            return 0;
        if (now_ms() >= deadline)
            return -1;
        raw_sleep_ms(50);
    }
}

int raw_log_count(const char *needle1, const char *needle2)
{
    const char *path = getenv("HIPWIRE_WORKER_LOG");
    char line[2048];
    int n = 0;
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        n += strstr(line, needle1) && (!needle2 || strstr(line, needle2));
    fclose(f);
    return n;
}

int raw_log_has(const char *needle1, const char *needle2)
{
    return raw_log_count(needle1, needle2) > 0;
}
