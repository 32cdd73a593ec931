/*
 * cpu_stage.c - staged copies (backend.h, stage_*) on the CPU device.
 *
 * The CPU device's memory is host memory, so the worker copies into and out
 * of it directly and never needs these. They exist so that the worker's
 * staged copy paths, which GPUs depend on, run in CI: with
 * HIPWIRE_CPU_NO_HOST_PTR=1 the backend reports its memory as not
 * host-addressable, as a GPU's is, and every copy goes through stages.
 */
#include <stdlib.h>

#include "hw_alloc.h"
#include "cpu_internal.h"

#define STAGE_CHUNK  (4u << 20)     /* one stage holds at most this */
#define STAGE_BUDGET (256ull << 20) /* bytes of stages out at once */

struct hw_bstage {
    struct hw_backend *be;
    size_t cap;
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    int done; /* the last queued copy into it has run */
    unsigned char data[];
};

int cpu_stage_get(struct hw_backend *be, uint64_t want, struct hw_bstage **out, void **buf_out,
                  size_t *len_out)
{
    size_t cap = want < STAGE_CHUNK ? (size_t)want : STAGE_CHUNK;
    if (cap == 0)
        return HW_EINVAL;
    pthread_mutex_lock(&be->stage_lock);
    /* A bounded pool, as a GPU's pinned memory is: a flood waits for the
     * copies ahead of it. */
    while (be->staged > 0 && be->staged + cap > STAGE_BUDGET)
        pthread_cond_wait(&be->stage_cond, &be->stage_lock);
    be->staged += cap;
    pthread_mutex_unlock(&be->stage_lock);
    struct hw_bstage *st = hw_malloc(sizeof *st + cap);
    if (!st) {
        pthread_mutex_lock(&be->stage_lock);
        be->staged -= cap;
        pthread_cond_broadcast(&be->stage_cond);
        pthread_mutex_unlock(&be->stage_lock);
        return HW_ENOMEM;
    }
    st->be = be;
    st->cap = cap;
    st->done = 1;
    pthread_mutex_init(&st->lock, NULL);
    pthread_cond_init(&st->done_cond, NULL);
    *out = st;
    *buf_out = st->data;
    *len_out = cap;
    return HW_OK;
}

void cpu_stage_put(struct hw_backend *be, struct hw_bstage *st)
{
    pthread_mutex_lock(&be->stage_lock);
    be->staged -= st->cap;
    pthread_cond_broadcast(&be->stage_cond);
    pthread_mutex_unlock(&be->stage_lock);
    pthread_mutex_destroy(&st->lock);
    pthread_cond_destroy(&st->done_cond);
    free(st);
}

static void h2d_done(void *arg, int status)
{
    struct hw_bstage *st = arg;
    (void)status;
    cpu_stage_put(st->be, st);
}

static void d2h_done(void *arg, int status)
{
    struct hw_bstage *st = arg;
    (void)status;
    pthread_mutex_lock(&st->lock);
    st->done = 1;
    pthread_cond_signal(&st->done_cond);
    pthread_mutex_unlock(&st->lock);
}

int cpu_stage_h2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, struct hw_bstage *st,
                  size_t n)
{
    int rc = n <= st->cap ? cpu_submit_copy(s, (void *)(uintptr_t)dst, st->data, n, h2d_done, st)
                          : HW_EINVAL;
    if (rc != HW_OK)
        cpu_stage_put(be, st);
    return rc;
}

int cpu_stage_d2h(struct hw_backend *be, struct hw_bstream *s, struct hw_bstage *st, uint64_t src,
                  size_t n)
{
    (void)be;
    if (n > st->cap)
        return HW_EINVAL;
    pthread_mutex_lock(&st->lock);
    st->done = 0;
    pthread_mutex_unlock(&st->lock);
    int rc = cpu_submit_copy(s, st->data, (const void *)(uintptr_t)src, n, d2h_done, st);
    if (rc != HW_OK) {
        pthread_mutex_lock(&st->lock);
        st->done = 1;
        pthread_mutex_unlock(&st->lock);
    }
    return rc;
}

int cpu_stage_wait(struct hw_backend *be, struct hw_bstage *st)
{
    (void)be;
    pthread_mutex_lock(&st->lock);
    while (!st->done)
        pthread_cond_wait(&st->done_cond, &st->lock);
    pthread_mutex_unlock(&st->lock);
    return HW_OK;
}
