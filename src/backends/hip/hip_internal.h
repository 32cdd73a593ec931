/*
 * hip_internal.h - the hip backend's private types, shared by
 * hip_backend.c and hip_stage.c.
 */
#ifndef HW_HIP_INTERNAL_H
#define HW_HIP_INTERNAL_H

#include <pthread.h>

#include "backend.h"
#include "codeobj.h"
#include "hip_api.h"

/* A pool of pinned host buffers of one size (hip_stage.c). */
struct hipb_stage_pool {
    size_t size;
    unsigned max, count;
    struct hw_bstage *free;
};

struct hw_bstream {
    hipStream_t s; /* NULL: the device's legacy default stream */
    int dev;
};

struct hw_bevent {
    hipEvent_t ev;
    int dev;
    int pending;   /* completion entries still referring to it */
    int destroyed; /* freed by the completion thread once pending is 0 */
};

struct hw_bmodule {
    hipModule_t mod;
    int dev;
    struct hw_bfunction *functions;
    /* An AMD code object's metadata: the kernels' argument layouts. */
    hw_cob_metadata md;
    int has_md;
};

struct hw_bfunction {
    struct hw_bfunction *next;
    hipFunction_t fn;
    struct hw_param *params;
};

struct completion {
    struct completion *next;
    struct hw_bevent *event; /* waited for, then released */
    int owns_event;          /* created for this completion */
    hw_done_fn fn;
    void *arg;
};

struct hw_backend {
    struct hw_backend_config cfg;
    struct hw_hip_api api;
    int ndev;
    struct hw_bstream *defaults;

    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct completion *head, *tail;
    int stopping;
    pthread_t thread;

    /* Pinned stages for the core's staged copies (hip_stage.c). */
    struct hipb_stage_pool small, big;
    pthread_cond_t stage_cond; /* a stage came back; with lock */
};

static inline int hipb_st(hipError_t e)
{
    return (int)e; /* hw_status values are hipError_t values */
}

static inline int hipb_use(struct hw_backend *be, int dev)
{
    return hipb_st(be->api.hipSetDevice(dev));
}

/* fn(arg, status) once the work queued on s so far has finished, from the
 * completion thread. */
int hipb_stream_callback(struct hw_backend *be, struct hw_bstream *s, hw_done_fn fn, void *arg);

/* hip_stage.c */
void hipb_stages_init(struct hw_backend *be);
void hipb_stages_free(struct hw_backend *be);
int hipb_stage_get(struct hw_backend *be, uint64_t want, struct hw_bstage **out, void **buf_out,
                   size_t *len_out);
int hipb_stage_h2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, struct hw_bstage *st,
                   size_t n);
int hipb_stage_d2h(struct hw_backend *be, struct hw_bstream *s, struct hw_bstage *st, uint64_t src,
                   size_t n);
int hipb_stage_wait(struct hw_backend *be, struct hw_bstage *st);
void hipb_stage_put(struct hw_backend *be, struct hw_bstage *st);

#endif
