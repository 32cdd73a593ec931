/*
 * hip_stage.c - the hip backend's staged copies (backend.h, stage_*): pinned
 * host buffers the core receives H2D payloads into and sends D2H replies
 * from, so the network transfer of one chunk overlaps the device copy of
 * the one before, and a copy never goes through pageable memory (which
 * makes the HIP runtime stage it again and wait for the stream).
 *
 * Two pools, as the cuda backend has: small stages for small copies, so a
 * burst of them does not pin megabytes, and large ones for bulk data. A pool
 * grows up to its cap; past it stage_get waits for a copy to give one back,
 * the same back-pressure the session's staging budget gives.
 */
#include <stdlib.h>
#include <time.h>

#include "hip_internal.h"
#include "hw_alloc.h"
#include "hw_log.h"

#define SMALL_STAGE  (64u * 1024)
#define SMALL_STAGES 128u /* 8 MiB pinned at most */
#define BIG_STAGE    (1u << 20)
#define BIG_STAGES   32u /* 32 MiB pinned at most */
#define WAIT_SLICE   50  /* ms: how often a waiter looks again */

struct hw_bstage {
    struct hw_bstage *next;
    struct hipb_stage_pool *pool;
    void *p;
    hipEvent_t ev; /* recorded behind a D2H copy into p */
    int ev_dev;    /* the device ev belongs to; -1: none yet */
};

void hipb_stages_init(struct hw_backend *be)
{
    be->small = (struct hipb_stage_pool){ .size = SMALL_STAGE, .max = SMALL_STAGES };
    be->big = (struct hipb_stage_pool){ .size = BIG_STAGE, .max = BIG_STAGES };
    pthread_cond_init(&be->stage_cond, NULL);
}

static void pool_free(struct hw_backend *be, struct hipb_stage_pool *pool)
{
    while (pool->free) {
        struct hw_bstage *st = pool->free;
        pool->free = st->next;
        if (st->ev_dev >= 0) {
            hipb_use(be, st->ev_dev);
            be->api.hipEventDestroy(st->ev);
        }
        be->api.hipHostFree(st->p);
        free(st);
    }
}

/* At close, after the completion thread has returned every stage. */
void hipb_stages_free(struct hw_backend *be)
{
    pool_free(be, &be->small);
    pool_free(be, &be->big);
    pthread_cond_destroy(&be->stage_cond);
}

static struct hw_bstage *pinned_stage(struct hw_backend *be, struct hipb_stage_pool *pool, int *rc)
{
    struct hw_bstage *st = hw_calloc(1, sizeof *st);
    if (!st) {
        *rc = HW_ENOMEM;
        return NULL;
    }
    /* Portable: the session's streams may be on any of the devices. */
    *rc = hipb_st(be->api.hipHostMalloc(&st->p, pool->size, hipHostMallocPortable));
    if (*rc != HW_OK) {
        free(st);
        return NULL;
    }
    st->pool = pool;
    st->ev_dev = -1;
    hw_debug("hip backend: pinned a %zu KiB stage (%u of at most %u)", pool->size >> 10,
             pool->count, pool->max);
    return st;
}

int hipb_stage_get(struct hw_backend *be, uint64_t want, struct hw_bstage **out, void **buf_out,
                   size_t *len_out)
{
    if (want == 0)
        return HW_EINVAL;
    struct hipb_stage_pool *pool = want <= SMALL_STAGE ? &be->small : &be->big;
    struct hw_bstage *st = NULL;
    int rc = HW_OK;
    pthread_mutex_lock(&be->lock);
    while (!pool->free) {
        if (pool->count < pool->max) {
            pool->count++;
            pthread_mutex_unlock(&be->lock);
            st = pinned_stage(be, pool, &rc);
            if (!st) {
                pthread_mutex_lock(&be->lock);
                pool->count--;
                pthread_mutex_unlock(&be->lock);
                return rc;
            }
            goto got;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += WAIT_SLICE * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&be->stage_cond, &be->lock, &ts);
    }
    st = pool->free;
    pool->free = st->next;
    pthread_mutex_unlock(&be->lock);
got:
    *out = st;
    *buf_out = st->p;
    *len_out = want < pool->size ? (size_t)want : pool->size;
    return HW_OK;
}

void hipb_stage_put(struct hw_backend *be, struct hw_bstage *st)
{
    pthread_mutex_lock(&be->lock);
    st->next = st->pool->free;
    st->pool->free = st;
    pthread_cond_broadcast(&be->stage_cond);
    pthread_mutex_unlock(&be->lock);
}

struct stage_return {
    struct hw_backend *be;
    struct hw_bstage *st;
};

static void return_stage(void *arg, int status)
{
    struct stage_return *r = arg;
    (void)status; /* the copy's error reaches the session through the stream */
    hipb_stage_put(r->be, r->st);
    free(r);
}

int hipb_stage_h2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, struct hw_bstage *st,
                   size_t n)
{
    struct stage_return *r = hw_malloc(sizeof *r);
    int rc = r ? hipb_use(be, s->dev) : HW_ENOMEM;
    if (rc == HW_OK)
        rc = hipb_st(be->api.hipMemcpyHtoDAsync((hipDeviceptr_t)(uintptr_t)dst, st->p, n, s->s));
    if (rc != HW_OK) {
        free(r);
        hipb_stage_put(be, st);
        return rc;
    }
    *r = (struct stage_return){ be, st };
    rc = hipb_stream_callback(be, s, return_stage, r);
    /* Without its completion the stage may still be read by the queued
     * copy: it is given up rather than reused. */
    if (rc != HW_OK)
        free(r);
    return rc;
}

/* An event behind the copy, so stage_wait waits for the device alone,
 * never for the completion thread (which may be waiting to send a reply
 * while the caller holds the send lock). */
int hipb_stage_d2h(struct hw_backend *be, struct hw_bstream *s, struct hw_bstage *st, uint64_t src,
                   size_t n)
{
    int rc = hipb_use(be, s->dev);
    if (rc != HW_OK)
        return rc;
    if (st->ev_dev != s->dev) {
        hipEvent_t ev;
        if ((rc = hipb_st(be->api.hipEventCreateWithFlags(&ev, hipEventDisableTiming))) != HW_OK)
            return rc;
        if (st->ev_dev >= 0) {
            hipb_use(be, st->ev_dev);
            be->api.hipEventDestroy(st->ev);
            hipb_use(be, s->dev);
        }
        st->ev = ev;
        st->ev_dev = s->dev;
    }
    rc = hipb_st(be->api.hipMemcpyDtoHAsync(st->p, (hipDeviceptr_t)(uintptr_t)src, n, s->s));
    if (rc != HW_OK)
        return rc;
    return hipb_st(be->api.hipEventRecord(st->ev, s->s));
}

int hipb_stage_wait(struct hw_backend *be, struct hw_bstage *st)
{
    if (st->ev_dev < 0)
        return HW_EINVAL;
    int rc = hipb_use(be, st->ev_dev);
    return rc != HW_OK ? rc : hipb_st(be->api.hipEventSynchronize(st->ev));
}
