/*
 * cuda_stream_value.c - hipStreamWriteValue* and hipStreamWaitValue* on
 * NVIDIA GPUs.
 *
 * A write is the driver's own cuStreamWriteValue32/64. A wait is not
 * cuStreamWaitValue on the application's word: CUDA has no mask, compares
 * GEQ cyclically ((int32_t)(*p - v) >= 0) where HIP compares unsigned, and a
 * wait the driver owns cannot be given up when the session ends. Instead the
 * waiting stream is held by cuStreamWaitValue32 on a release word of ours,
 * and this file's thread decides when to release it:
 *
 *   waiting stream:  host func "armed" -> wait (release word == 1) -> host func "done"
 *   wait thread:     once armed, reads the application's word (a D2H copy on
 *                    a private non-blocking stream), compares as HIP does,
 *                    and when it is met (or the session ends) writes 1 into
 *                    the release word on that private stream.
 *
 * Reading only once the stream has reached the wait keeps HIP's meaning: the
 * word is judged after the work queued before the wait, not before it. The
 * release word returns to its device's free list when "done" has run.
 * Latency is one D2H round trip plus a nap of at most 50 us.
 */
#include <stdlib.h>
#include <time.h>

#include "hw_alloc.h"
#include "cuda_internal.h"
#include "hw_log.h"

#define NAP_NS         (50u * 1000u)
#define WORDS_PER_SLAB 1024u

struct cu_vwait {
    struct cu_vwait *next;
    struct cu_dev *d;
    CUdeviceptr word;
    uint64_t value, mask;
    uint32_t width, op;
    const int *cancel;
    CUdeviceptr rel;
    int armed;    /* atomic: the stream reached the wait */
    int done;     /* atomic: the stream passed it */
    int released; /* the wait thread's own */
};

struct cu_vdev {
    CUstream s; /* private, non-blocking: reads and releases */
    CUdeviceptr *slabs;
    unsigned nslabs;
    CUdeviceptr *free; /* release words not in use */
    unsigned nfree, cap;
};

struct cu_values {
    pthread_mutex_t lock; /* the list, the free lists, stop */
    pthread_cond_t cond;
    struct cu_vwait *list;
    int stop;
    pthread_t thread;
    struct cu_vdev *dev; /* be->ndev */
};

static void host_armed(void *arg)
{
    __atomic_store_n(&((struct cu_vwait *)arg)->armed, 1, __ATOMIC_RELEASE);
}

static void host_done(void *arg)
{
    __atomic_store_n(&((struct cu_vwait *)arg)->done, 1, __ATOMIC_RELEASE);
}

/* One pass over the waits: releases those met or cancelled, retires those
 * passed. Returns whether anything changed. */
static int pass(struct hw_backend *be, struct cu_values *v)
{
    int progress = 0;
    pthread_mutex_lock(&v->lock);
    struct cu_vwait *list = v->list;
    pthread_mutex_unlock(&v->lock);
    /* Entries are added at the head only, and removed only here. */
    for (struct cu_vwait *w = list; w; w = w->next) {
        if (w->released)
            continue;
        int cancel = w->cancel && __atomic_load_n(w->cancel, __ATOMIC_ACQUIRE);
        if (!cancel && !__atomic_load_n(&w->armed, __ATOMIC_ACQUIRE))
            continue;
        struct cu_vdev *vd = &v->dev[w->d->index];
        if (hwcu_use(be, w->d) != HW_OK)
            continue;
        int met = cancel;
        if (!met) {
            uint64_t cur = 0;
            if (be->api.cuMemcpyDtoHAsync(&cur, w->word, w->width, vd->s) != HWCU_SUCCESS ||
                be->api.cuStreamSynchronize(vd->s) != HWCU_SUCCESS)
                met = 1; /* a failing context: never leave a stream held */
            else
                met = hw_wait_value_met(cur, w->value, w->mask, w->width, w->op);
        }
        if (met) {
            CUresult r = be->api.cuStreamWriteValue32(vd->s, w->rel, 1, 0);
            if (r != HWCU_SUCCESS)
                hwcu_check(be, r);
            w->released = 1;
            progress = 1;
        }
    }
    pthread_mutex_lock(&v->lock);
    for (struct cu_vwait **pp = &v->list; *pp;) {
        struct cu_vwait *w = *pp;
        if (w->released && __atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
            struct cu_vdev *vd = &v->dev[w->d->index];
            *pp = w->next;
            if (vd->nfree < vd->cap)
                vd->free[vd->nfree++] = w->rel;
            free(w);
            progress = 1;
        } else {
            pp = &w->next;
        }
    }
    pthread_mutex_unlock(&v->lock);
    return progress;
}

