/*
 * session_limits.h - the third layer of a session: what bounds it (--max-inflight,
 * the quotas, --idle-timeout). Its state is here; its functions are in
 * inflight.h, quota.h and idle.h.
 *
 * The limits take this struct, never the session: what they look at below
 * them (the link, the resources, the backend, the status slot) is reached
 * through the pointers here, which the lifecycle sets as each comes to be.
 */
#ifndef SESSION_LIMITS_H
#define SESSION_LIMITS_H

#include <pthread.h>
#include <stdint.h>

#include "backend.h"
#include "hipr.h"
#include "session_link.h"
#include "session_res.h"
#include "status_table.h"
#include "worker.h"

struct sess_limits {
    /* Below the limits: set by limits_init, limits_attach_backend, and
     * (slot) by the lifecycle once the session is admitted. */
    uint64_t id; /* the session's, for the log */
    const struct worker_config *cfg;
    struct sess_link *link;
    struct sess_res *res;
    struct status_table *table;
    struct status_slot *slot;         /* NULL until the session is admitted */
    const struct hw_backend_ops *ops; /* NULL until the backend is open */
    struct hw_backend *be;
    int device_count;

    /* Work accepted and not finished, bounded by --max-inflight so a flood
     * slows the client (TCP backpressure) instead of growing the worker
     * (inflight.c). */
    pthread_mutex_t stage_lock;
    pthread_cond_t stage_cond;
    uint64_t staged_bytes;
    uint64_t uncovered_default[HIPR_CAP_DEVICES]; /* per default stream */
    uint64_t uncovered_total;                     /* all streams' charges with no checkpoint yet */

    unsigned quota_logged;    /* quota.c: quotas already reported in the log */
    uint64_t last_request_ns; /* idle.c: the last request that counts as activity */
    int active_since_wait;    /* idle.c: such a request arrived since it looked */
};

/* Nothing charged, nothing attached but what every session has. */
void limits_init(struct sess_limits *lm, const struct worker_config *cfg, struct sess_link *link,
                 struct sess_res *res, struct status_table *table);
/* The backend, once open (it stays until the session's teardown). */
void limits_attach_backend(struct sess_limits *lm, const struct hw_backend_ops *ops,
                           struct hw_backend *be, int device_count);

#endif
