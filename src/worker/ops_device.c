/*
 * ops_device.c - device-wide requests: synchronize, reset, memory and attributes.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "ops.h"

HANDLER(DEVICE_SYNCHRONIZE)
{
    struct hipr_device m;
    hipr_device_decode(fixed, HIPR_device_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    /* Nothing queued: answer now instead of a trip through every stream. */
    if (ops_device_idle(s, m.device)) {
        slink_reply(&s->link, h->opcode, h->request_id, HW_OK, NULL, 0, NULL, 0);
        return HW_OK;
    }
    struct pending *p = ops_pending_new(s, h);
    if (!p)
        return HW_ENOMEM;
    /* The reply goes out from the last stream to finish: the dispatch loop
     * keeps serving other requests meanwhile. */
    p->remaining = 1 << 30;
    int n = ops_for_device_streams(s, m.device, ops_pending_done, p);
    if (__atomic_sub_fetch(&p->remaining, (1 << 30) - n, __ATOMIC_ACQ_REL) == 0) {
        p->remaining = 1;
        ops_pending_done(p, HW_OK);
    }
    return HW_OK;
}

HANDLER(DEVICE_RESET)
{
    struct hipr_device m;
    hipr_device_decode(fixed, HIPR_device_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    /* Every device: a copy queued on another device's stream may still read
     * this device's memory. */
    session_drain(s, -1);
    for (size_t i = s->res.allocs.len; i-- > 0;) {
        struct alloc_range r = s->res.allocs.v[i];
        if (r.device == m.device && r.kind == ALLOC_MALLOC &&
            alloc_table_remove(&s->res.allocs, r.base, &r) == 0)
            ops_free_allocation(s, &r);
    }
    session_update_usage(s);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, NULL, 0, NULL, 0);
    return HW_OK;
}

HANDLER(MEM_GET_INFO)
{
    struct hipr_device m;
    struct hipr_mem_info_rep r;
    hipr_device_decode(fixed, HIPR_device_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    int rc = s->ops->mem_info(s->be, m.device, &r.free, &r.total);
    if (rc != HW_OK)
        return rc;
    /* A session sees its own limit as the device's size. */
    if (s->cfg->mem_limit && r.total > s->cfg->mem_limit) {
        uint64_t used = s->res.allocs.malloc_bytes;
        r.total = s->cfg->mem_limit;
        uint64_t left = used < r.total ? r.total - used : 0;
        if (r.free > left)
            r.free = left;
    }
    uint8_t out[HIPR_mem_info_rep_SIZE];
    hipr_mem_info_rep_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

/* A backend without the slot (an older one) answers hipErrorNotSupported;
 * the client then keeps its defaults. */
HANDLER(DEVICE_ATTRIBUTES)
{
    struct hipr_device m;
    struct hipr_devattr r;
    hipr_device_decode(fixed, HIPR_device_SIZE, &m);
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    if (!HW_BACKEND_HAS(s->ops, device_attributes))
        return HW_ENOTSUP;
    memset(&r, 0, sizeof r);
    int rc = s->ops->device_attributes(s->be, m.device, &r);
    if (rc != HW_OK)
        return rc;
    uint8_t out[HIPR_devattr_SIZE];
    hipr_devattr_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}
