#include "idle.h"

#include "hw_log.h"
#include "hw_time.h"

#define IDLE_SLICE_MS 1000 /* how often running work is looked at */

static int counts_as_activity(uint16_t opcode)
{
    /* Pings and heartbeats keep a link alive; they are not use. */
    return opcode != HIPR_OP_PING && opcode != HIPR_OP_HEARTBEAT;
}

void idle_note_request(struct sess_limits *lm, uint16_t opcode)
{
    /* No clock read per request: idle_wait_request() stamps the time when
     * the read buffer runs dry, microseconds later at most. */
    if (counts_as_activity(opcode))
        lm->active_since_wait = 1;
}

int idle_work_running(struct sess_limits *lm)
{
    if (!lm->be)
        return 0;
    struct hw_bstream *bs;
    for (int d = 0; d < lm->device_count; d++)
        if (lm->ops->stream_default(lm->be, d, &bs) == HW_OK &&
            lm->ops->stream_query(lm->be, bs) == HW_ENOTREADY)
            return 1;
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&lm->res->streams, &pos, &key, &v)) {
        struct s_stream *st = v;
        if (lm->ops->stream_query(lm->be, st->bs) == HW_ENOTREADY)
            return 1;
    }
    return 0;
}

int idle_wait_request(struct sess_limits *lm)
{
    uint64_t limit_ns = lm->cfg->idle_timeout_ms * 1000000u;
    if (!limit_ns || slink_buffered(lm->link))
        return 0; /* off, or a request is already buffered */
    if (lm->active_since_wait || !lm->last_request_ns) {
        lm->last_request_ns = hw_now_ns();
        lm->active_since_wait = 0;
    }
    for (;;) {
        uint64_t now = hw_now_ns(), deadline = lm->last_request_ns + limit_ns;
        if (now >= deadline) {
            if (!idle_work_running(lm)) {
                hw_info("session %016llx: ending: idle for %llu ms, no request and no work running "
                        "(--idle-timeout)",
                        (unsigned long long)lm->id,
                        (unsigned long long)((now - lm->last_request_ns) / 1000000u));
                return -1;
            }
            lm->last_request_ns = now; /* running work is activity */
            continue;
        }
        uint64_t left_ms = (deadline - now + 999999u) / 1000000u;
        /* Through the transport: TLS may hold decrypted bytes the socket lacks. */
        int r = hw_tx_poll_readable(&lm->link->tx,
                                    left_ms < IDLE_SLICE_MS ? (int)left_ms : IDLE_SLICE_MS);
        if (r != 0)
            return 0; /* data, end of input or an error: the read says which */
        if (r == 0 && idle_work_running(lm))
            lm->last_request_ns = hw_now_ns();
    }
}
