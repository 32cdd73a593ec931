/* drain.c - WORKER_DRAIN and what the supervisor does with it (drain.h). */
#include "drain.h"

#include <string.h>

#include "hw_log.h"
#include "hw_status.h"
#include "hw_time.h"
#include "hipr.h"
#include "session.h"

int drain_answer(struct session *s, uint32_t request_id, const uint8_t *fixed, const char *peer)
{
    struct status_table *t = s->table;
    struct hipr_worker_drain req, rep;
    memset(&req, 0, sizeof req);
    memset(&rep, 0, sizeof rep);
    hipr_worker_drain_decode(fixed, HIPR_worker_drain_SIZE, &req);
    uint32_t none = DRAIN_NONE;
    /* The first drain's timeout stands; a second one only reports it. */
    if (__atomic_compare_exchange_n(&t->draining, &none, DRAIN_CLAIMED, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&t->drain_timeout_s, req.timeout_s, __ATOMIC_RELAXED);
        __atomic_store_n(&t->draining, DRAIN_ACTIVE, __ATOMIC_RELEASE);
        if (req.timeout_s)
            hw_info("drain asked by %s: no new sessions from now on; sessions left after %u s "
                    "are ended",
                    peer, req.timeout_s);
        else
            hw_info("drain asked by %s: no new sessions from now on; no time limit", peer);
    }
    uint64_t unused;
    rep.timeout_s = __atomic_load_n(&t->drain_timeout_s, __ATOMIC_RELAXED);
    rep.sessions = status_table_count(t, &unused);
    uint8_t out[HIPR_worker_drain_SIZE];
    hipr_worker_drain_encode(out, &rep);
    return slink_reply(&s->link, HIPR_OP_WORKER_DRAIN, request_id, HW_OK, out, sizeof out, NULL, 0);
}

int drain_refuses_sessions(const struct status_table *t)
{
    return __atomic_load_n(&t->draining, __ATOMIC_ACQUIRE) != DRAIN_NONE;
}

int drain_should_stop(struct status_table *t, int live, uint64_t *deadline_ms)
{
    if (__atomic_load_n(&t->draining, __ATOMIC_ACQUIRE) != DRAIN_ACTIVE)
        return 0;
    if (!*deadline_ms) {
        uint32_t timeout_s = __atomic_load_n(&t->drain_timeout_s, __ATOMIC_RELAXED);
        *deadline_ms = timeout_s ? hw_now_ms() + (uint64_t)timeout_s * 1000 : UINT64_MAX;
        hw_info("draining: %d session process(es) left to end", live);
    }
    if (live == 0) {
        hw_info("drained: no session left; exiting");
        return 1;
    }
    if (hw_now_ms() >= *deadline_ms) {
        hw_info("drain timeout: ending the %d session process(es) left (GOING_AWAY)", live);
        __atomic_store_n(&t->draining, DRAIN_TIMEDOUT, __ATOMIC_RELEASE);
        return 1;
    }
    return 0;
}
