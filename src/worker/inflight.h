/*
 * inflight.h - bounds the work a session has accepted but its device has
 * not finished yet (--max-inflight).
 *
 * Everything queued is charged against one per-session budget: staged copy
 * data, a fixed INFLIGHT_OP_COST per backend queue entry (launch, memset,
 * copy, record, wait, each row of a 2D copy), and each reply still owed
 * (with its data). When the budget is spent the dispatch loop stops reading
 * the socket until the device catches up: a client that floods
 * fire-and-forget work is slowed by TCP backpressure and the worker's memory
 * stays bounded by the budget (plus one request, which may always proceed
 * alone).
 *
 * Queue entries are counted in batches: a stream's charges accumulate
 * privately (no lock per launch) until they reach a checkpoint size, then
 * they join the shared budget and one callback queued behind them releases
 * them together (a callback per launch would double the queue). Charges not
 * yet checkpointed count against the budget too; before the loop waits,
 * every stream's open charges get their checkpoint, so what it waits for is
 * always on its way.
 */
#ifndef INFLIGHT_H
#define INFLIGHT_H

#include "session_limits.h"

/* What one backend queue entry is charged: its record, its arguments copy
 * and the backend's bookkeeping, rounded up. */
#define INFLIGHT_OP_COST 256u

/* Charges n bytes released later by inflight_release(); waits while the
 * budget is spent. Dispatch thread only. */
void inflight_acquire(struct sess_limits *lm, uint64_t n);
void inflight_release(struct sess_limits *lm, uint64_t n);

/* Charges work just queued on `stream` (its wire id; bs the backend's
 * stream), released when the stream gets past it. Dispatch thread only. */
void inflight_queued(struct sess_limits *lm, uint64_t stream, struct hw_bstream *bs, uint64_t n);

/* Queues a checkpoint behind the open charges of one stream (before it is
 * destroyed), or of every stream. */
void inflight_checkpoint(struct sess_limits *lm, struct hw_bstream *bs, uint64_t *uncovered);
void inflight_checkpoint_all(struct sess_limits *lm);

#endif
