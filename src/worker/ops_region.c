/*
 * ops_region.c - host regions: the client's hipHostMalloc memory, shared
 * with this session so copies from and to it need no trip through the
 * rings (docs/protocol.md, "Shared host memory").
 *
 * Only a session on the shared-memory transport has them: HOST_REGION
 * ALLOC creates a sealed memfd (neither side can shrink it under the other's
 * mapping), maps it here, hands it to the client on the kept hand-over
 * connection and answers with its id. A copy names a region, an offset and a
 * size, checked against what this session mapped before anything is read or
 * written; the bytes move between the mapping and device memory in one copy
 * (the CPU device: a memcpy; a GPU: DMA from memory the backend registered,
 * or its ordinary H2D/D2H path when it could not register it). The session
 * is a process of its own, so no other session can name, let alone reach,
 * its regions. FREE drains the session's streams before unmapping, as FREE
 * of device memory does; the session's end unmaps what is left.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_shm.h"
#include "ops.h"

#define REGIONS_MAX 4096 /* regions one session may hold at once */

struct host_region {
    uint64_t id;
    uint8_t *base;
    uint64_t len;
    int registered; /* the backend's host_register took it */
};

struct host_regions {
    struct host_region *v;
    size_t n, cap;
    uint64_t next_id;
    uint64_t bytes;
};

static struct host_region *region_find(struct session *s, uint64_t id)
{
    struct host_regions *t = s->regions;
    for (size_t i = 0; t && i < t->n; i++)
        if (t->v[i].id == id)
            return &t->v[i];
    return NULL;
}

static void region_unmap(struct session *s, struct host_region *r)
{
    if (r->registered && s->be && HW_BACKEND_HAS(s->ops, host_unregister))
        s->ops->host_unregister(s->be, r->base);
    munmap(r->base, (size_t)r->len);
}

static void reply_region(struct session *s, const struct hipr_header *h, uint64_t id, uint64_t len)
{
    struct hipr_host_region_rep rep = { .id = id, .size = len };
    uint8_t out[HIPR_host_region_rep_SIZE];
    hipr_host_region_rep_encode(out, &rep);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
}

/* What the session may map in all: its memory limit when it has one, else
 * the machine's memory. */
static uint64_t region_budget(const struct session *s)
{
    uint64_t phys = hw_os_phys_mem();
    if (s->cfg->mem_limit)
        return s->cfg->mem_limit;
    return phys ? phys : UINT64_MAX;
}

