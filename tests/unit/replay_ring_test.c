/*
 * The proxy's write/replay ring (src/client/replay_ring.c) against a plain
 * model: random frames (requests and marks, inline and with a tail kept
 * outside), sends, releases and replay walks on a ring small enough to wrap
 * hundreds of times. Every frame must stay contiguous and byte-exact until
 * released, unsent bytes must come out once and in order, and a replay
 * must start at the first request after the executed count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipr.h"
#include "replay_ring.h"
#include "testutil.h"

#define CAP  8192
#define MAXF 4096

struct frame {
    uint64_t seq; /* 0: a mark */
    size_t len;   /* bytes in the ring */
    uint8_t fill;
};

static struct frame model[MAXF];
static size_t first, count; /* frames kept: model[first .. first+count) */
static size_t dropped;      /* frames dropped so far (absolute index of model[first]) */
struct mmark {
    size_t end; /* absolute index just past the send's last frame */
    uint64_t seq;
};
static struct mmark mmarks[REPLAY_RING_MARKS];
static size_t mfirst, mcount;
static size_t nsent; /* of those, how many went out */
static uint64_t next_seq = 1, released_seq;
static const struct replay_ring *ring_ptr;
static uint8_t wire[1 << 20]; /* what the "socket" received */
static size_t wire_len;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void put_frame(uint8_t *p, size_t len, uint16_t opcode, uint64_t payload, uint8_t fill)
{
    struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION, opcode, 7, 0, payload };
    hipr_header_encode(p, &h);
    memset(p + HIPR_HEADER_SIZE, fill, len - HIPR_HEADER_SIZE);
}

static int append(struct replay_ring *r, uint64_t *s)
{
    int mark = rnd(s) % 5 == 0, ext = !mark && rnd(s) % 17 == 0;
    uint16_t op = mark ? HIPR_OP_ACK : ext ? HIPR_OP_MEMCPY_H2D : HIPR_OP_LAUNCH;
    size_t len;
    uint64_t payload;
    if (mark) {
        payload = HIPR_ack_SIZE;
        len = HIPR_HEADER_SIZE + payload;
    } else if (ext) {
        payload = HIPR_memcpy_h2d_SIZE + (1u << 20); /* the tail stays with the caller */
        len = HIPR_HEADER_SIZE + HIPR_memcpy_h2d_SIZE;
    } else {
        payload = HIPR_launch_SIZE + rnd(s) % 700;
        len = HIPR_HEADER_SIZE + (size_t)payload;
    }
    uint8_t *p = replay_ring_reserve(r, len);
    if (!p)
        return 0;
    CHECK(p >= r->buf && p + len <= r->buf + r->cap); /* contiguous */
    uint8_t fill = (uint8_t)rnd(s);
    put_frame(p, len, op, payload, fill);
    CHECK(replay_frame_len(ring_ptr, p) == len);
    replay_ring_commit(r, len);
    CHECK(count < MAXF);
    struct frame *f = &model[(first + count++) % MAXF];
    f->seq = mark ? 0 : next_seq++;
    f->len = len;
    f->fill = fill;
    return 1;
}

static void check_frame(const uint8_t *p, const struct frame *f)
{
    CHECK(replay_frame_len(ring_ptr, p) == f->len);
    for (size_t i = HIPR_HEADER_SIZE; i < f->len; i++)
        CHECK(p[i] == f->fill);
}

static void send_all(struct replay_ring *r)
{
    struct iovec iov[REPLAY_RING_PADS + 2];
    int n = replay_ring_unsent(r, iov, REPLAY_RING_PADS + 2);
    size_t before = wire_len;
    for (int i = 0; i < n; i++) {
        CHECK(wire_len + iov[i].iov_len <= sizeof wire);
        memcpy(wire + wire_len, iov[i].iov_base, iov[i].iov_len);
        wire_len += iov[i].iov_len;
    }
    replay_ring_mark_sent(r);
    replay_ring_note_send(r, next_seq - 1);
    size_t end = dropped + count;
    int same = mcount && mmarks[(mfirst + mcount - 1) % REPLAY_RING_MARKS].end == end;
    if (!same && mcount < REPLAY_RING_MARKS) {
        struct mmark *m = &mmarks[(mfirst + mcount++) % REPLAY_RING_MARKS];
        m->end = end;
        m->seq = next_seq - 1;
    }
    /* The bytes sent are exactly the unsent frames, in order. */
    size_t off = before;
    for (; nsent < count; nsent++) {
        const struct frame *f = &model[(first + nsent) % MAXF];
        CHECK(off + f->len <= wire_len);
        check_frame(wire + off, f);
        off += f->len;
    }
    CHECK(off == wire_len);
    wire_len = 0;
}

