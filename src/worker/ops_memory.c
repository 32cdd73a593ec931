/*
 * ops_memory.c - allocations, copies and memsets.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "ops.h"
#include "copy_staged.h"

#define STAGE_SMALL (64 * 1024) /* below this, H2D data is always staged */

void ops_free_allocation(struct session *s, const struct alloc_range *r)
{
    s->ops->mem_free(s->be, r->device, r->base, r->size);
}

HANDLER(MALLOC)
{
    struct hipr_malloc_req m;
    struct hipr_ptr r = { 0 };
    hipr_malloc_req_decode(fixed, HIPR_malloc_req_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    if (m.size > 0) {
        if (s->cfg->mem_limit && m.size > s->cfg->mem_limit - s->res.allocs.malloc_bytes)
            return quota_refuse(
                &s->lim, QUOTA_MEMORY, "hipMalloc of %llu bytes (%llu of %llu in use)",
                (unsigned long long)m.size, (unsigned long long)s->res.allocs.malloc_bytes,
                (unsigned long long)s->cfg->mem_limit);
        int rc = s->ops->mem_alloc(s->be, m.device, m.size, &r.ptr);
        if (rc != HW_OK)
            return rc;
        struct alloc_range ar = { r.ptr, m.size, m.device, ALLOC_MALLOC, 0 };
        if (alloc_table_insert(&s->res.allocs, &ar) < 0) {
            s->ops->mem_free(s->be, m.device, r.ptr, m.size);
            return HW_ENOMEM;
        }
        session_update_usage(s);
    }
    uint8_t out[HIPR_ptr_SIZE];
    hipr_ptr_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(FREE)
{
    struct hipr_ptr m;
    struct alloc_range r;
    (void)h;
    hipr_ptr_decode(fixed, HIPR_ptr_SIZE, &m);
    if (m.ptr == 0)
        return HW_OK;
    const struct alloc_range *found = alloc_table_find(&s->res.allocs, m.ptr, 0);
    if (!found || found->base != m.ptr || found->kind != ALLOC_MALLOC)
        return HW_EINVAL;
    /* hipFree waits for the device; all of them here, since work queued on
     * another device's stream may address this memory too. Idle devices
     * need no wait (and no trip through every stream). */
    int idle = 1;
    for (int d = 0; d < s->device_count && idle; d++)
        idle = ops_device_idle(s, d);
    if (!idle)
        session_drain(s, -1);
    alloc_table_remove(&s->res.allocs, m.ptr, &r);
    ops_free_allocation(s, &r);
    session_update_usage(s);
    return HW_OK;
}

/* Reads n tail bytes and queues their copy to dst..., one per row when
 * rows > 1 (rows of width bytes, dpitch apart). */
static int h2d_common(struct session *s, uint64_t stream, struct hw_bstream *bs, int dev,
                      uint64_t dst, uint64_t dpitch, uint64_t width, uint64_t rows)
{
    uint64_t n = s->link.tail_left;
    if (n == 0)
        return HW_OK;
    /* Zero copy when the device memory is host-addressable and nothing queued
     * could be reading or writing it. */
    void *direct =
        rows == 1 && n >= STAGE_SMALL && ops_device_idle(s, dev) ? ops_host_addr(s, dst) : NULL;
    if (direct)
        return slink_read_tail(&s->link, direct, n) < 0 ? -1 : HW_OK;
    /* Memory the device copies from directly, filled from the socket. */
    if (rows == 1 && copy_staged_available(s) && !ops_host_addr(s, dst))
        return copy_h2d_staged(s, bs, dst);
    inflight_acquire(&s->lim, n);
    struct pending *rec = hw_calloc(1, sizeof *rec);
    uint8_t *buf = stage_buf_get(&s->res.bufs, n);
    if (!rec || !buf) {
        free(rec);
        stage_buf_put(&s->res.bufs, buf);
        inflight_release(&s->lim, n);
        return HW_ENOMEM;
    }
    rec->s = s;
    rec->len = n;
    rec->to_free = buf;
    if (slink_read_tail(&s->link, buf, n) < 0) {
        ops_stage_done(rec, HW_OK);
        return -1;
    }
    for (uint64_t i = 0; i < rows; i++) {
        int last = i + 1 == rows;
        int rc = s->ops->memcpy_h2d(s->be, bs, dst + i * dpitch, buf + i * width, width,
                                    last ? ops_stage_done : NULL, last ? rec : NULL);
        if (rc != HW_OK) {
            /* Rows already queued still read buf: release it behind them. */
            if (i > 0 && s->ops->stream_callback(s->be, bs, ops_stage_done, rec) == HW_OK)
                return rc;
            if (i > 0)
                session_drain(s, dev);
            ops_stage_done(rec, rc);
            return rc;
        }
        inflight_queued(&s->lim, stream, bs, INFLIGHT_OP_COST);
    }
    return HW_OK;
}

HANDLER(MEMCPY_H2D)
{
    struct hipr_memcpy_h2d m;
    struct hw_bstream *bs;
    int dev, sdev, rc;
    (void)h;
    hipr_memcpy_h2d_decode(fixed, HIPR_memcpy_h2d_SIZE, &m);
    uint64_t n = s->link.tail_left;
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if ((rc = ops_check_range(s, m.dst, n, &dev)) != HW_OK)
        return rc;
    return h2d_common(s, m.stream, bs, dev, m.dst, n, n, 1);
}

HANDLER(MEMCPY2D_H2D)
{
    struct hipr_memcpy2d_h2d m;
    struct hw_bstream *bs;
    int dev = 0, sdev, rc;
    (void)h;
    hipr_memcpy2d_h2d_decode(fixed, HIPR_memcpy2d_h2d_SIZE, &m);
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if (m.height != 0 && m.width > UINT64_MAX / m.height)
        return HW_EINVAL;
    if (m.width * m.height != s->link.tail_left)
        return HW_EINVAL;
    if ((rc = ops_check_2d(s, m.dst, m.dpitch, m.width, m.height, &dev)) != HW_OK)
        return rc;
    if (m.height == 0 || m.width == 0)
        return HW_OK;
    return h2d_common(s, m.stream, bs, dev, m.dst, m.dpitch, m.width, m.height);
}

/* D2H: rows of width bytes spitch apart, packed into the reply's tail. */
static int d2h_common(struct session *s, const struct hipr_header *h, uint64_t stream, uint64_t src,
                      uint64_t spitch, uint64_t width, uint64_t rows)
{
    struct hw_bstream *bs;
    int sdev, rc;
    if ((rc = ops_resolve_stream(s, stream, &bs, &sdev)) != HW_OK)
        return rc;
    if (rows != 0 && width > UINT64_MAX / rows)
        return HW_EINVAL;
    uint64_t n = width * rows;
    if (n > HIPR_CAP_COPY_CHUNK)
        return HW_EINVAL;
    if ((rc = ops_check_2d(s, src, spitch, width, rows, NULL)) != HW_OK)
        return rc;
    void *direct = rows <= 1 && n ? ops_host_addr(s, src) : NULL;
    if (rows <= 1 && n && !direct && copy_staged_available(s))
        return copy_d2h_staged(s, h, bs, sdev, ops_device_idle(s, sdev), src, n);
    struct pending *p = ops_pending_new(s, h);
    if (!p)
        return HW_ENOMEM;
    p->len = n;
    if (direct && ops_device_idle(s, sdev)) {
        /* Sent straight from device memory: nothing queued could still
         * write it, and nothing can free it before the reply is out (a
         * resumable session's kept reply borrows it until the next request,
         * reply_log.h). */
        p->data = direct;
        p->borrowed = 1;
        ops_pending_done(p, HW_OK);
        return HW_OK;
    }
    if (n == 0) {
        if (ops_device_idle(s, sdev)) {
            ops_pending_done(p, HW_OK);
            return HW_OK;
        }
    } else {
        /* On a busy device the bytes are copied out in stream order and sent
         * from a buffer of the session's: a reply sent from device memory by
         * a stream callback could race a later hipFree (a backend may report
         * a stream idle while its last callback still runs). */
        inflight_acquire(&s->lim, n); /* the staged data, until the reply is sent */
        p->charged += n;
        uint8_t *buf = stage_buf_get(&s->res.bufs, n);
        if (!buf) {
            ops_pending_free(p);
            return HW_ENOMEM;
        }
        p->data = p->to_free = buf;
        for (uint64_t i = 0; i < rows; i++) {
            rc = s->ops->memcpy_d2h(s->be, bs, buf + i * width, src + i * spitch, width);
            if (rc != HW_OK) {
                if (i > 0)
                    session_drain(s, sdev);
                ops_pending_free(p);
                return rc;
            }
            inflight_queued(&s->lim, stream, bs, INFLIGHT_OP_COST);
        }
    }
    rc = s->ops->stream_callback(s->be, bs, ops_pending_done, p);
    if (rc != HW_OK) {
        session_drain(s, sdev);
        ops_pending_free(p);
    }
    return rc;
}

HANDLER(MEMCPY_D2H)
{
    struct hipr_memcpy_d2h m;
    hipr_memcpy_d2h_decode(fixed, HIPR_memcpy_d2h_SIZE, &m);
    return d2h_common(s, h, m.stream, m.src, m.size, m.size, 1);
}

HANDLER(MEMCPY2D_D2H)
{
    struct hipr_memcpy2d_d2h m;
    hipr_memcpy2d_d2h_decode(fixed, HIPR_memcpy2d_d2h_SIZE, &m);
    return d2h_common(s, h, m.stream, m.src, m.spitch, m.width, m.height);
}

HANDLER(MEMCPY_D2D)
{
    struct hipr_memcpy_d2d m;
    struct hw_bstream *bs;
    int sdev, rc;
    (void)h;
    hipr_memcpy_d2d_decode(fixed, HIPR_memcpy_d2d_SIZE, &m);
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if (m.size == 0)
        return HW_OK;
    if ((rc = ops_check_range(s, m.dst, m.size, NULL)) != HW_OK ||
        (rc = ops_check_range(s, m.src, m.size, NULL)) != HW_OK)
        return rc;
    rc = s->ops->memcpy_d2d(s->be, bs, m.dst, m.src, m.size);
    if (rc == HW_OK)
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(MEMCPY2D_D2D)
{
    struct hipr_memcpy2d_d2d m;
    struct hw_bstream *bs;
    int sdev, rc;
    (void)h;
    hipr_memcpy2d_d2d_decode(fixed, HIPR_memcpy2d_d2d_SIZE, &m);
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if ((rc = ops_check_2d(s, m.dst, m.dpitch, m.width, m.height, NULL)) != HW_OK ||
        (rc = ops_check_2d(s, m.src, m.spitch, m.width, m.height, NULL)) != HW_OK)
        return rc;
    for (uint64_t i = 0; m.width && i < m.height; i++) {
        rc = s->ops->memcpy_d2d(s->be, bs, m.dst + i * m.dpitch, m.src + i * m.spitch, m.width);
        if (rc != HW_OK)
            return rc;
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    }
    return HW_OK;
}

HANDLER(MEMSET)
{
    struct hipr_memset m;
    struct hw_bstream *bs;
    int sdev, rc;
    (void)h;
    hipr_memset_decode(fixed, HIPR_memset_SIZE, &m);
    if (m.elem_size != 1 && m.elem_size != 2 && m.elem_size != 4)
        return HW_EINVAL;
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &sdev)) != HW_OK)
        return rc;
    if (m.count == 0)
        return HW_OK;
    if (m.count > UINT64_MAX / m.elem_size)
        return HW_EINVAL;
    if ((rc = ops_check_range(s, m.dst, m.count * m.elem_size, NULL)) != HW_OK)
        return rc;
    rc = s->ops->memset(s->be, bs, m.dst, m.value, m.elem_size, m.count);
    if (rc == HW_OK)
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}
