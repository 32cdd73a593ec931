/*
 * quota.h - how a session learns it has hit one of its limits.
 *
 * A refused request gets hipErrorOutOfMemory (the status HIP itself uses
 * when a resource runs out) and the worker logs one line naming the limit
 * and its option, the first time each limit refuses that session; later
 * refusals of the same kind are logged at debug level only, so a client
 * retrying in a loop cannot flood the log.
 */
#ifndef QUOTA_H
#define QUOTA_H

#include "session_limits.h"

enum quota_kind {
    QUOTA_MEMORY,        /* --mem-limit */
    QUOTA_HANDLES,       /* --max-handles */
    QUOTA_MODULE_SIZE,   /* --max-module-size */
    QUOTA_STREAMS,       /* --max-streams */
    QUOTA_STREAMS_TOTAL, /* --max-streams-total */
};

/* Logs the refusal (fmt says what was asked) and returns HW_ENOMEM. */
int quota_refuse(struct sess_limits *lm, enum quota_kind q, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* HW_OK when the session may add one more handle to `map` (what: "streams",
 * "events", ...); otherwise the refusal. */
int quota_handle(struct sess_limits *lm, const struct handle_map *map, const char *what);
/* HW_OK when the session may create one more stream (its own limit and the
 * worker's budget); otherwise the refusal. */
int quota_stream(struct sess_limits *lm);
/* Publishes the session's stream count for the worker-wide budget. */
void quota_streams_changed(struct sess_limits *lm);

#endif