static void *wait_thread(void *arg)
{
    struct hw_backend *be = arg;
    struct cu_values *v = be->values;
    pthread_mutex_lock(&v->lock);
    while (!v->stop) {
        if (!v->list) {
            pthread_cond_wait(&v->cond, &v->lock);
            continue;
        }
        pthread_mutex_unlock(&v->lock);
        if (!pass(be, v)) {
            struct timespec ts = { 0, NAP_NS };
            nanosleep(&ts, NULL);
        }
        pthread_mutex_lock(&v->lock);
    }
    pthread_mutex_unlock(&v->lock);
    return NULL;
}

static int values_start(struct hw_backend *be, struct cu_values **out)
{
    pthread_mutex_lock(&be->lock);
    struct cu_values *v = be->values;
    if (!v) {
        v = hw_calloc(1, sizeof *v);
        struct cu_vdev *dev = v ? hw_calloc((size_t)be->ndev, sizeof *dev) : NULL;
        if (!v || !dev || pthread_mutex_init(&v->lock, NULL) != 0) {
            free(dev);
            free(v);
            pthread_mutex_unlock(&be->lock);
            return HW_ENOMEM;
        }
        pthread_cond_init(&v->cond, NULL);
        v->dev = dev;
        be->values = v;
        if (pthread_create(&v->thread, NULL, wait_thread, be) != 0) {
            be->values = NULL;
            pthread_cond_destroy(&v->cond);
            pthread_mutex_destroy(&v->lock);
            free(dev);
            free(v);
            pthread_mutex_unlock(&be->lock);
            return HW_EOS;
        }
    }
    pthread_mutex_unlock(&be->lock);
    *out = v;
    return HW_OK;
}

/* A release word of d set to 0; d's context is current (the dispatch
 * thread: the only one that takes words). */
static int word_get(struct hw_backend *be, struct cu_values *v, struct cu_dev *d, CUdeviceptr *out)
{
    struct cu_vdev *vd = &v->dev[d->index];
    int rc;
    if (!vd->s &&
        (rc = hwcu_check(be, be->api.cuStreamCreateWithPriority(&vd->s, HWCU_STREAM_NON_BLOCKING,
                                                                d->prio_greatest))) != HW_OK)
        return rc;
    pthread_mutex_lock(&v->lock);
    if (vd->nfree == 0) {
        CUdeviceptr slab;
        CUdeviceptr *slabs = hw_realloc(vd->slabs, (vd->nslabs + 1) * sizeof *slabs);
        CUdeviceptr *fr = hw_realloc(vd->free, (vd->cap + WORDS_PER_SLAB) * sizeof *fr);
        if (slabs)
            vd->slabs = slabs;
        if (fr)
            vd->free = fr;
        if (!slabs || !fr) {
            pthread_mutex_unlock(&v->lock);
            return HW_ENOMEM;
        }
        if ((rc = hwcu_check(be, be->api.cuMemAlloc(&slab, WORDS_PER_SLAB * 4))) != HW_OK) {
            pthread_mutex_unlock(&v->lock);
            return rc;
        }
        vd->slabs[vd->nslabs++] = slab;
        vd->cap += WORDS_PER_SLAB;
        for (unsigned i = 0; i < WORDS_PER_SLAB; i++)
            vd->free[vd->nfree++] = slab + 4u * i;
    }
    CUdeviceptr w = vd->free[--vd->nfree];
    pthread_mutex_unlock(&v->lock);
    /* Reset before any stream can wait on it; a failure loses the word. */
    if ((rc = hwcu_check(be, be->api.cuMemsetD32Async(w, 0, 1, vd->s))) != HW_OK ||
        (rc = hwcu_check(be, be->api.cuStreamSynchronize(vd->s))) != HW_OK)
        return rc;
    *out = w;
    return HW_OK;
}

