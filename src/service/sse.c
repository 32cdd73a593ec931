/* sse.c - Server-Sent Events over the response, Tensara's framing
 * ("event: NAME\ndata: JSON\n\n", with "id:" for Last-Event-ID) and
 * headers; a heartbeat every 15 s while nothing else happens. Each event
 * is written the moment it is appended (submission.c wakes the stream). */
#include "hw_alloc.h"
#include "service.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#define HEARTBEAT_S 15

struct stream {
    struct submission *s;
    long next;
    char *pending;
    size_t plen, poff;
};

static void set_pending(struct stream *st, char *text)
{
    free(st->pending);
    st->pending = text;
    st->plen = text ? strlen(text) : 0;
    st->poff = 0;
}

static char *frame(long id, const char *name, const char *data)
{
    size_t n = strlen(name) + strlen(data) + 64;
    char *f = hw_malloc(n);
    if (f) {
        if (id >= 0)
            snprintf(f, n, "id: %ld\nevent: %s\ndata: %s\n\n", id, name, data);
        else
            snprintf(f, n, "event: %s\ndata: %s\n\n", name, data);
    }
    return f;
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct stream *st = cls;
    struct submission *s = st->s;
    while (st->poff >= st->plen) {
        pthread_mutex_lock(&s->mu);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += HEARTBEAT_S;
        int timed_out = 0;
        while (st->next >= s->nev && !s->done && !timed_out)
            timed_out = pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT;
        if (st->next < s->nev) {
            struct sevent *e = &s->ev[st->next++];
            set_pending(st, frame(e->seq, e->name, e->data));
            pthread_mutex_unlock(&s->mu);
        } else if (s->done) {
            pthread_mutex_unlock(&s->mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        } else {
            pthread_mutex_unlock(&s->mu);
            char data[96];
            snprintf(data, sizeof data, "{\"timestamp\":%.0f,\"submission_id\":\"%s\"}",
                     now_s() * 1000, s->id);
            set_pending(st, frame(-1, "heartbeat", data));
        }
        if (!st->pending)
            return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t n = st->plen - st->poff;
    if (n > max)
        n = max;
    memcpy(buf, st->pending + st->poff, n);
    st->poff += n;
    return (ssize_t)n;
}

static void release(void *cls)
{
    struct stream *st = cls;
    free(st->pending);
    sub_put(st->s);
    free(st);
}

static void sse_headers(struct MHD_Response *r)
{
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache, no-transform");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    MHD_add_response_header(r, "Content-Encoding", "identity");
}

/* Streams s from event after+1 on; takes the caller's reference to s. */
int sse_stream_live(struct MHD_Connection *c, struct submission *s, long after, int status)
{
    struct stream *st = hw_calloc(1, sizeof *st);
    if (!st) {
        sub_put(s);
        return MHD_NO;
    }
    st->s = s;
    st->next = after + 1;
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, reader, st, release);
    if (!r) {
        release(st);
        return MHD_NO;
    }
    sse_headers(r);
    int rc = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

/* A finished submission's events from the store, as one SSE body. */
int sse_stream_stored(struct MHD_Connection *c, json_t *events)
{
    size_t cap = 4096, len = 0;
    char *body = hw_malloc(cap);
    size_t i;
    json_t *e;
    if (!body) {
        json_decref(events);
        return MHD_NO;
    }
    body[0] = '\0';
    json_array_foreach(events, i, e)
    {
        char *data = json_dumps(json_object_get(e, "data"), JSON_COMPACT | JSON_ENCODE_ANY);
        char *f = frame((long)json_integer_value(json_object_get(e, "id")),
                        json_string_value(json_object_get(e, "event")), data ? data : "null");
        free(data);
        if (!f)
            continue;
        size_t n = strlen(f);
        if (len + n + 1 > cap) {
            while (len + n + 1 > cap)
                cap *= 2;
            char *b = hw_realloc(body, cap);
            if (!b) {
                free(f);
                break;
            }
            body = b;
        }
        memcpy(body + len, f, n + 1);
        len += n;
        free(f);
    }
    json_decref(events);
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    sse_headers(r);
    int rc = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}
