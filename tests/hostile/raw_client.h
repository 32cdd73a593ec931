/*
 * raw_client.h - a deliberately thin HIPR client for hostile-input tests.
 *
 * It speaks the wire protocol directly (no proxy, no retries, no checks on
 * what it is asked to send), so a test can put any header, length or pointer
 * on the wire and look at exactly what the worker answers. Replies are read
 * with a deadline: a worker that hangs fails the test instead of hanging it.
 */
#ifndef HIPWIRE_RAW_CLIENT_H
#define HIPWIRE_RAW_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "hipr.h"

#define RAW_TIMEOUT_MS 10000

struct raw_conn {
    int fd;
    uint32_t next_id;
    uint64_t session_id;  /* from the HELLO reply */
    uint32_t session_pid; /* the session process (hello_rep.worker_pid) */
    char backend[32];     /* hello_rep.backend: "cpu", "cuda", "hip" */
};

struct raw_reply {
    struct hipr_header h;
    struct hipr_reply_hdr rh;
    uint8_t *body; /* payload after the reply header (malloc'd) */
    size_t body_len;
};

/* Results of raw_recv and raw_call besides 0. */
enum { RAW_EOF = -1, RAW_TIMEOUT = -2, RAW_BADREPLY = -3 };

/* Connects to TF_WORKER_HOST:TF_WORKER_PORT. 0 or -1. */
int raw_connect(struct raw_conn *c);
void raw_close(struct raw_conn *c);

/* Writes arbitrary bytes; -1 when the worker has closed the connection. */
int raw_send_bytes(struct raw_conn *c, const void *buf, size_t n);
/* Writes one frame header with any payload_length; returns its request id. */
uint32_t raw_send_header(struct raw_conn *c, uint16_t opcode, uint32_t flags,
                         uint64_t payload_length, int *err);
/* Writes a whole frame: header, fixed part, tail. Returns the request id. */
uint32_t raw_send(struct raw_conn *c, uint16_t opcode, uint32_t flags, const void *fixed,
                  size_t fixed_len, const void *tail, size_t tail_len, int *err);

/* Reads one reply within timeout_ms. 0, RAW_EOF, RAW_TIMEOUT or RAW_BADREPLY. */
int raw_recv(struct raw_conn *c, struct raw_reply *r, int timeout_ms);
void raw_reply_free(struct raw_reply *r);

/* Sends a request without NO_REPLY and reads its reply (skipping none:
 * the next reply must be this request's). Returns raw_recv's result. */
int raw_call(struct raw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
             const void *tail, size_t tail_len, struct raw_reply *r);
/* raw_call that returns the reply's status, or a negative RAW_* value. */
int raw_status(struct raw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
               const void *tail, size_t tail_len);

/* HELLO; fills session_id and session_pid. 0 or -1. */
int raw_hello(struct raw_conn *c);
/* MALLOC on device 0; 0 and *ptr, or the failing status. */
int raw_malloc(struct raw_conn *c, uint64_t size, uint64_t *ptr);

/* True when the worker closes the connection within timeout_ms (anything it
 * still sends first is read and dropped). */
int raw_wait_closed(struct raw_conn *c, int timeout_ms);

struct raw_worker_status {
    uint32_t sessions;
    uint64_t bytes_in_use;
    uint64_t sessions_served;
    uint32_t entries;
    struct hipr_session_entry entry[64];
};

/* WORKER_STATUS as the first request of a fresh connection. 0 or -1. */
int raw_worker_status(struct raw_worker_status *st);
/* Polls WORKER_STATUS until the worker reports at most max_sessions sessions
 * and at most max_bytes bytes in use, or timeout_ms passes. 0 when reached. */
int raw_wait_worker_idle(uint32_t max_sessions, uint64_t max_bytes, int timeout_ms,
                         struct raw_worker_status *last);

/* Lines of the worker log (HIPWIRE_WORKER_LOG) holding needle1 and, unless
 * NULL, needle2; -1 when the log cannot be read. */
int raw_log_count(const char *needle1, const char *needle2);
/* Whether the worker log has a line with both needles. */
int raw_log_has(const char *needle1, const char *needle2);

/* A deterministic xorshift generator for random bytes. */
uint64_t raw_rand(uint64_t *state);

void raw_sleep_ms(int ms);

/* Test checks: print the check's name and why, exit non-zero. */
extern const char *raw_current_check;
void raw_begin(const char *name);
void raw_pass(void);
#define EXPECT(cond, ...)                                     \
    do {                                                      \
        if (!(cond)) {                                        \
            raw_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
        }                                                     \
    } while (0)
void raw_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

#endif
