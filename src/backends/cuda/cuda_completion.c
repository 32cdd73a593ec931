/*
 * cuda_completion.c - the bottom of the cuda backend above the driver table:
 * the current context, CUresult to status (a sticky error fails the whole
 * backend), and the list of pending completions with the staging slabs they
 * hold. cuda_poll.c (polled completions) and cuda_backend.c (the ops) sit
 * above it and call down only.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "cuda_internal.h"
#include "hw_log.h"

/* The context the calling thread has current, so the common case of one
 * device costs no driver call. Only the dispatch thread calls hwcu_use(). */
static _Thread_local CUcontext tl_ctx;

int hwcu_use(struct hw_backend *be, struct cu_dev *d)
{
    if (tl_ctx == d->ctx)
        return HW_OK;
    CUresult r = be->api.cuCtxSetCurrent(d->ctx);
    if (r != HWCU_SUCCESS)
        return hwcu_check(be, r);
    tl_ctx = d->ctx;
    return HW_OK;
}

const char *hwcu_err_name(struct hw_backend *be, CUresult r)
{
    const char *s = NULL;
    if (be->api.cuGetErrorName(r, &s) != HWCU_SUCCESS || !s)
        s = "unknown CUresult";
    return s;
}

void hwcu_fail(struct hw_backend *be, CUresult r)
{
    int st = hwcu_status(r);
    int expected = 0;
    if (__atomic_compare_exchange_n(&be->dead, &expected, st, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        /* No cuGetErrorName here: this may run on the driver's callback
         * thread, where CUDA calls are not allowed. */
        hw_error("cuda: device context lost: CUresult %d (hipError %d); every later call fails",
                 (int)r, st);
        if (be->cfg.shared) {
            /* The primary context is every session's of this process
             * (--isolation shared), and the driver hands the lost one to
             * any new session until all have let it go: the process ends,
             * every session with it, and the worker starts a fresh one. */
            hw_error("cuda: the context is shared by every session of this device process: "
                     "ending them all");
            _exit(72);
        }
        if (be->cfg.on_async_error)
            be->cfg.on_async_error(be->cfg.ctx, st);
    }
    hwcu_flush_pending(be, HWCU_DEAD(be));
}

int hwcu_check(struct hw_backend *be, CUresult r)
{
    if (r == HWCU_SUCCESS)
        return HW_OK;
    if (hwcu_is_sticky(r))
        hwcu_fail(be, r);
    return hwcu_status(r);
}

/* ---- pending completions ---------------------------------------------------- */

void hwcu_pending_add(struct hw_backend *be, struct cb_rec *r)
{
    r->next = &be->pending;
    r->prev = be->pending.prev;
    be->pending.prev->next = r;
    be->pending.prev = r;
    be->npending++;
}

void hwcu_pending_del(struct hw_backend *be, struct cb_rec *r)
{
    r->prev->next = r->next;
    r->next->prev = r->prev;
    r->prev = r->next = r;
    be->npending--;
}

void hwcu_slab_put_locked(struct hw_backend *be, struct slab_pool *pool, struct hw_bstage *sl)
{
    sl->next = pool->free;
    pool->free = sl;
    pthread_cond_broadcast(&be->slab_cond);
}

/* Runs each completion at most once: from the driver's callback, or from a
 * flush after the context was lost, whichever comes first. */
void hwcu_cb_complete(struct cb_rec *r, CUresult res)
{
    struct hw_backend *be = r->be;
    int st = hwcu_status(res);
    if (res != HWCU_SUCCESS) {
        /* Runs on the driver's thread: no CUDA calls, so no flush of streams
         * here beyond failing what is pending (hwcu_fail makes no CUDA call
         * except cuGetErrorName, which only reads a table). */
        hwcu_fail(be, hwcu_is_sticky(res) ? res : HWCU_ERROR_LAUNCH_FAILED);
    }
    pthread_mutex_lock(&be->lock);
    int fire = !r->fired;
    r->fired = 1;
    hwcu_pending_del(be, r);
    pthread_mutex_unlock(&be->lock);
    if (fire) {
        if (r->d2h_dst && st == HW_OK)
            memcpy(r->d2h_dst, r->slab->p, r->d2h_len);
        if (r->slab) {
            pthread_mutex_lock(&be->lock);
            hwcu_slab_put_locked(be, r->pool, r->slab);
            pthread_mutex_unlock(&be->lock);
        }
        if (r->fn)
            r->fn(r->arg, st);
    }
    free(r);
}

void hwcu_cb_stream(CUstream s, CUresult status, void *ud)
{
    (void)s;
    hwcu_cb_complete(ud, status);
}

void hwcu_cb_host(void *ud)
{
    hwcu_cb_complete(ud, HWCU_SUCCESS);
}

struct flushed {
    hw_done_fn fn;
    void *arg;
};

/* Fails every completion still pending. The records stay listed (the
 * driver may still call back; cb_complete then only frees them); fn/arg are
 * copied out under the lock because that call may free a record at once. */
void hwcu_flush_pending(struct hw_backend *be, int status)
{
    pthread_mutex_lock(&be->lock);
    struct flushed *v = hw_calloc(be->npending ? be->npending : 1, sizeof *v);
    size_t n = 0;
    for (struct cb_rec *r = be->pending.next; r != &be->pending; r = r->next) {
        if (r->fired)
            continue;
        r->fired = 1;
        if (r->slab)
            hwcu_slab_put_locked(be, r->pool, r->slab);
        if (!r->fn)
            continue;
        if (v) {
            v[n].fn = r->fn;
            v[n].arg = r->arg;
            n++;
        } else {
            r->fn(r->arg, status); /* out of memory: better late under the lock than never */
        }
    }
    pthread_mutex_unlock(&be->lock);
    for (size_t i = 0; i < n; i++)
        v[i].fn(v[i].arg, status);
    free(v);
}

struct cb_rec *hwcu_rec_new(struct hw_backend *be, hw_done_fn fn, void *arg)
{
    struct cb_rec *r = hw_calloc(1, sizeof *r);
    if (r) {
        r->be = be;
        r->fn = fn;
        r->arg = arg;
    }
    return r;
}

void hwcu_forget_current(void)
{
    tl_ctx = NULL;
}
