/* reply_log.c - see reply_log.h. */
#include "reply_log.h"

#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"

struct reply_entry {
    struct reply_entry *next;
    uint64_t seq;
    size_t head_len;
    uint64_t tail_len;
    const uint8_t *tail;
    void *owned; /* handed over: given back through log->release */
    void *copy;  /* malloc'd snapshot of a borrowed tail */
    int borrowed;
    uint8_t bytes[]; /* head, then a copied tail */
};

void reply_log_init(struct reply_log *log, void (*release)(void *ctx, void *buf), void *ctx)
{
    memset(log, 0, sizeof *log);
    log->release = release;
    log->ctx = ctx;
}

int reply_log_add(struct reply_log *log, const void *hdr, size_t hdr_len, const void *body,
                  size_t body_len, const void *tail, uint64_t tail_len, enum reply_tail how,
                  void *owned)
{
    size_t head_len = hdr_len + body_len;
    size_t inline_tail = how == REPLY_TAIL_COPY ? (size_t)tail_len : 0;
    struct reply_entry *e = hw_malloc(sizeof *e + head_len + inline_tail);
    if (!e)
        return -1;
    memset(e, 0, sizeof *e);
    e->seq = ++log->sent;
    e->head_len = head_len;
    e->tail_len = tail_len;
    memcpy(e->bytes, hdr, hdr_len);
    if (body_len)
        memcpy(e->bytes + hdr_len, body, body_len);
    switch (how) {
    case REPLY_TAIL_COPY:
        if (tail_len)
            memcpy(e->bytes + head_len, tail, (size_t)tail_len);
        e->tail = e->bytes + head_len;
        break;
    case REPLY_TAIL_GIVE:
        e->tail = tail;
        e->owned = owned;
        break;
    case REPLY_TAIL_BORROW:
        e->tail = tail;
        e->borrowed = tail_len != 0;
        log->borrowed += (unsigned)e->borrowed;
        break;
    }
    log->bytes += head_len + tail_len;
    if (log->last)
        log->last->next = e;
    else
        log->first = e;
    log->last = e;
    return 0;
}

static void entry_free(struct reply_log *log, struct reply_entry *e)
{
    log->bytes -= e->head_len + e->tail_len;
    log->borrowed -= (unsigned)e->borrowed;
    if (e->owned)
        log->release(log->ctx, e->owned);
    free(e->copy);
    free(e);
}

void reply_log_ack(struct reply_log *log, uint64_t count)
{
    if (count > log->sent)
        count = log->sent; /* a confused client cannot make us forget the future */
    if (count > log->acked)
        log->acked = count;
    while (log->first && log->first->seq <= log->acked) {
        struct reply_entry *e = log->first;
        log->first = e->next;
        if (!log->first)
            log->last = NULL;
        entry_free(log, e);
    }
}

int reply_log_snapshot(struct reply_log *log)
{
    for (struct reply_entry *e = log->first; e && log->borrowed; e = e->next) {
        if (!e->borrowed)
            continue;
        void *copy = hw_malloc((size_t)e->tail_len);
        if (!copy)
            return -1;
        memcpy(copy, e->tail, (size_t)e->tail_len);
        e->copy = copy;
        e->tail = copy;
        e->borrowed = 0;
        log->borrowed--;
    }
    return 0;
}

int reply_log_has(const struct reply_log *log, uint64_t after)
{
    if (after > log->sent)
        return 0;
    if (after == log->sent)
        return 1;
    return log->first && log->first->seq <= after + 1;
}

int reply_log_resend(struct reply_log *log, uint64_t after,
                     int (*send)(void *ctx, const void *head, size_t head_len, const void *tail,
                                 uint64_t tail_len),
                     void *ctx)
{
    for (struct reply_entry *e = log->first; e; e = e->next)
        if (e->seq > after && send(ctx, e->bytes, e->head_len, e->tail, e->tail_len) < 0)
            return -1;
    return 0;
}

void reply_log_clear(struct reply_log *log)
{
    while (log->first) {
        struct reply_entry *e = log->first;
        log->first = e->next;
        entry_free(log, e);
    }
    log->last = NULL;
    log->bytes = 0;
    log->borrowed = 0;
}
