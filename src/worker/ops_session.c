/*
 * ops_session.c - the session's own requests: HELLO, GOODBYE, PING, statistics,
 * worker status and drain, and the frames that belong to the handshake,
 * heartbeat and resume (answered here only when they arrive out of place).
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "ops.h"

HANDLER(HELLO)
{
    (void)fixed;
    /* Only valid as the first request: say so, then end the session. */
    slink_reply(&s->link, h->opcode, h->request_id, HW_EINVAL, NULL, 0, NULL, 0);
    return -1;
}

HANDLER(GOODBYE)
{
    (void)fixed;
    session_drain(s, -1);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, NULL, 0, NULL, 0);
    return -1; /* end the session cleanly */
}

HANDLER(PING)
{
    struct hipr_ping m;
    uint8_t out[HIPR_ping_SIZE];
    hipr_ping_decode(fixed, HIPR_ping_SIZE, &m);
    hipr_ping_encode(out, &m);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(SESSION_STATS)
{
    (void)fixed;
    struct hipr_session_stats_rep r = {
        .bytes_in_use = s->res.allocs.malloc_bytes,
        .allocations = 0,
        .streams = (uint32_t)s->res.streams.len,
        .events = (uint32_t)s->res.events.len,
        .modules = (uint32_t)s->res.modules.len,
    };
    for (size_t i = 0; i < s->res.allocs.len; i++)
        r.allocations += s->res.allocs.v[i].kind == ALLOC_MALLOC;
    uint8_t out[HIPR_session_stats_rep_SIZE];
    hipr_session_stats_rep_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(WORKER_STATUS)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL; /* answered only in place of HELLO */
}

HANDLER(WORKER_DRAIN)
{
    (void)h;
    (void)fixed;
    (void)s;
    return HW_EINVAL; /* answered only in place of HELLO, like WORKER_STATUS */
}

HANDLER(RTC_CACHE_STATS)
{
    (void)h;
    (void)fixed;
    (void)s;
    return HW_EINVAL; /* answered only in place of HELLO, like WORKER_STATUS */
}

/* Authentication happens before HELLO (session.c); afterwards it is an error. */
HANDLER(AUTH_BEGIN)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

HANDLER(AUTH_PROOF)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* A client's heartbeat: its arrival is the point (session.c times the gaps). */
HANDLER(HEARTBEAT)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_OK;
}

HANDLER(WORKER_INFO)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL; /* answered only in place of HELLO */
}

/* Turns session resume on: the request loop gives it to resume.c (the
 * lifecycle layer, above this one), so it never arrives here. */
HANDLER(RESUME_ENABLE)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* The same for TRANSPORT_SHM (shm_link.c). */
HANDLER(TRANSPORT_SHM)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* The request loop takes ACK frames itself (session.c). */
HANDLER(ACK)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_OK;
}

/* Both belong to a routed connection's handshake (resume.c), never to a
 * session's request stream. */
HANDLER(SESSION_ROUTE)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* Only the worker says it. */
HANDLER(GOING_AWAY)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

HANDLER(SESSION_RESUME)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* The worker's own notice while a client waits for its session (admission.c);
 * a client never sends one. */
HANDLER(SESSION_WAIT)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

/* Planned migration (migrate.c): MIGRATE_STATE is taken by the request loop
 * itself (it changes the session's lifecycle), MIGRATE only goes to
 * clients, WORKER_MIGRATE only in place of HELLO. */
HANDLER(MIGRATE_STATE)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

HANDLER(MIGRATE)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}

HANDLER(WORKER_MIGRATE)
{
    (void)s;
    (void)h;
    (void)fixed;
    return HW_EINVAL;
}
