/*
 * drain.h - `hipwire drain` (WORKER_DRAIN, docs/protocol.md "Drain"): the
 * worker admits no new session, lets the live ones end, and exits when none
 * is left or the drain's timeout runs out. The state lives in the shared
 * status table, so the session process that answers the request and the
 * supervisor that acts on it need no other channel.
 */
#ifndef DRAIN_H
#define DRAIN_H

#include <stdint.h>

#include "status_table.h"

struct session;

/* status_table.draining */
#define DRAIN_NONE     0u
#define DRAIN_CLAIMED  1u /* a drain is being recorded (its timeout not yet stored) */
#define DRAIN_ACTIVE   2u
#define DRAIN_TIMEDOUT 3u /* the supervisor ends the sessions left: GOING_AWAY DRAIN */

/* Answers a WORKER_DRAIN request (the fixed part in `fixed`), starting the
 * drain unless one is under way. */
int drain_answer(struct session *s, uint32_t request_id, const uint8_t *fixed, const char *peer);
/* Whether the worker refuses new sessions. */
int drain_refuses_sessions(const struct status_table *t);
/* For the supervisor, each turn: whether to stop now (no session process
 * left, or the timeout ran out). *deadline_ms starts at 0. */
int drain_should_stop(struct status_table *t, int live, uint64_t *deadline_ms);

#endif
