/* replay_ring.c - see replay_ring.h. */
#include "replay_ring.h"

#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hipr.h"

int replay_ring_init(struct replay_ring *r, uint64_t cap, uint64_t inline_max)
{
    memset(r, 0, sizeof *r);
    uint64_t pow2 = 4096;
    while (pow2 < cap)
        pow2 <<= 1;
    cap = pow2; /* offsets become positions with a mask, not a division */
    r->inline_max = inline_max;
    r->buf = hw_malloc((size_t)cap);
    r->marks = hw_malloc(REPLAY_RING_MARKS * sizeof *r->marks);
    if (!r->buf || !r->marks) {
        free(r->buf);
        free(r->marks);
        r->buf = NULL;
        r->marks = NULL;
        return -1;
    }
    r->cap = cap;
    return 0;
}

void replay_ring_free(struct replay_ring *r)
{
    free(r->buf);
    free(r->marks);
    memset(r, 0, sizeof *r);
}

int replay_is_mark(uint16_t opcode)
{
    return opcode == HIPR_OP_HEARTBEAT || opcode == HIPR_OP_ACK;
}

size_t replay_frame_len(const struct replay_ring *r, const uint8_t *hdr)
{
    uint64_t payload = hipr_get_u64(hdr + 16);
    if (payload <= r->inline_max)
        return HIPR_HEADER_SIZE + (size_t)payload;
    /* The tail went from the caller's memory: only the fixed part is here. */
    const struct hipr_op_info *info = hipr_op_lookup(hipr_get_u16(hdr + 6));
    return HIPR_HEADER_SIZE + (info ? info->request_size : 0);
}

static uint64_t lap_end(const struct replay_ring *r, uint64_t off)
{
    return (off | (r->cap - 1)) + 1;
}

static uint64_t pos(const struct replay_ring *r, uint64_t off)
{
    return off & (r->cap - 1);
}

/* Steps over skipped space at off, if any starts there. */
static uint64_t skip_pad(const struct replay_ring *r, uint64_t off)
{
    for (unsigned i = 0; i < r->npads; i++)
        if (r->pads[i] == off)
            return lap_end(r, off);
    return off;
}

static const uint8_t *at(const struct replay_ring *r, uint64_t off)
{
    return r->buf + pos(r, off);
}

uint64_t replay_ring_used(const struct replay_ring *r)
{
    return r->head - r->tail;
}

uint8_t *replay_ring_reserve(struct replay_ring *r, size_t len)
{
    uint64_t free_bytes = r->cap - (r->head - r->tail);
    uint64_t phys = pos(r, r->head);
    uint64_t pad = phys + len > r->cap ? r->cap - phys : 0;
    if (len > r->cap || pad + len > free_bytes || (pad && r->npads == REPLAY_RING_PADS))
        return NULL;
    if (pad) {
        if (r->head == r->tail && r->head == r->sent && r->mcount == 0) {
            /* Empty: start the next lap instead of remembering a gap. */
            r->head = r->sent = r->tail = lap_end(r, r->head);
            r->npads = 0;
        } else {
            r->pads[r->npads++] = r->head;
            r->head = lap_end(r, r->head);
        }
    }
    return r->buf + pos(r, r->head);
}

void replay_ring_commit(struct replay_ring *r, size_t len)
{
    r->head += len;
}

int replay_ring_unsent(const struct replay_ring *r, struct iovec *iov, int max)
{
    int n = 0;
    uint64_t off = skip_pad(r, r->sent);
    while (off < r->head && n < max) {
        uint64_t end = r->head < lap_end(r, off) ? r->head : lap_end(r, off);
        for (unsigned i = 0; i < r->npads; i++)
            if (r->pads[i] > off && r->pads[i] < end)
                end = r->pads[i];
        iov[n].iov_base = r->buf + pos(r, off);
        iov[n].iov_len = (size_t)(end - off);
        n++;
        off = skip_pad(r, end);
    }
    return n;
}

void replay_ring_mark_sent(struct replay_ring *r)
{
    r->sent = r->head;
}

void replay_ring_drop_sent(struct replay_ring *r)
{
    r->tail = r->sent;
    unsigned k = 0;
    while (k < r->npads && r->pads[k] < r->tail)
        k++;
    memmove(r->pads, r->pads + k, (r->npads - k) * sizeof r->pads[0]);
    r->npads -= k;
}

static void drop_passed_pads(struct replay_ring *r)
{
    unsigned k = 0;
    while (k < r->npads && r->pads[k] < r->tail)
        k++;
    if (k) {
        memmove(r->pads, r->pads + k, (r->npads - k) * sizeof r->pads[0]);
        r->npads -= k;
    }
}

void replay_ring_note_send(struct replay_ring *r, uint64_t seq)
{
    r->sent_seq = seq;
    if (r->mcount && r->marks[(r->mfirst + r->mcount - 1) % REPLAY_RING_MARKS].off == r->sent)
        return;
    if (r->mcount == REPLAY_RING_MARKS)
        return;
    struct replay_mark *m = &r->marks[(r->mfirst + r->mcount++) % REPLAY_RING_MARKS];
    m->off = r->sent;
    m->seq = seq;
}

void replay_ring_release(struct replay_ring *r, uint64_t done)
{
    while (r->mcount && r->marks[r->mfirst].seq <= done) {
        r->tail = r->marks[r->mfirst].off;
        r->tail_seq = r->marks[r->mfirst].seq;
        r->mfirst = (r->mfirst + 1) % REPLAY_RING_MARKS;
        r->mcount--;
    }
    /* Sends the full list could not record go once all that was sent is done. */
    if (!r->mcount && done >= r->sent_seq && r->tail != r->sent) {
        r->tail = r->sent;
        r->tail_seq = r->sent_seq;
    }
    drop_passed_pads(r);
}

uint64_t replay_ring_oldest_send(const struct replay_ring *r)
{
    return r->mcount ? r->marks[r->mfirst].seq : 0;
}

int replay_ring_walk(const struct replay_ring *r, uint64_t done,
                     int (*emit)(void *ctx, uint64_t seq, const uint8_t *frame, size_t len,
                                 uint16_t opcode, uint64_t payload_length),
                     void *ctx)
{
    uint64_t seq = r->tail_seq;
    int started = 0;
    for (uint64_t off = skip_pad(r, r->tail); off < r->head; off = skip_pad(r, off)) {
        const uint8_t *h = at(r, off);
        uint16_t opcode = hipr_get_u16(h + 6);
        size_t len = replay_frame_len(r, h);
        int mark = replay_is_mark(opcode);
        if (!mark && ++seq > done)
            started = 1;
        if (started) {
            int rc = emit(ctx, mark ? 0 : seq, h, len, opcode, hipr_get_u64(h + 16));
            if (rc)
                return rc;
        }
        off += len;
    }
    return 0;
}