static void release(struct replay_ring *r, uint64_t done)
{
    replay_ring_release(r, done);
    /* The model drops whole sends whose requests are all done. */
    while (mcount && mmarks[mfirst].seq <= done) {
        while (dropped < mmarks[mfirst].end) {
            const struct frame *f = &model[first];
            if (f->seq)
                released_seq = f->seq;
            first = (first + 1) % MAXF;
            count--;
            nsent--;
            dropped++;
        }
        released_seq = mmarks[mfirst].seq;
        mfirst = (mfirst + 1) % REPLAY_RING_MARKS;
        mcount--;
    }
    CHECK(r->tail_seq == released_seq);
    CHECK(r->mcount == mcount);
}

struct walk {
    size_t i; /* model index of the next frame expected */
    int frames;
};

static int emit(void *ctx, uint64_t seq, const uint8_t *frame, size_t len, uint16_t opcode,
                uint64_t payload_length)
{
    struct walk *w = ctx;
    const struct frame *f = &model[(first + w->i) % MAXF];
    (void)payload_length;
    CHECK(w->i < count);
    CHECK(seq == f->seq && len == f->len);
    CHECK((seq == 0) == (opcode == HIPR_OP_ACK));
    check_frame(frame, f);
    w->i++;
    w->frames++;
    return 0;
}

static void walk_from(struct replay_ring *r, uint64_t done)
{
    struct walk w = { 0, 0 };
    /* The model's first request after done. */
    while (w.i < count) {
        const struct frame *f = &model[(first + w.i) % MAXF];
        if (f->seq && f->seq > done)
            break;
        w.i++;
    }
    size_t start = w.i;
    CHECK(replay_ring_walk(r, done, emit, &w) == 0);
    CHECK(w.i == count || start == count);
    CHECK((size_t)w.frames == count - start);
}

int main(void)
{
    struct replay_ring r;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    CHECK(replay_ring_init(&r, CAP, 64 * 1024 + 64) == 0);
    ring_ptr = &r;
    CHECK(replay_ring_reserve(&r, CAP + 1) == NULL); /* never fits */
    uint64_t wraps = 0, fulls = 0;
    for (int step = 0; step < 200000; step++) {
        uint64_t head = r.head;
        switch (rnd(&s) % 8) {
        case 0:
        case 1:
        case 2:
        case 3:
            if (!append(&r, &s)) {
                fulls++;
                CHECK(count > 0); /* an empty ring always has room */
            }
            break;
        case 4:
        case 5: send_all(&r); break;
        case 6: {
            /* The worker executed some of what was sent. */
            uint64_t sent_hi = released_seq;
            for (size_t i = 0; i < nsent; i++) {
                const struct frame *f = &model[(first + i) % MAXF];
                if (f->seq)
                    sent_hi = f->seq;
            }
            uint64_t done = released_seq +
                            (sent_hi > released_seq ? rnd(&s) % (sent_hi - released_seq + 1) : 0);
            release(&r, done);
            break;
        }
        case 7: walk_from(&r, released_seq + rnd(&s) % 4); break;
        }
        wraps += r.head / CAP != head / CAP;
        CHECK(replay_ring_used(&r) <= CAP);
    }
    /* Everything sent and executed: the ring empties. */
    send_all(&r);
    release(&r, UINT64_MAX);
    CHECK(count == 0 && replay_ring_used(&r) == 0);
    printf("replay ring: %llu requests, %llu wraps, %llu times full: ok\n",
           (unsigned long long)(next_seq - 1), (unsigned long long)wraps,
           (unsigned long long)fulls);
    replay_ring_free(&r);
    return 0;
}