static int region_alloc(struct session *s, const struct hipr_header *h, uint64_t size)
{
    if (s->shm_side_fd < 0 || !hw_tx_is_shm(&s->link.tx))
        return HW_ENOTSUP; /* TCP sessions keep their host memory to themselves */
    if (size == 0)
        return HW_EINVAL;
    if (!s->regions && !(s->regions = hw_calloc(1, sizeof *s->regions)))
        return HW_ENOMEM;
    struct host_regions *t = s->regions;
    uint64_t budget = region_budget(s);
    if (t->n >= REGIONS_MAX || size > budget || t->bytes > budget - size) {
        hw_info("session %016llx: host region of %llu bytes refused (%zu regions, %llu bytes)",
                (unsigned long long)s->id, (unsigned long long)size, t->n,
                (unsigned long long)t->bytes);
        return HW_ENOMEM;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        struct host_region *v = hw_realloc(t->v, cap * sizeof *v);
        if (!v)
            return HW_ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    int fd = -1;
    uint64_t len = 0;
    uint8_t *p = hw_shm_region_create(size, &fd, &len);
    if (!p)
        return HW_ENOMEM;
    struct host_region r = { ++t->next_id, p, len, 0 };
    /* A GPU copies registered memory by DMA; where registering fails the
     * region still works, through the backend's ordinary copies. */
    if (HW_BACKEND_HAS(s->ops, host_register)) {
        int rc = s->ops->host_register(s->be, p, len);
        r.registered = rc == HW_OK;
        if (rc != HW_OK)
            hw_info("session %016llx: host region of %llu bytes not pinned (status %d): its "
                    "copies are staged",
                    (unsigned long long)s->id, (unsigned long long)len, rc);
    }
    int sent = hw_shm_send_region(s->shm_side_fd, fd, r.id);
    close(fd);
    if (sent < 0) {
        hw_info("session %016llx: could not hand a host region over", (unsigned long long)s->id);
        region_unmap(s, &r);
        return HW_ENOMEM;
    }
    t->v[t->n++] = r;
    t->bytes += len;
    reply_region(s, h, r.id, len);
    return HW_OK;
}

static int region_free(struct session *s, const struct hipr_header *h, uint64_t id)
{
    struct host_region *r = region_find(s, id);
    if (!r)
        return HW_EINVAL;
    /* Copies queued on any stream may still read or write it. */
    int idle = 1;
    for (int d = 0; d < s->device_count && idle; d++)
        idle = ops_device_idle(s, d);
    if (!idle)
        session_drain(s, -1);
    region_unmap(s, r);
    struct host_regions *t = s->regions;
    t->bytes -= r->len;
    *r = t->v[--t->n];
    reply_region(s, h, id, 0);
    return HW_OK;
}

void ops_regions_release(struct session *s)
{
    struct host_regions *t = s->regions;
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        region_unmap(s, &t->v[i]);
    hw_free(t->v);
    hw_free(t);
    s->regions = NULL;
}

HANDLER(HOST_REGION)
{
    struct hipr_host_region_req q;
    hipr_host_region_req_decode(fixed, HIPR_host_region_req_SIZE, &q);
    switch (q.op) {
    case HIPR_REGION_ALLOC: return region_alloc(s, h, q.size);
    case HIPR_REGION_FREE: return region_free(s, h, q.id);
    default: return HW_EINVAL;
    }
}

/* Checks a copy's region range and device range: the host address in
 * *host, the stream in *bs, and whether the copy may be done at once
 * (*direct: device memory's host address, nothing queued on either device). */
static int region_copy_check(struct session *s, const struct hipr_memcpy_region *m,
                             struct hw_bstream **bs, uint8_t **host, struct host_region **reg,
                             void **direct)
{
    int sdev, dev, rc;
    if ((rc = ops_resolve_stream(s, m->stream, bs, &sdev)) != HW_OK)
        return rc;
    struct host_region *r = region_find(s, m->region);
    if (!r || m->offset > r->len || m->size > r->len - m->offset)
        return HW_EINVAL;
    if (m->size == 0)
        return HW_OK;
    if ((rc = ops_check_range(s, m->dev, m->size, &dev)) != HW_OK)
        return rc;
    *host = r->base + m->offset;
    *reg = r;
    void *d = ops_host_addr(s, m->dev);
    *direct = d && ops_device_idle(s, sdev) && (dev == sdev || ops_device_idle(s, dev)) ? d : NULL;
    return HW_OK;
}

HANDLER(MEMCPY_REGION_H2D)
{
    struct hipr_memcpy_region m;
    struct hw_bstream *bs;
    struct host_region *r = NULL;
    uint8_t *host = NULL;
    void *direct = NULL;
    int rc;
    (void)h;
    hipr_memcpy_region_decode(fixed, HIPR_memcpy_region_SIZE, &m);
    if ((rc = region_copy_check(s, &m, &bs, &host, &r, &direct)) != HW_OK || m.size == 0)
        return rc;
    if (direct) {
        memcpy(direct, host, (size_t)m.size);
        return HW_OK;
    }
    /* The region outlives the copy: FREE drains the streams first. */
    if (r->registered && HW_BACKEND_HAS(s->ops, memcpy_h2d_registered))
        rc = s->ops->memcpy_h2d_registered(s->be, bs, m.dev, host, m.size);
    else
        rc = s->ops->memcpy_h2d(s->be, bs, m.dev, host, m.size, NULL, NULL);
    if (rc == HW_OK)
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    return rc;
}

HANDLER(MEMCPY_REGION_D2H)
{
    struct hipr_memcpy_region m;
    struct hw_bstream *bs;
    struct host_region *r = NULL;
    uint8_t *host = NULL;
    void *direct = NULL;
    int rc;
    hipr_memcpy_region_decode(fixed, HIPR_memcpy_region_SIZE, &m);
    if ((rc = region_copy_check(s, &m, &bs, &host, &r, &direct)) != HW_OK)
        return rc;
    if (direct) {
        memcpy(host, direct, (size_t)m.size);
        slink_reply(&s->link, h->opcode, h->request_id, HW_OK, NULL, 0, NULL, 0);
        return HW_OK;
    }
    if (m.size) {
        if (r->registered && HW_BACKEND_HAS(s->ops, memcpy_d2h_registered))
            rc = s->ops->memcpy_d2h_registered(s->be, bs, host, m.dev, m.size);
        else
            rc = s->ops->memcpy_d2h(s->be, bs, host, m.dev, m.size);
        if (rc != HW_OK)
            return rc;
        inflight_queued(&s->lim, m.stream, bs, INFLIGHT_OP_COST);
    }
    /* Answered once the bytes are in the region: the client reads them
     * only after the reply. */
    struct pending *p = ops_pending_new(s, h);
    if (!p) {
        session_drain(s, -1);
        return HW_ENOMEM;
    }
    rc = s->ops->stream_callback(s->be, bs, ops_pending_done, p);
    if (rc != HW_OK) {
        session_drain(s, -1);
        ops_pending_free(p);
    }
    return rc;
}

size_t ops_regions_count(const struct session *s)
{
    return s->regions ? s->regions->n : 0;
}
