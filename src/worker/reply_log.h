/*
 * reply_log.h - replies a resumable session keeps until its client has
 * acknowledged them (docs/protocol.md, "Session resume").
 *
 * A cut can swallow a reply the worker already wrote, and running the
 * request again is wrong (a D2H copy re-run after later requests changed
 * its source returns other bytes), so every reply is kept, byte for byte,
 * until the client says it has read it. Replies are numbered in the order
 * they were sent; on resume those after the client's count go out again.
 *
 * Tails are kept three ways: copied (small ones), handed over (a staging
 * buffer the reply was sent from), or borrowed (device memory nothing
 * queued can change; reply_log_snapshot() copies them before the next
 * request runs, and in the common case the client's acknowledgement,
 * which travels in front of that request, arrives first and no copy is
 * made). Not thread-safe: the session's send_lock guards it.
 */
#ifndef REPLY_LOG_H
#define REPLY_LOG_H

#include <stddef.h>
#include <stdint.h>

struct reply_entry;

struct reply_log {
    struct reply_entry *first, *last;
    uint64_t sent;     /* replies numbered so far (the last one's number) */
    uint64_t acked;    /* the client has read replies 1..acked */
    uint64_t bytes;    /* kept, heads and tails */
    unsigned borrowed; /* entries whose tail is still borrowed */
    /* Gives a handed-over buffer back (the session's buffer cache). */
    void (*release)(void *ctx, void *buf);
    void *ctx;
};

enum reply_tail {
    REPLY_TAIL_COPY,   /* copied into the entry */
    REPLY_TAIL_GIVE,   /* the buffer `owned` is the log's from now on */
    REPLY_TAIL_BORROW, /* points into memory that stays put until the next request */
};

void reply_log_init(struct reply_log *log, void (*release)(void *ctx, void *buf), void *ctx);

/* Keeps one reply: its frame and reply headers (hdr), body and tail. 0, or
 * -1 when out of memory (nothing kept; the caller still owns `owned`). */
int reply_log_add(struct reply_log *log, const void *hdr, size_t hdr_len, const void *body,
                  size_t body_len, const void *tail, uint64_t tail_len, enum reply_tail how,
                  void *owned);

/* The client has read replies 1..count: forget them. */
void reply_log_ack(struct reply_log *log, uint64_t count);

/* Copies every borrowed tail. 0, or -1 when out of memory. */
int reply_log_snapshot(struct reply_log *log);

/* Calls send(ctx, head, head_len, tail, tail_len) for every reply after
 * `after`, in order; stops at the first failure. 0, or -1. Callers first
 * check reply_log_has(log, after). */
int reply_log_resend(struct reply_log *log, uint64_t after,
                     int (*send)(void *ctx, const void *head, size_t head_len, const void *tail,
                                 uint64_t tail_len),
                     void *ctx);

/* Whether every reply after `after` is still kept. */
int reply_log_has(const struct reply_log *log, uint64_t after);

/* Forgets everything (the session ends, or stops being resumable). */
void reply_log_clear(struct reply_log *log);

#endif
