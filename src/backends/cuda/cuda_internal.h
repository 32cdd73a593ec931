/* cuda_internal.h - shared state of the cuda backend. */
#ifndef HW_CUDA_INTERNAL_H
#define HW_CUDA_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "backend.h"
#include "cuda_api.h"

/* Internal streams per device that event_callback waits on, so one slow
 * event does not hold back the callbacks of unrelated events. */
#define HWCU_EVQ_STREAMS 4

struct cu_dev;

struct hw_bstream {
    struct cu_dev *d;
    CUstream s;
    int is_default;
};

struct hw_bevent {
    struct cu_dev *d;
    CUevent e;
};

struct hw_bfunction {
    struct hw_bfunction *next;
    CUfunction f;
    uint32_t nparams;
    uint32_t args_size;
    struct hw_param *params;
};

struct hw_bmodule {
    struct cu_dev *d;
    CUmodule m;
    struct hw_bfunction *funcs; /* freed with the module */
};

struct cu_dev {
    int index;
    CUdevice dev;
    CUcontext ctx;         /* the primary context, retained at open */
    struct hw_bstream def; /* the legacy null stream */
    CUstream evq[HWCU_EVQ_STREAMS];
    unsigned evq_next;
    int prio_least, prio_greatest;
    CUevent *evfree; /* events for polled completions, reused (cuda_poll.c) */
    unsigned nevfree, evcap;
};

struct slab_pool;

/* Pinned staging memory: fixed-size slabs from cuMemHostAlloc, reused. The
 * worker core sees one as a stage (backend.h, stage_*). */
struct hw_bstage {
    struct hw_bstage *next;
    void *p;
    struct slab_pool *pool;
    CUevent ev;            /* recorded behind a staged D2H copy into p */
    struct cu_dev *ev_dev; /* the context ev belongs to */
};

struct slab_pool {
    size_t slab_size;
    unsigned max, count;
    struct hw_bstage *free;
};

/* One completion the driver will report: a stream callback, or the end of
 * one staged copy chunk. Lives on the backend's pending list until the
 * driver's callback has run (or the poller saw its event), so a lost context
 * can fail it (flush). */
struct cb_rec {
    struct cb_rec *prev, *next;
    struct hw_backend *be;
    hw_done_fn fn;
    void *arg;
    struct hw_bstage *slab;
    struct slab_pool *pool;
    void *d2h_dst; /* D2H chunk: copy slab -> d2h_dst on success */
    size_t d2h_len;
    int fired; /* fn/slab already handed out (under be->lock) */
    /* polled completions (cuda_poll.c) */
    struct cb_rec *pnext;
    CUevent ev;
    struct cu_dev *d;
    CUstream stream;
};

struct hw_backend {
    struct hwcu_api api;
    struct hw_backend_config cfg;
    int ndev;
    struct cu_dev *devs;
    int driver_version;
    int use_host_func; /* cuLaunchHostFunc instead of cuStreamAddCallback */
    int poll;          /* completions by polling events (cuda_poll.c), the default */

    pthread_mutex_t lock; /* pools, pending list, watchdog state */
    pthread_cond_t slab_cond;
    struct slab_pool small, big;
    struct cb_rec pending; /* list head */
    unsigned npending;

    int dead; /* first sticky status, 0 while the contexts are healthy */

    pthread_t wd;
    pthread_cond_t wd_cond;
    int wd_stop, wd_started;

    struct cu_values *values; /* stream value waits (cuda_stream_value.c), NULL until the first */

    pthread_t poller;
    pthread_cond_t poll_cond;
    struct cb_rec *poll_head, *poll_tail; /* under lock */
    int poll_stop, poller_started;
};

/* cuda_completion.c: the layer under the poller and the ops. */
/* Makes d's context current on the calling thread. */
int hwcu_use(struct hw_backend *be, struct cu_dev *d);
/* The calling thread no longer has a context current (contexts released). */
void hwcu_forget_current(void);
/* The driver's name for r (only where CUDA calls are allowed). */
const char *hwcu_err_name(struct hw_backend *be, CUresult r);
/* CUresult -> status; a sticky error also fails the whole backend (hwcu_fail). */
int hwcu_check(struct hw_backend *be, CUresult r);
/* The first sticky error: reported once, every pending completion failed. */
void hwcu_fail(struct hw_backend *be, CUresult r);
#define HWCU_DEAD(be) __atomic_load_n(&(be)->dead, __ATOMIC_ACQUIRE)
/* Runs a completion once (driver callback, poller or flush) and frees r. */
void hwcu_cb_complete(struct cb_rec *r, CUresult res);
/* A completion record for fn(arg) (either may be NULL); NULL when out of memory. */
struct cb_rec *hwcu_rec_new(struct hw_backend *be, hw_done_fn fn, void *arg);
/* The pending list, under be->lock: what a lost context fails. */
void hwcu_pending_add(struct hw_backend *be, struct cb_rec *r);
void hwcu_pending_del(struct hw_backend *be, struct cb_rec *r);
/* Fails every completion still pending with status. */
void hwcu_flush_pending(struct hw_backend *be, int status);
/* Returns a staging slab to its pool, under be->lock. */
void hwcu_slab_put_locked(struct hw_backend *be, struct slab_pool *pool, struct hw_bstage *sl);
/* The driver's callback trampolines: they complete their record. */
void hwcu_cb_stream(CUstream s, CUresult status, void *ud);
void hwcu_cb_host(void *ud);

/* cuda_poll.c */
int hwcu_poll_start(struct hw_backend *be);
void hwcu_poll_stop(struct hw_backend *be);
/* Records an event behind the work on s and hands r to the poller; d's
 * context is current. On failure r is untouched. */
int hwcu_poll_enqueue(struct hw_backend *be, struct cu_dev *d, CUstream s, struct cb_rec *r);
/* Destroys d's pooled events; d's context is current. */
void hwcu_poll_free_events(struct hw_backend *be, struct cu_dev *d);

/* cuda_stream_value.c: the stream_write_value and stream_wait_value slots;
 * hwcu_values_stop ends the wait thread and frees its state (at close, once
 * the streams are idle). */
int hwcu_stream_write_value(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                            uint64_t value, uint32_t width);
int hwcu_stream_wait_value(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                           uint64_t value, uint64_t mask, uint32_t width, uint32_t op,
                           const int *cancel);
void hwcu_values_stop(struct hw_backend *be);

/* cuda_module.c */
int hwcu_module_load(struct hw_backend *be, int dev, const void *image, size_t size,
                     struct hw_bmodule **out);
void hwcu_module_unload(struct hw_backend *be, struct hw_bmodule *m);
int hwcu_module_function(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                         struct hw_bfunction **out, struct hw_func_info *info_out);
int hwcu_module_global(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                       uint64_t *dptr_out, uint64_t *size_out);
int hwcu_launch(struct hw_backend *be, struct hw_bstream *s, struct hw_bfunction *f,
                const uint32_t grid[3], const uint32_t block[3], uint32_t shared_mem,
                const void *args, uint32_t args_size, uint32_t flags);

#endif
