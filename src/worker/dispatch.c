/*
 * dispatch.c - the table from opcode to handler (ops.h), and what the
 * dispatcher does with a handler's status: the error reply of a SYNC
 * request, the reply or deferred error of an ASYNC one. Also the
 * session's teardown of what its client held.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "dispatch.h"
#include "ops.h"
#include "rtc.h"

/* ---- teardown and dispatch ---------------------------------------------------- */

void session_release_all(struct session *s)
{
    size_t pos;
    uint64_t key;
    void *v;
    uint64_t bytes = s->res.allocs.malloc_bytes;
    size_t nallocs = 0;

    if (!s->be)
        goto out;
    rtc_session_end(s); /* compile threads call the backend */
    __atomic_store_n(&s->value_waits_cancel, 1, __ATOMIC_RELEASE); /* nobody will write them now */
    session_drain(s, -1);
    for (pos = 0; handle_map_next(&s->res.streams, &pos, &key, &v);) {
        struct s_stream *st = v;
        s->ops->stream_destroy(s->be, st->bs);
        free(st);
    }
    for (pos = 0; handle_map_next(&s->res.events, &pos, &key, &v);) {
        struct s_event *ev = v;
        s->ops->event_destroy(s->be, ev->be);
        free(ev);
    }
    handle_map_free(&s->res.streams);
    quota_streams_changed(&s->lim); /* its share of the budget, before the process is reaped */
    handle_map_free(&s->res.events);
    for (pos = 0; handle_map_next(&s->res.modules, &pos, &key, &v);)
        ops_unload_module(s, key, v);
    handle_map_free(&s->res.modules);
    handle_map_free(&s->res.functions);
    for (size_t i = 0; i < s->res.allocs.len; i++)
        if (s->res.allocs.v[i].kind == ALLOC_MALLOC) {
            ops_free_allocation(s, &s->res.allocs.v[i]);
            nallocs++;
        }
    s->res.allocs.len = 0;
    s->res.allocs.malloc_bytes = 0;
    session_update_usage(s);
    ops_regions_release(s); /* registered with the backend: before it closes */
    s->ops->close(s->be);
    s->be = NULL;
    hw_info("session %016llx: freed %llu bytes in %zu allocations", (unsigned long long)s->id,
            (unsigned long long)bytes, nallocs);
out:
    alloc_table_free(&s->res.allocs);
}

int dispatch_request(struct session *s, const struct hipr_header *h,
                     const struct hipr_op_info *info, const uint8_t *fixed)
{
    int rc;
    switch (h->opcode) {
#define HIPR_DISPATCH_CASE_(NAME, num, req, rep, rcap, pcap, kind) \
    case num: rc = h_##NAME(s, h, fixed); break;
        HIPR_OPS(HIPR_DISPATCH_CASE_)
#undef HIPR_DISPATCH_CASE_
    default: rc = HW_ENOTSUP; break;
    }
    return dispatch_finish(s, h, info, rc);
}

int dispatch_finish(struct session *s, const struct hipr_header *h, const struct hipr_op_info *info,
                    int rc)
{
    if (rc < 0)
        return -1;
    int wants_reply = !(h->flags & HIPR_FLAG_NO_REPLY);
    if (info->kind == HIPR_KIND_SYNC) {
        if (rc != HW_OK)
            slink_reply(&s->link, h->opcode, h->request_id, rc, NULL, 0, NULL, 0);
    } else if (wants_reply) {
        slink_reply(&s->link, h->opcode, h->request_id, rc, NULL, 0, NULL, 0);
    } else if (rc != HW_OK) {
        hw_debug("session %016llx: deferred error %d from %s", (unsigned long long)s->id, rc,
                 info->name);
        slink_async_error(&s->link, rc);
    }
    return rc;
}
