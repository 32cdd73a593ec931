/*
 * ops_stream.c - streams, events and stream memory operations.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "ops.h"

HANDLER(STREAM_CREATE)
{
    struct hipr_stream_create m;
    (void)h;
    hipr_stream_create_decode(fixed, HIPR_stream_create_SIZE, &m);
    if (m.stream < HIPR_FIRST_STREAM_ID || handle_map_get(&s->res.streams, m.stream))
        return HW_EHANDLE;
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    int rc = quota_stream(&s->lim);
    if (rc != HW_OK)
        return rc;
    struct s_stream *st = hw_calloc(1, sizeof *st);
    if (!st)
        return HW_ENOMEM;
    rc = s->ops->stream_create(s->be, m.device, m.flags, m.priority, &st->bs);
    if (rc != HW_OK) {
        free(st);
        return rc;
    }
    st->device = m.device;
    st->flags = m.flags;
    st->priority = m.priority;
    if (handle_map_put(&s->res.streams, m.stream, st) < 0) {
        s->ops->stream_destroy(s->be, st->bs);
        free(st);
        return HW_ENOMEM;
    }
    quota_streams_changed(&s->lim);
    return HW_OK;
}

HANDLER(STREAM_DESTROY)
{
    struct hipr_stream m;
    (void)h;
    hipr_stream_decode(fixed, HIPR_stream_SIZE, &m);
    struct s_stream *st = handle_map_del(&s->res.streams, m.stream);
    if (!st)
        return HW_EHANDLE;
    inflight_checkpoint(&s->lim, st->bs, &st->uncovered); /* runs before the stream goes */
    s->ops->stream_destroy(s->be, st->bs);
    free(st);
    quota_streams_changed(&s->lim);
    return HW_OK;
}

HANDLER(STREAM_SYNCHRONIZE)
{
    struct hipr_stream m;
    struct hw_bstream *bs;
    int dev, rc;
    hipr_stream_decode(fixed, HIPR_stream_SIZE, &m);
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    /* Nothing queued on the device: answer now instead of a trip through
     * the stream's thread (a synchronous copy's second half; it was most of
     * a small copy's time on the CPU device). */
    if (ops_device_idle(s, dev)) {
        slink_reply(&s->link, h->opcode, h->request_id, HW_OK, NULL, 0, NULL, 0);
        return HW_OK;
    }
    struct pending *p = ops_pending_new(s, h);
    if (!p)
        return HW_ENOMEM;
    rc = s->ops->stream_callback(s->be, bs, ops_pending_done, p);
    if (rc != HW_OK)
        ops_pending_free(p);
    return rc;
}

HANDLER(STREAM_QUERY)
{
    struct hipr_stream m;
    struct hw_bstream *bs;
    int dev, rc;
    hipr_stream_decode(fixed, HIPR_stream_SIZE, &m);
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    rc = s->ops->stream_query(s->be, bs);
    slink_reply(&s->link, h->opcode, h->request_id, rc, NULL, 0, NULL, 0);
    return HW_OK;
}

