/*
 * replay_ring.h - the proxy's write buffer, which is also its replay
 * buffer (docs/protocol.md, "Session resume").
 *
 * Frames are written once, into a ring, and go to the socket from there
 * (coalesced, one writev). While the session is resumable a frame stays
 * after it is sent, until the worker says it executed the request, so
 * that a resumed connection can carry again whatever the worker never
 * got; nothing is copied a second time. Otherwise a frame is dropped as
 * soon as it is sent, and the ring is just the coalescing buffer.
 *
 * A frame is contiguous in the ring: one that does not fit before the end
 * starts again at the beginning, the space skipped is remembered. A
 * request's tail travels in the ring when the frame's payload is at most
 * the ring's inline_max; a larger one is sent from the caller's memory,
 * which the caller keeps until the worker has it (client.h).
 *
 * Offsets are virtual (they only grow); buf[offset % cap] is the byte.
 * Frames are either requests of the session (numbered from 1, in order)
 * or marks (HEARTBEAT, ACK), which are not. Not thread-safe: the
 * connection's write lock guards it.
 */
#ifndef REPLAY_RING_H
#define REPLAY_RING_H

#include <stddef.h>
#include <stdint.h>

#include "hw_os.h"

#define REPLAY_RING_PADS  4
#define REPLAY_RING_MARKS 4096

/* Where a send ended and how many requests were before it: frames are
 * dropped a send at a time, without reading them again (a frame written
 * long ago is a cache miss). */
struct replay_mark {
    uint64_t off, seq;
};

struct replay_ring {
    uint8_t *buf;
    uint64_t cap;
    uint64_t inline_max;             /* the largest payload a frame keeps in the ring */
    uint64_t head;                   /* where the next frame goes */
    uint64_t sent;                   /* everything before it went to the socket */
    uint64_t tail;                   /* the oldest frame kept */
    uint64_t tail_seq;               /* requests before the frame at tail (all executed) */
    uint64_t pads[REPLAY_RING_PADS]; /* where skipped space starts, oldest first */
    unsigned npads;
    struct replay_mark *marks; /* sends not yet dropped, oldest first */
    unsigned mfirst, mcount;
    uint64_t sent_seq; /* requests before sent */
};

/* cap is rounded up to a power of two; inline_max as above. */
int replay_ring_init(struct replay_ring *r, uint64_t cap, uint64_t inline_max);
void replay_ring_free(struct replay_ring *r);

/* Room for one frame of `len` bytes at head, or NULL when the ring is too
 * full (or len larger than it can ever hold). replay_ring_commit() makes
 * it part of the ring once written. */
uint8_t *replay_ring_reserve(struct replay_ring *r, size_t len);
void replay_ring_commit(struct replay_ring *r, size_t len);

/* The bytes not sent yet, as up to max iovecs (spans split where space was
 * skipped and at the end of the buffer; max REPLAY_RING_PADS + 2 always
 * suffices). Returns the count. */
int replay_ring_unsent(const struct replay_ring *r, struct iovec *iov, int max);
void replay_ring_mark_sent(struct replay_ring *r);
/* Not resumable: everything sent is dropped at once (nothing is counted). */
void replay_ring_drop_sent(struct replay_ring *r);

/* Records that everything up to head went out, after `seq` requests in
 * all (resumable rings; a full list of sends just waits for the next). */
void replay_ring_note_send(struct replay_ring *r, uint64_t seq);
/* Drops sends whose requests are all numbered up to done. */
void replay_ring_release(struct replay_ring *r, uint64_t done);
/* The request count the oldest send kept waits for (0: none kept). */
uint64_t replay_ring_oldest_send(const struct replay_ring *r);

uint64_t replay_ring_used(const struct replay_ring *r);

/* Walks the frames from the first request numbered after `done` to head,
 * calling emit(ctx, seq, frame, len, opcode, payload_length) for each
 * (seq 0 for marks) in order. Returns emit's first non-zero result, or 0.
 * With nothing after done, emits nothing. */
int replay_ring_walk(const struct replay_ring *r, uint64_t done,
                     int (*emit)(void *ctx, uint64_t seq, const uint8_t *frame, size_t len,
                                 uint16_t opcode, uint64_t payload_length),
                     void *ctx);

/* The bytes a frame takes in the ring, from its header. */
size_t replay_frame_len(const struct replay_ring *r, const uint8_t *hdr);
/* Whether opcode is a mark (not a request of the session). */
int replay_is_mark(uint16_t opcode);

#endif
