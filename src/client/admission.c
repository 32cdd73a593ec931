/*
 * admission.c - see admission.h. The worker promises a notice at least
 * every interval_ms while the client waits, so a silence of 4 intervals
 * (or TF_CONNECT_TIMEOUT_MS, if longer) means the worker is gone; each
 * kind of wait also has its own total bound.
 */
#include "admission.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "hipr.h"
#include "hw_log.h"
#include "hw_time.h"

void hw_admit_init(struct hw_admit *a, struct hw_transport *tx, const char *where)
{
    memset(a, 0, sizeof *a);
    a->tx = tx;
    a->where = where;
    a->connect_ms = hw_env_int("TF_CONNECT_TIMEOUT_MS", HW_CONNECT_TIMEOUT_MS, 1, 3600000);
    a->start_ms = hw_env_int("TF_DEVICE_START_TIMEOUT_MS", HW_DEVICE_START_TIMEOUT_MS, 1, 3600000);
    a->admission_ms = hw_env_int("TF_ADMISSION_TIMEOUT_MS", HW_ADMISSION_TIMEOUT_MS, 0, 86400000);
}

/* The next read may wait for the next notice, but not past `left_ms`. */
static void next_read_bound(struct hw_admit *a, uint32_t interval_ms, uint64_t left_ms)
{
    uint64_t ms = 4 * (uint64_t)(interval_ms ? interval_ms : 1000);
    if (ms < (uint64_t)a->connect_ms)
        ms = (uint64_t)a->connect_ms;
    if (left_ms && ms > left_ms)
        ms = left_ms;
    hw_tx_set_recv_timeout(a->tx, (int)(ms ? ms : 1));
}

static int give_up(struct hw_admit *a, const char *fmt, unsigned long long ms, const char *var)
{
    snprintf(a->why, sizeof a->why, fmt, ms, var);
    errno = ETIMEDOUT;
    return -1;
}

int hw_admit_watch(void *ctx, uint16_t opcode, const uint8_t *body, size_t len)
{
    struct hw_admit *a = ctx;
    struct hipr_session_wait m;
    if (opcode != HIPR_OP_SESSION_WAIT || len != HIPR_session_wait_SIZE)
        return 0; /* a heartbeat or a later kind of notice: nothing to do */
    hipr_session_wait_decode(body, len, &m);
    uint64_t now = hw_now_ms();
    switch (m.state) {
    case HIPR_WAIT_QUEUED: {
        if (!a->queued_since_ms)
            a->queued_since_ms = now;
        if (m.position != a->position)
            hw_debug("%s: queued for a session (all busy), position %u", a->where, m.position);
        uint64_t waited = now - a->queued_since_ms;
        if (a->admission_ms && waited >= (uint64_t)a->admission_ms)
            return give_up(a, "still queued for a session after %llu ms (%s)", waited,
                           "TF_ADMISSION_TIMEOUT_MS");
        next_read_bound(a, m.interval_ms, a->admission_ms ? a->admission_ms - waited : 0);
        break;
    }
    case HIPR_WAIT_STARTING: {
        if (!a->starting_since_ms) {
            a->starting_since_ms = now;
            hw_debug("%s: the worker's device is starting", a->where);
        }
        uint64_t waited = now - a->starting_since_ms;
        if (waited >= (uint64_t)a->start_ms)
            return give_up(a, "the worker's device did not start within %llu ms (%s)", waited,
                           "TF_DEVICE_START_TIMEOUT_MS");
        next_read_bound(a, m.interval_ms, (uint64_t)a->start_ms - waited);
        break;
    }
    case HIPR_WAIT_BUSY:
        a->retry_after_ms = m.retry_after_ms ? m.retry_after_ms : 1000;
        hw_debug("%s: busy (--max-sessions reached, admission queue full), retry after %u ms",
                 a->where, a->retry_after_ms);
        break;
    default: return 0;
    }
    a->state = m.state;
    a->position = m.position;
    return 0;
}

void hw_admit_explain(struct hw_admit *a)
{
    if (a->why[0] || !a->state)
        return;
    uint64_t now = hw_now_ms();
    if (a->state == HIPR_WAIT_STARTING && now - a->starting_since_ms + 50 >= (uint64_t)a->start_ms)
        snprintf(a->why, sizeof a->why,
                 "the worker's device did not start within %d ms (TF_DEVICE_START_TIMEOUT_MS)",
                 a->start_ms);
    else if (a->state == HIPR_WAIT_QUEUED && a->admission_ms &&
             now - a->queued_since_ms + 50 >= (uint64_t)a->admission_ms)
        snprintf(a->why, sizeof a->why,
                 "still queued for a session after %d ms (TF_ADMISSION_TIMEOUT_MS)",
                 a->admission_ms);
    else
        snprintf(a->why, sizeof a->why, "the worker went silent while %s",
                 a->state == HIPR_WAIT_QUEUED ? "queued for a session" : "its device started");
}
