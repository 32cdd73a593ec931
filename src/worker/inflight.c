#include "inflight.h"

#include <poll.h>
#include <stdlib.h>
#include <time.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_time.h"

#define WAIT_SLICE_NS 100000000L /* how often a waiting loop looks at the peer */

/* staged_bytes changes under stage_lock; the dispatch thread also reads it
 * without the lock to decide whether it may have to wait. */
static uint64_t staged(struct sess_limits *lm)
{
    return __atomic_load_n(&lm->staged_bytes, __ATOMIC_ACQUIRE);
}

static uint64_t checkpoint_size(const struct sess_limits *lm)
{
    uint64_t n = lm->cfg->max_inflight / 16;
    if (n < 64 * HIPR_KiB)
        n = 64 * HIPR_KiB;
    if (n > 8 * HIPR_MiB)
        n = 8 * HIPR_MiB;
    return n;
}

struct checkpoint {
    struct sess_limits *lm;
    uint64_t n;
};

static void checkpoint_done(void *arg, int status)
{
    struct checkpoint *cp = arg;
    (void)status;
    inflight_release(cp->lm, cp->n);
    free(cp);
}

void inflight_checkpoint(struct sess_limits *lm, struct hw_bstream *bs, uint64_t *uncovered)
{
    uint64_t n = *uncovered;
    if (n == 0)
        return;
    *uncovered = 0;
    lm->uncovered_total -= n;
    pthread_mutex_lock(&lm->stage_lock);
    __atomic_add_fetch(&lm->staged_bytes, n, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lm->stage_lock);
    struct checkpoint *cp = hw_malloc(sizeof *cp);
    if (cp) {
        cp->lm = lm;
        cp->n = n;
        if (lm->ops->stream_callback(lm->be, bs, checkpoint_done, cp) == HW_OK)
            return;
        free(cp);
    }
    /* Out of memory, or the stream is gone: nothing can mark the spot, and
     * holding the charge forever would wedge the session. */
    inflight_release(lm, n);
}

void inflight_checkpoint_all(struct sess_limits *lm)
{
    for (int d = 0; d < lm->device_count && d < HIPR_CAP_DEVICES; d++) {
        struct hw_bstream *bs;
        if (lm->uncovered_default[d] && lm->ops->stream_default(lm->be, d, &bs) == HW_OK)
            inflight_checkpoint(lm, bs, &lm->uncovered_default[d]);
    }
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&lm->res->streams, &pos, &key, &v)) {
        struct s_stream *st = v;
        inflight_checkpoint(lm, st->bs, &st->uncovered);
    }
}

/* A peer that reset the connection will read no reply and send nothing
 * more that could matter: what is still unread is dropped, not run. */
static int peer_reset(struct sess_limits *lm)
{
    struct pollfd pfd = { .fd = lm->link->tx.fd, .events = POLLIN };
    return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR));
}

/* Waits, stage_lock held, until n more bytes fit in the budget. One charge
 * larger than the budget may always proceed alone, or it would wait forever.
 * Every charge must already have its checkpoint queued (or be released by
 * its own completion), so what this waits for is on its way. */
static void wait_for_room_locked(struct sess_limits *lm, uint64_t n)
{
    while (lm->staged_bytes > 0 && lm->staged_bytes + n > lm->cfg->max_inflight &&
           !__atomic_load_n(&lm->link->send_failed, __ATOMIC_ACQUIRE)) {
        struct timespec until = hw_deadline_after_ns(CLOCK_REALTIME, WAIT_SLICE_NS);
        pthread_cond_timedwait(&lm->stage_cond, &lm->stage_lock, &until);
        if (peer_reset(lm)) {
            pthread_mutex_unlock(&lm->stage_lock);
            hw_info("session %016llx: the client reset the connection; dropping what it "
                    "sent and was not read yet%s",
                    (unsigned long long)lm->id,
                    lm->link->resumable ? " (a resumed client sends it again)" : "");
            /* The request loop ends after this request, or detaches when the
             * session is resumable. */
            slink_lost(lm->link);
            pthread_mutex_lock(&lm->stage_lock);
            return;
        }
    }
}

void inflight_acquire(struct sess_limits *lm, uint64_t n)
{
    if (lm->uncovered_total + staged(lm) + n > lm->cfg->max_inflight)
        inflight_checkpoint_all(lm);
    pthread_mutex_lock(&lm->stage_lock);
    wait_for_room_locked(lm, n);
    __atomic_add_fetch(&lm->staged_bytes, n, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lm->stage_lock);
}

void inflight_release(struct sess_limits *lm, uint64_t n)
{
    pthread_mutex_lock(&lm->stage_lock);
    __atomic_sub_fetch(&lm->staged_bytes, n, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&lm->stage_cond);
    pthread_mutex_unlock(&lm->stage_lock);
}

/* The common case costs a few additions: queue entries are counted privately
 * per stream and reach the shared budget a checkpoint at a time. */
void inflight_queued(struct sess_limits *lm, uint64_t stream, struct hw_bstream *bs, uint64_t n)
{
    uint64_t *uncovered = NULL;
    if (stream < HIPR_FIRST_STREAM_ID) {
        if (stream < HIPR_CAP_DEVICES)
            uncovered = &lm->uncovered_default[stream];
    } else {
        struct s_stream *st = handle_map_get(&lm->res->streams, stream);
        if (st)
            uncovered = &st->uncovered;
    }
    if (!uncovered)
        return; /* not a stream of this session: nothing was queued */
    *uncovered += n;
    lm->uncovered_total += n;
    if (*uncovered >= checkpoint_size(lm))
        inflight_checkpoint(lm, bs, uncovered);
    if (lm->uncovered_total + staged(lm) > lm->cfg->max_inflight) {
        inflight_checkpoint_all(lm);
        pthread_mutex_lock(&lm->stage_lock);
        wait_for_room_locked(lm, 0);
        pthread_mutex_unlock(&lm->stage_lock);
    }
}
