/*
 * copy_staged.c - copies through the backend's stages (backend.h,
 * stage_*): memory its device copies from and into directly, such as the
 * cuda backend's pinned buffers. The bytes cross the host once, between the
 * socket and a stage, and the device's copy of one chunk overlaps the
 * network transfer of the next.
 *
 * H2D: each stage is filled straight from the socket and its copy queued
 * at once; the next one fills while the device copies.
 *
 * D2H on an idle device: a ring of stages. The dispatch thread sends each
 * one as soon as its copy has landed and queues the next chunk into it, so
 * the wire never waits for more than the first chunk's copy. Nothing can
 * delay those copies (nothing else is queued on the device, and only this
 * thread queues work), so holding the send lock meanwhile is safe.
 *
 * D2H on a busy device: the reply must not hold up the dispatch thread (a
 * launch on another stream must go out meanwhile), so every chunk gets a
 * stage of its own and a stream callback behind the last one sends them.
 */
#include "copy_staged.h"

#include <stdlib.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "ops.h"

#define RING        4             /* stages in flight for one idle-device D2H */
#define FIRST_CHUNK (64u * 1024)  /* a D2H reply's first piece; later ones double */
#define MIN_SPLIT   (128u * 1024) /* an H2D copy's last stage is halved from this size */

int copy_staged_available(const struct session *s)
{
    const struct hw_backend_ops *o = s->ops;
    return HW_BACKEND_HAS(o, stage_put) && o->stage_get && o->stage_h2d && o->stage_d2h &&
           o->stage_wait;
}

int copy_h2d_staged(struct session *s, struct hw_bstream *bs, uint64_t dst)
{
    for (uint64_t off = 0; s->link.tail_left > 0;) {
        struct hw_bstage *st;
        void *buf;
        size_t len;
        int rc = s->ops->stage_get(s->be, s->link.tail_left, &st, &buf, &len);
        if (rc != HW_OK)
            return rc; /* the request loop skips the rest of the payload */
        /* The last DMA overlaps nothing: when the rest fits this stage, take
         * half, so the copy ends with a small one (64-128 KiB). */
        if (len == s->link.tail_left && len >= MIN_SPLIT)
            len /= 2;
        if (slink_read_tail(&s->link, buf, len) < 0) {
            s->ops->stage_put(s->be, st);
            return -1;
        }
        if ((rc = s->ops->stage_h2d(s->be, bs, dst + off, st, len)) != HW_OK)
            return rc;
        off += len;
    }
    return HW_OK;
}

/* ---- idle device: a ring, sent from the dispatch thread ------------------------ */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

struct ring_slot {
    struct hw_bstage *st;
    void *buf;
    size_t cap;    /* what the stage holds */
    size_t len;    /* bytes of the copy queued into it */
    int in_flight; /* a copy is queued and not yet waited for */
};

/* Queues the copy of the next chunk, of at most want bytes, into slot r. */
static int ring_queue(struct session *s, struct hw_bstream *bs, struct ring_slot *r, uint64_t src,
                      uint64_t want)
{
    r->len = want < r->cap ? (size_t)want : r->cap;
    int rc = s->ops->stage_d2h(s->be, bs, r->st, src, r->len);
    r->in_flight = rc == HW_OK;
    return rc;
}

static void ring_release(struct session *s, struct ring_slot *ring, int n)
{
    for (int i = 0; i < n; i++) {
        if (ring[i].in_flight)
            s->ops->stage_wait(s->be, ring[i].st);
        s->ops->stage_put(s->be, ring[i].st);
    }
}