HANDLER(STREAM_WAIT_EVENT)
{
    struct hipr_stream_wait_event m;
    struct hw_bstream *bs;
    int dev, rc;
    (void)h;
    hipr_stream_wait_event_decode(fixed, HIPR_stream_wait_event_SIZE, &m);
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    struct s_event *ev = handle_map_get(&s->res.events, m.event);
    if (!ev)
        return HW_EHANDLE;
    rc = s->ops->stream_wait_event(s->be, bs, ev->be);
    if (rc == HW_OK)
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

/* A stream value operation's word: 4 or 8 bytes, naturally aligned (the
 * device accesses it atomically), inside one of the session's allocations. */
static int check_value_word(struct session *s, const struct hipr_stream_value *m)
{
    if (m->width != 4 && m->width != 8)
        return HW_EINVAL;
    if (m->ptr % m->width != 0)
        return HW_EINVAL;
    return ops_check_range(s, m->ptr, m->width, NULL);
}

HANDLER(STREAM_WRITE_VALUE)
{
    struct hipr_stream_value m;
    struct hw_bstream *bs;
    int dev, rc;
    (void)h;
    hipr_stream_value_decode(fixed, HIPR_stream_value_SIZE, &m);
    if (m.flags != 0 || m.mask != 0)
        return HW_EINVAL;
    if ((rc = check_value_word(s, &m)) != HW_OK)
        return rc;
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    if (!HW_BACKEND_HAS(s->ops, stream_write_value))
        return HW_ENOTSUP;
    rc = s->ops->stream_write_value(s->be, bs, m.ptr, m.value, m.width);
    if (rc == HW_OK)
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(STREAM_WAIT_VALUE)
{
    struct hipr_stream_value m;
    struct hw_bstream *bs;
    int dev, rc;
    (void)h;
    hipr_stream_value_decode(fixed, HIPR_stream_value_SIZE, &m);
    if (m.flags > HIPR_WAIT_VALUE_NOR)
        return HW_EINVAL;
    if ((rc = check_value_word(s, &m)) != HW_OK)
        return rc;
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    if (!HW_BACKEND_HAS(s->ops, stream_wait_value))
        return HW_ENOTSUP;
    rc = s->ops->stream_wait_value(s->be, bs, m.ptr, m.value, m.mask, m.width, m.flags,
                                   &s->value_waits_cancel);
    if (rc == HW_OK)
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(EVENT_CREATE)
{
    struct hipr_event_create m;
    (void)h;
    hipr_event_create_decode(fixed, HIPR_event_create_SIZE, &m);
    if (m.event == 0 || handle_map_get(&s->res.events, m.event))
        return HW_EHANDLE;
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    int rc = quota_handle(&s->lim, &s->res.events, "events");
    if (rc != HW_OK)
        return rc;
    struct s_event *ev = hw_calloc(1, sizeof *ev);
    if (!ev)
        return HW_ENOMEM;
    rc = s->ops->event_create(s->be, m.device, m.flags, &ev->be);
    if (rc != HW_OK) {
        free(ev);
        return rc;
    }
    ev->device = m.device;
    ev->flags = m.flags;
    if (handle_map_put(&s->res.events, m.event, ev) < 0) {
        s->ops->event_destroy(s->be, ev->be);
        free(ev);
        return HW_ENOMEM;
    }
    return HW_OK;
}

HANDLER(EVENT_RECORD)
{
    struct hipr_event_record m;
    struct hw_bstream *bs;
    int dev, rc;
    (void)h;
    hipr_event_record_decode(fixed, HIPR_event_record_SIZE, &m);
    struct s_event *ev = handle_map_get(&s->res.events, m.event);
    if (!ev)
        return HW_EHANDLE;
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    rc = s->ops->event_record(s->be, ev->be, bs);
    if (rc == HW_OK)
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(EVENT_SYNCHRONIZE)
{
    struct hipr_event m;
    hipr_event_decode(fixed, HIPR_event_SIZE, &m);
    struct s_event *ev = handle_map_get(&s->res.events, m.event);
    if (!ev)
        return HW_EHANDLE;
    struct pending *p = ops_pending_new(s, h);
    if (!p)
        return HW_ENOMEM;
    int rc = s->ops->event_callback(s->be, ev->be, ops_pending_done, p);
    if (rc != HW_OK)
        ops_pending_free(p);
    return rc;
}

HANDLER(EVENT_QUERY)
{
    struct hipr_event m;
    hipr_event_decode(fixed, HIPR_event_SIZE, &m);
    struct s_event *ev = handle_map_get(&s->res.events, m.event);
    if (!ev)
        return HW_EHANDLE;
    slink_reply(&s->link, h->opcode, h->request_id, s->ops->event_query(s->be, ev->be), NULL, 0,
                NULL, 0);
    return HW_OK;
}

HANDLER(EVENT_ELAPSED)
{
    struct hipr_event_elapsed_req m;
    struct hipr_event_elapsed_rep r;
    hipr_event_elapsed_req_decode(fixed, HIPR_event_elapsed_req_SIZE, &m);
    struct s_event *a = handle_map_get(&s->res.events, m.start);
    struct s_event *b = handle_map_get(&s->res.events, m.stop);
    if (!a || !b)
        return HW_EHANDLE;
    int rc = s->ops->event_elapsed(s->be, a->be, b->be, &r.ms);
    if (rc != HW_OK)
        return rc;
    uint8_t out[HIPR_event_elapsed_rep_SIZE];
    hipr_event_elapsed_rep_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(EVENT_DESTROY)
{
    struct hipr_event m;
    (void)h;
    hipr_event_decode(fixed, HIPR_event_SIZE, &m);
    struct s_event *ev = handle_map_del(&s->res.events, m.event);
    if (!ev)
        return HW_EHANDLE;
    s->ops->event_destroy(s->be, ev->be);
    free(ev);
    return HW_OK;
}
