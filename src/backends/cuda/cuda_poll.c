/*
 * cuda_poll.c - completions found by polling events (the default).
 *
 * Each completion records an event behind the work it waits for, and one
 * thread per backend polls the events of the pending completions, flat out
 * for a while after the last progress, then in short naps. A driver callback
 * (cuStreamAddCallback) instead wakes the driver's thread some time after
 * the GPU finished, and the stream stalls until the callback returns; a
 * reply that waits on the GPU (a synchronize, a D2H copy, the loss a
 * training step reads back) goes out sooner this way, much as a native
 * program's spinning cuStreamSynchronize returns. HIPWIRE_CUDA_COMPLETIONS=
 * callback selects the driver callbacks instead.
 *
 * Order: completions queued on one stream run in the order they were
 * queued (a D2H reply must not overtake the chunk copies before it), so a
 * pass stops polling a stream at its first unfinished completion.
 */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "hw_alloc.h"
#include "cuda_internal.h"
#include "hw_time.h"

#define SPIN_NS     (1000u * 1000u) /* poll without pause this long after progress */
#define NAP_NS      (50u * 1000u)   /* then pause this long between passes */
#define MAX_BLOCKED 64              /* streams with an unfinished completion, per pass */

/* An event of d's context; the caller has that context current. */
static int ev_get(struct hw_backend *be, struct cu_dev *d, CUevent *out)
{
    pthread_mutex_lock(&be->lock);
    if (d->nevfree > 0) {
        *out = d->evfree[--d->nevfree];
        pthread_mutex_unlock(&be->lock);
        return HW_OK;
    }
    pthread_mutex_unlock(&be->lock);
    return hwcu_check(be, be->api.cuEventCreate(out, HWCU_EVENT_DISABLE_TIMING));
}

static void ev_put(struct hw_backend *be, struct cu_dev *d, CUevent ev)
{
    pthread_mutex_lock(&be->lock);
    if (d->nevfree == d->evcap) {
        unsigned cap = d->evcap ? 2 * d->evcap : 16;
        CUevent *v = hw_realloc(d->evfree, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&be->lock);
            return; /* out of memory: the event is not reused */
        }
        d->evfree = v;
        d->evcap = cap;
    }
    d->evfree[d->nevfree++] = ev;
    pthread_mutex_unlock(&be->lock);
}

int hwcu_poll_enqueue(struct hw_backend *be, struct cu_dev *d, CUstream s, struct cb_rec *r)
{
    CUevent ev;
    int rc = ev_get(be, d, &ev);
    if (rc != HW_OK)
        return rc;
    if ((rc = hwcu_check(be, be->api.cuEventRecord(ev, s))) != HW_OK) {
        ev_put(be, d, ev);
        return rc;
    }
    r->ev = ev;
    r->d = d;
    r->stream = s;
    r->pnext = NULL;
    pthread_mutex_lock(&be->lock);
    if (be->poll_tail)
        be->poll_tail->pnext = r;
    else
        be->poll_head = r;
    be->poll_tail = r;
    pthread_cond_signal(&be->poll_cond);
    pthread_mutex_unlock(&be->lock);
    return HW_OK;
}

struct blocked {
    struct cu_dev *d;
    CUstream s;
};

static int is_blocked(const struct blocked *b, int n, const struct cb_rec *r)
{
    for (int i = 0; i < n; i++)
        if (b[i].d == r->d && b[i].s == r->stream)
            return 1;
    return 0;
}

/* Polls every pending completion once; finished ones run (in queue order
 * per stream) and leave the list. Returns whether any finished. */
static int poll_pass(struct hw_backend *be, CUcontext *cur)
{
    pthread_mutex_lock(&be->lock);
    struct cb_rec *list = be->poll_head;
    be->poll_head = be->poll_tail = NULL;
    pthread_mutex_unlock(&be->lock);

    struct blocked blocked[MAX_BLOCKED];
    int nblocked = 0, progress = 0;
    struct cb_rec *keep = NULL, *keep_tail = NULL;
    while (list) {
        struct cb_rec *r = list;
        list = r->pnext;
        r->pnext = NULL;
        /* A full table polls nothing more this pass: order before speed. */
        CUresult q = HWCU_ERROR_NOT_READY;
        if (nblocked < MAX_BLOCKED && !is_blocked(blocked, nblocked, r)) {
            if (*cur != r->d->ctx && be->api.cuCtxSetCurrent(r->d->ctx) == HWCU_SUCCESS)
                *cur = r->d->ctx;
            q = be->api.cuEventQuery(r->ev);
        }
        if (q == HWCU_ERROR_NOT_READY) {
            if (nblocked < MAX_BLOCKED && !is_blocked(blocked, nblocked, r))
                blocked[nblocked++] = (struct blocked){ r->d, r->stream };
            if (keep_tail)
                keep_tail->pnext = r;
            else
                keep = r;
            keep_tail = r;
            continue;
        }
        progress = 1;
        CUevent ev = r->ev;
        struct cu_dev *d = r->d;
        hwcu_cb_complete(r, q); /* frees r */
        ev_put(be, d, ev);
    }
    if (keep) {
        /* Older completions go back before any queued meanwhile. */
        pthread_mutex_lock(&be->lock);
        keep_tail->pnext = be->poll_head;
        be->poll_head = keep;
        if (!be->poll_tail)
            be->poll_tail = keep_tail;
        pthread_mutex_unlock(&be->lock);
    }
    return progress;
}

static void *poller(void *arg)
{
    struct hw_backend *be = arg;
    CUcontext cur = NULL;
    uint64_t last_progress = hw_now_ns();
    for (;;) {
        pthread_mutex_lock(&be->lock);
        while (!be->poll_head && !be->poll_stop) {
            pthread_cond_wait(&be->poll_cond, &be->lock);
            last_progress = hw_now_ns();
        }
        int done = !be->poll_head; /* stopping, and nothing left */
        pthread_mutex_unlock(&be->lock);
        if (done)
            break;
        if (poll_pass(be, &cur)) {
            last_progress = hw_now_ns();
        } else if (hw_now_ns() - last_progress < SPIN_NS) {
            sched_yield();
        } else {
            struct timespec nap = { 0, NAP_NS };
            nanosleep(&nap, NULL);
        }
    }
    return NULL;
}

int hwcu_poll_start(struct hw_backend *be)
{
    pthread_cond_init(&be->poll_cond, NULL);
    if (pthread_create(&be->poller, NULL, poller, be) != 0) {
        pthread_cond_destroy(&be->poll_cond);
        return HW_EOS;
    }
    be->poller_started = 1;
    return HW_OK;
}

void hwcu_poll_stop(struct hw_backend *be)
{
    if (!be->poller_started)
        return;
    /* The poller leaves once nothing is pending: the caller has synchronized
     * the contexts (or they are lost, and every event reports so). */
    pthread_mutex_lock(&be->lock);
    be->poll_stop = 1;
    pthread_cond_signal(&be->poll_cond);
    pthread_mutex_unlock(&be->lock);
    pthread_join(be->poller, NULL);
    be->poller_started = 0;
    pthread_cond_destroy(&be->poll_cond);
}

void hwcu_poll_free_events(struct hw_backend *be, struct cu_dev *d)
{
    for (unsigned i = 0; i < d->nevfree; i++)
        be->api.cuEventDestroy(d->evfree[i]);
    free(d->evfree);
    d->evfree = NULL;
    d->nevfree = d->evcap = 0;
}