static int d2h_ring(struct session *s, const struct hipr_header *h, struct hw_bstream *bs,
                    uint64_t src, uint64_t n)
{
    struct ring_slot ring[RING];
    int nring = 0, rc = HW_OK;
    uint64_t queued = 0, sent = 0, piece = FIRST_CHUNK;

    /* Every stage is taken before the send lock: a stage may only come back
     * once another reply, which needs that lock, has gone out. Pieces start
     * small, so the wire waits for a short DMA only, and double from there. */
    while (nring < RING && queued < n) {
        struct ring_slot *r = &ring[nring];
        if ((rc = s->ops->stage_get(s->be, n - queued, &r->st, &r->buf, &r->cap)) != HW_OK)
            break;
        nring++;
        if ((rc = ring_queue(s, bs, r, src + queued, min_u64(n - queued, piece))) != HW_OK)
            break;
        queued += r->len;
        piece = piece < (1u << 30) ? 2 * piece : piece;
    }
    if (rc == HW_OK) {
        rc = s->ops->stage_wait(s->be, ring[0].st);
        ring[0].in_flight = 0;
    }
    if (rc != HW_OK) {
        ring_release(s, ring, nring);
        return rc; /* nothing sent yet: an ordinary error reply */
    }
    if (slink_reply_start(&s->link, h->opcode, h->request_id, n) < 0) {
        ring_release(s, ring, nring);
        return -1;
    }
    int complete = 1;
    for (int k = 0; sent < n; k = (k + 1) % nring) {
        struct ring_slot *r = &ring[k];
        if (r->in_flight) {
            r->in_flight = 0;
            if ((rc = s->ops->stage_wait(s->be, r->st)) != HW_OK) {
                complete = 0;
                break;
            }
        }
        if (slink_reply_more(&s->link, r->buf, r->len) < 0) {
            ring_release(s, ring, nring);
            return -1;
        }
        sent += r->len;
        if (queued < n) {
            if ((rc = ring_queue(s, bs, r, src + queued, min_u64(n - queued, piece))) != HW_OK) {
                complete = 0;
                break;
            }
            queued += r->len;
            piece = piece < (1u << 30) ? 2 * piece : piece;
        }
    }
    slink_reply_end(&s->link, complete);
    ring_release(s, ring, nring);
    if (!complete)
        hw_warn("session %016llx: a D2H copy failed half sent (status %d); ending the session",
                (unsigned long long)s->id, rc);
    return complete ? HW_OK : -1;
}

/* ---- busy device: one stage per chunk, sent from a completion callback ------------ */

struct d2h_part {
    struct hw_bstage *st;
    void *buf;
    size_t len;
};

struct d2h_job {
    struct session *s;
    uint16_t opcode;
    uint32_t request_id;
    uint64_t n;
    int reply; /* 0: queueing failed half way; only give the stages back */
    size_t nparts, cap;
    struct d2h_part *parts;
};

static void job_free(struct d2h_job *j)
{
    for (size_t i = 0; i < j->nparts; i++)
        j->s->ops->stage_put(j->s->be, j->parts[i].st);
    free(j->parts);
    free(j);
}

/* Runs once every chunk's copy has finished (stream order). */
static void job_done(void *arg, int status)
{
    struct d2h_job *j = arg;
    struct session *s = j->s;
    if (j->reply && status != HW_OK) {
        slink_reply(&s->link, j->opcode, j->request_id, status, NULL, 0, NULL, 0);
    } else if (j->reply && slink_reply_start(&s->link, j->opcode, j->request_id, j->n) == 0) {
        size_t i = 0;
        while (i < j->nparts && slink_reply_more(&s->link, j->parts[i].buf, j->parts[i].len) == 0)
            i++;
        if (i == j->nparts)
            slink_reply_end(&s->link, 1);
    }
    job_free(j);
}

static int d2h_deferred(struct session *s, const struct hipr_header *h, struct hw_bstream *bs,
                        int dev, uint64_t src, uint64_t n)
{
    struct d2h_job *j = hw_calloc(1, sizeof *j);
    if (!j)
        return HW_ENOMEM;
    j->s = s;
    j->opcode = h->opcode;
    j->request_id = h->request_id;
    j->n = n;
    int rc = HW_OK;
    for (uint64_t queued = 0; queued < n;) {
        if (j->nparts == j->cap) {
            size_t cap = j->cap ? 2 * j->cap : 16;
            struct d2h_part *p = hw_realloc(j->parts, cap * sizeof *p);
            if (!p) {
                rc = HW_ENOMEM;
                break;
            }
            j->parts = p;
            j->cap = cap;
        }
        struct d2h_part *p = &j->parts[j->nparts];
        if ((rc = s->ops->stage_get(s->be, n - queued, &p->st, &p->buf, &p->len)) != HW_OK)
            break;
        if ((rc = s->ops->stage_d2h(s->be, bs, p->st, src + queued, p->len)) != HW_OK) {
            s->ops->stage_put(s->be, p->st);
            break;
        }
        j->nparts++;
        queued += p->len;
    }
    j->reply = rc == HW_OK;
    if (j->nparts > 0) {
        /* Also after a failure: the queued copies still write the stages. */
        int cb = s->ops->stream_callback(s->be, bs, job_done, j);
        if (cb == HW_OK)
            return rc;
        if (rc == HW_OK)
            rc = cb;
        session_drain(s, dev);
    }
    job_free(j);
    return rc;
}

int copy_d2h_staged(struct session *s, const struct hipr_header *h, struct hw_bstream *bs, int dev,
                    int device_idle, uint64_t src, uint64_t n)
{
    return device_idle ? d2h_ring(s, h, bs, src, n) : d2h_deferred(s, h, bs, dev, src, n);
}