int hwcu_stream_write_value(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                            uint64_t value, uint32_t width)
{
    int rc;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    if (width == 4 && be->api.cuStreamWriteValue32)
        return hwcu_check(be, be->api.cuStreamWriteValue32(s->s, dptr, (uint32_t)value, 0));
    if (width == 8 && be->api.cuStreamWriteValue64)
        return hwcu_check(be, be->api.cuStreamWriteValue64(s->s, dptr, value, 0));
    return width == 4 || width == 8 ? HW_ENOTSUP : HW_EINVAL;
}

int hwcu_stream_wait_value(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                           uint64_t value, uint64_t mask, uint32_t width, uint32_t op,
                           const int *cancel)
{
    int rc;
    struct cu_values *v;
    if (width != 4 && width != 8)
        return HW_EINVAL;
    if (op > HIPR_WAIT_VALUE_NOR)
        return HW_EINVAL;
    if (!be->api.cuStreamWaitValue32 || !be->api.cuStreamWriteValue32 || !be->api.cuLaunchHostFunc)
        return HW_ENOTSUP;
    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    if ((rc = values_start(be, &v)) != HW_OK)
        return rc;
    struct cu_vwait *w = hw_calloc(1, sizeof *w);
    if (!w)
        return HW_ENOMEM;
    *w = (struct cu_vwait){ .d = s->d,
                            .word = dptr,
                            .value = value,
                            .mask = mask,
                            .width = width,
                            .op = op,
                            .cancel = cancel };
    if ((rc = word_get(be, v, s->d, &w->rel)) != HW_OK) {
        free(w);
        return rc;
    }
    CUresult r = be->api.cuLaunchHostFunc(s->s, host_armed, w);
    if (r != HWCU_SUCCESS) {
        pthread_mutex_lock(&v->lock);
        v->dev[s->d->index].free[v->dev[s->d->index].nfree++] = w->rel;
        pthread_mutex_unlock(&v->lock);
        free(w);
        return hwcu_check(be, r);
    }
    /* From here the driver holds w: it goes on the list whatever happens,
     * released at once if the stream could not be made to wait. */
    r = be->api.cuStreamWaitValue32(s->s, w->rel, 1, HWCU_STREAM_WAIT_VALUE_EQ);
    if (r == HWCU_SUCCESS)
        r = be->api.cuLaunchHostFunc(s->s, host_done, w);
    else
        w->released = 1; /* and never retired: host_done was not queued */
    pthread_mutex_lock(&v->lock);
    w->next = v->list;
    v->list = w;
    pthread_cond_signal(&v->cond);
    pthread_mutex_unlock(&v->lock);
    return hwcu_check(be, r);
}

void hwcu_values_stop(struct hw_backend *be)
{
    struct cu_values *v = be->values;
    if (!v)
        return;
    pthread_mutex_lock(&v->lock);
    v->stop = 1;
    pthread_cond_signal(&v->cond);
    pthread_mutex_unlock(&v->lock);
    pthread_join(v->thread, NULL);
    unsigned left = 0;
    while (v->list) {
        struct cu_vwait *w = v->list;
        v->list = w->next;
        /* One the driver may still call back is left allocated. */
        if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
            free(w);
        else
            left++;
    }
    for (int i = 0; i < be->ndev; i++) {
        struct cu_vdev *vd = &v->dev[i];
        if (hwcu_use(be, &be->devs[i]) == HW_OK) {
            for (unsigned k = 0; k < vd->nslabs; k++)
                be->api.cuMemFree(vd->slabs[k]);
            if (vd->s)
                be->api.cuStreamDestroy(vd->s);
        }
        free(vd->slabs);
        free(vd->free);
    }
    if (left)
        hw_warn("cuda: closing with %u stream value wait(s) still pending", left);
    pthread_cond_destroy(&v->cond);
    pthread_mutex_destroy(&v->lock);
    free(v->dev);
    free(v);
    be->values = NULL;
}
