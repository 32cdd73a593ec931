/*
 * stream_handles.c - what a stream or event handle stands for on the wire:
 * handle ids, hipStreamPerThread's per-thread streams, and the resolution
 * of hipStream_t / hipEvent_t to a worker id and device. Below capture.c
 * and the API files, which all resolve handles through it; api_stream.c
 * creates and destroys them.
 */
#include <stdlib.h>

#include "hw_alloc.h"
#include "client.h"
#include "hw_os.h"

static uint64_t next_id = HIPR_FIRST_STREAM_ID;

uint64_t hw_new_handle_id(void)
{
    return __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
}

/* hipStreamPerThread: one blocking stream per application thread and
 * device, created on the worker the first time the thread names it (the
 * client picks the id, so creating it is fire-and-forget) and destroyed
 * when the thread exits. The ids live on the heap, owned by a pthread key
 * whose destructor runs at thread exit. Where that destructor may run under
 * the loader lock (Windows, hw_os.h), it only hands the ids to `ended`,
 * which the next per-thread stream user or the heartbeat releases. */
struct per_thread_streams {
    uint64_t id[HIPR_CAP_DEVICES];
    struct per_thread_streams *next; /* on `ended` */
};

static pthread_key_t pts_key;
static pthread_once_t pts_once = PTHREAD_ONCE_INIT;
static int pts_key_ok;
static _Thread_local struct per_thread_streams *tls_pts;
static struct per_thread_streams *ended; /* a lock-free stack */

static void pts_release(struct hw_conn *c, struct per_thread_streams *p)
{
    for (int d = 0; c && d < HIPR_CAP_DEVICES; d++) {
        if (p->id[d] == 0)
            continue;
        struct hipr_stream m = { p->id[d] };
        uint8_t buf[HIPR_stream_SIZE];
        hipr_stream_encode(buf, &m);
        (void)hw_post(c, HIPR_OP_STREAM_DESTROY, buf, sizeof buf, NULL, 0);
    }
    free(p);
}

void hw_release_ended_thread_streams(struct hw_conn *c)
{
    if (!__atomic_load_n(&ended, __ATOMIC_ACQUIRE))
        return;
    struct per_thread_streams *p = __atomic_exchange_n(&ended, NULL, __ATOMIC_ACQ_REL);
    while (p) {
        struct per_thread_streams *next = p->next;
        pts_release(c, p);
        p = next;
    }
}

static void pts_destroy(void *arg)
{
    struct per_thread_streams *p = arg;
    if (HW_OS_KEY_DTOR_LOCKED) {
        p->next = __atomic_load_n(&ended, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&ended, &p->next, p, 1, __ATOMIC_RELEASE,
                                            __ATOMIC_RELAXED))
            ;
        return;
    }
    hipError_t err;
    pts_release(hw_conn_get(&err), p);
}

static void pts_key_create(void)
{
    pts_key_ok = pthread_key_create(&pts_key, pts_destroy) == 0;
}

/* The calling thread's per-thread stream on dev; 0 when it cannot exist
 * (no worker, no memory), in which case the caller's request names the
 * legacy default stream instead and fails or succeeds with it. */
static uint64_t per_thread_stream_id(int dev)
{
    if (dev < 0 || dev >= HIPR_CAP_DEVICES)
        return 0;
    if (tls_pts && tls_pts->id[dev])
        return tls_pts->id[dev];
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    pthread_once(&pts_once, pts_key_create);
    if (!c || !pts_key_ok)
        return 0;
    /* From now on an ended thread may leave streams behind: the heartbeat
     * thread releases them too when the application makes no new ones. */
    __atomic_store_n(&c->heartbeat_hook, hw_release_ended_thread_streams, __ATOMIC_RELEASE);
    hw_release_ended_thread_streams(c);
    if (!tls_pts) {
        struct per_thread_streams *p = hw_calloc(1, sizeof *p);
        if (!p || pthread_setspecific(pts_key, p) != 0) {
            free(p);
            return 0;
        }
        tls_pts = p;
    }
    uint64_t id = hw_new_handle_id();
    struct hipr_stream_create m = { id, hw_wire_device(dev), hipStreamDefault, 0 };
    uint8_t buf[HIPR_stream_create_SIZE];
    hipr_stream_create_encode(buf, &m);
    if (hw_post(c, HIPR_OP_STREAM_CREATE, buf, sizeof buf, NULL, 0) != hipSuccess)
        return 0;
    tls_pts->id[dev] = id;
    return id;
}

hipError_t hw_stream_resolve(hipStream_t s, uint64_t *id, int *dev)
{
    if (s == NULL) {
        *dev = hw_current_device();
        *id = (uint64_t)hw_wire_device(*dev); /* a default stream's id is its device */
        return hipSuccess;
    }
    if (s == hipStreamPerThread) {
        *dev = hw_current_device();
        uint64_t pts = per_thread_stream_id(*dev);
        *id = pts ? pts : (uint64_t)hw_wire_device(*dev);
        return hipSuccess;
    }
    /* Destroyed, never created, or another kind of handle: AMD answers
     * hipErrorContextIsDestroyed, and s must not be read. */
    if (!hw_handle_valid(HW_HANDLE_STREAM, s))
        return hipErrorContextIsDestroyed;
    const struct hw_stream *st = (const struct hw_stream *)s;
    *dev = st->device;
    *id = st->id;
    return hipSuccess;
}

hipError_t hw_stream_check(hipStream_t s)
{
    return s == NULL || s == hipStreamPerThread || hw_handle_valid(HW_HANDLE_STREAM, s)
               ? hipSuccess
               : hipErrorContextIsDestroyed;
}

uint64_t hw_stream_wire_id(hipStream_t s, int *dev)
{
    uint64_t id;
    if (hw_stream_resolve(s, &id, dev) != hipSuccess) {
        *dev = hw_current_device();
        return HW_STREAM_NONE;
    }
    return id;
}

hipError_t hw_event_resolve(hipEvent_t e, uint64_t *id, int *dev)
{
    if (!hw_handle_valid(HW_HANDLE_EVENT, e))
        return hipErrorInvalidHandle;
    const struct hw_event *ev = (const struct hw_event *)e;
    *id = ev->id;
    if (dev)
        *dev = ev->device;
    return hipSuccess;
}
