/*
 * capture.c - stream capture: which streams capture, in which mode, and
 * HIP's rules for the calls made meanwhile (docs/client.md).
 *
 * Everything is answered here, in the client: a capture sends nothing to
 * the worker. Captures are few and short-lived, so they sit in one list
 * under one lock; calls that might be captured check hw_capture_count
 * first and take the lock only while some capture exists.
 */
#include <pthread.h>
#include <stdlib.h>

#include "graph.h"

struct capture {
    struct capture *next;
    uint64_t stream;            /* the stream's wire id */
    int device;
    int blocking;               /* synchronises with the null stream */
    hipStreamCaptureMode mode;
    pthread_t thread;           /* the thread that began it */
    unsigned long long id;
    int invalidated;
    struct ihipGraph *graph;
    hipGraphNode_t last;        /* what the next node would depend on */
    hipEvent_t *events;         /* recorded in this capture */
    size_t nevents, cap_events;
};

int hw_capture_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct capture *captures;
static unsigned long long last_id;
static _Thread_local hipStreamCaptureMode tls_mode = hipStreamCaptureModeGlobal;

/* The wire id of a stream that may capture; 0 for the null stream. */
static uint64_t stream_key(hipStream_t s, int *dev, int *blocking)
{
    int d = 0;
    if (!s) {
        if (dev)
            *dev = hw_current_device();
        return 0;
    }
    uint64_t id = hw_stream_wire_id(s, &d);
    if (dev)
        *dev = d;
    if (blocking)
        *blocking = s == hipStreamPerThread ||
                    !(((const struct hw_stream *)s)->flags & hipStreamNonBlocking);
    return id;
}

/* Called with lock held. */
static struct capture *find(uint64_t key)
{
    for (struct capture *c = captures; c; c = c->next)
        if (c->stream == key)
            return c;
    return NULL;
}

static void unlink_capture(struct capture *c)
{
    for (struct capture **pp = &captures; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            __atomic_sub_fetch(&hw_capture_count, 1, __ATOMIC_ACQ_REL);
            return;
        }
}

static void free_capture(struct capture *c)
{
    if (c->graph)
        hw_graph_free(c->graph);
    free(c->events);
    free(c);
}

/* The null stream is used while a blocking stream captures: that would make
 * the capture depend on the null stream. Called with lock held. */
static int null_stream_conflict(int device)
{
    int hit = 0;
    for (struct capture *c = captures; c; c = c->next)
        if (c->blocking && c->device == device) {
            c->invalidated = 1;
            hit = 1;
        }
    return hit;
}

static hipError_t invalidate_all(hipError_t err)
{
    pthread_mutex_lock(&lock);
    int any = captures != NULL;
    for (struct capture *c = captures; c; c = c->next)
        c->invalidated = 1;
    pthread_mutex_unlock(&lock);
    return any ? err : hipSuccess;
}

static void forget_event(hipEvent_t e)
{
    for (struct capture *c = captures; c; c = c->next)
        for (size_t i = 0; i < c->nevents; i++)
            if (c->events[i] == e)
                c->events[i] = c->events[--c->nevents];
}

int hw_capture_record(hipStream_t stream, const struct hipGraphNode *node, hipError_t *err)
{
    if (!hw_capture_any())
        return 0;
    int dev = 0;
    uint64_t key = stream_key(stream, &dev, NULL);
    int rc = 0;
    pthread_mutex_lock(&lock);
    struct capture *c = key ? find(key) : NULL;
    if (!key && null_stream_conflict(dev)) {
        *err = hipErrorStreamCaptureImplicit;
        rc = -1;
    } else if (c && c->invalidated) {
        *err = hipErrorStreamCaptureInvalidated;
        rc = -1;
    } else if (c) {
        if (node->kind == HW_NODE_EVENT_RECORD && c->nevents == c->cap_events) {
            size_t cap = c->cap_events ? 2 * c->cap_events : 4;
            hipEvent_t *ev = realloc(c->events, cap * sizeof *ev);
            if (ev) {
                c->events = ev;
                c->cap_events = cap;
            }
        }
        *err = node->kind == HW_NODE_EVENT_RECORD && c->nevents == c->cap_events
                   ? hipErrorOutOfMemory
                   : hw_graph_append(c->graph, node);
        if (*err == hipSuccess) {
            c->last = c->graph->nodes[c->graph->n - 1];
            if (node->kind == HW_NODE_EVENT_RECORD) {
                forget_event(node->u.event.event);
                c->events[c->nevents++] = node->u.event.event;
            }
        }
        rc = *err == hipSuccess ? 1 : -1;
    } else if (node->kind == HW_NODE_EVENT_RECORD) {
        forget_event(node->u.event.event); /* recorded for real from now on */
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

hipError_t hw_capture_sync_call(void)
{
    if (!hw_capture_any())
        return hipSuccess;
    return invalidate_all(hipErrorStreamCaptureImplicit);
}

hipError_t hw_capture_device_sync(void)
{
    if (!hw_capture_any())
        return hipSuccess;
    return invalidate_all(hipErrorStreamCaptureUnsupported);
}

hipError_t hw_capture_unsafe_call(void)
{
    if (!hw_capture_any() || tls_mode == hipStreamCaptureModeRelaxed)
        return hipSuccess;
    hipError_t err = hipSuccess;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&lock);
    /* This thread's own strict captures, and in global mode anyone's
     * global ones, forbid calls that may implicitly synchronise. */
    for (struct capture *c = captures; c; c = c->next) {
        int mine = c->mode != hipStreamCaptureModeRelaxed && pthread_equal(c->thread, self);
        int global = tls_mode == hipStreamCaptureModeGlobal && c->mode == hipStreamCaptureModeGlobal;
        if (mine || global) {
            c->invalidated = 1;
            err = hipErrorStreamCaptureUnsupported;
        }
    }
    pthread_mutex_unlock(&lock);
    return err;
}

hipError_t hw_capture_stream_sync(hipStream_t stream)
{
    if (!hw_capture_any())
        return hipSuccess;
    int dev = 0;
    uint64_t key = stream_key(stream, &dev, NULL);
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&lock);
    struct capture *c = key ? find(key) : NULL;
    if (!key && null_stream_conflict(dev)) {
        err = hipErrorStreamCaptureImplicit;
    } else if (c) {
        c->invalidated = 1;
        err = hipErrorStreamCaptureUnsupported;
    }
    pthread_mutex_unlock(&lock);
    return err;
}

hipError_t hw_capture_event_use(hipEvent_t event, hipStream_t waiter)
{
    if (!hw_capture_any())
        return hipSuccess;
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&lock);
    for (struct capture *c = captures; c && err == hipSuccess; c = c->next)
        for (size_t i = 0; i < c->nevents; i++) {
            if (c->events[i] != event)
                continue;
            if (waiter) {
                /* Another stream joining the capture (a fork) is not built. */
                c->invalidated = 1;
                err = hipErrorStreamCaptureUnsupported;
            } else {
                err = hipErrorCapturedEvent;
            }
            break;
        }
    pthread_mutex_unlock(&lock);
    return err;
}

void hw_capture_stream_destroyed(hipStream_t stream)
{
    if (!hw_capture_any())
        return;
    uint64_t key = stream_key(stream, NULL, NULL);
    pthread_mutex_lock(&lock);
    struct capture *c = find(key);
    if (c)
        unlink_capture(c);
    pthread_mutex_unlock(&lock);
    if (c)
        free_capture(c);
}

/* ---- the capture API ---------------------------------------------------------- */

static int valid_mode(hipStreamCaptureMode mode)
{
    return mode == hipStreamCaptureModeGlobal || mode == hipStreamCaptureModeThreadLocal ||
           mode == hipStreamCaptureModeRelaxed;
}

HW_EXPORT hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode)
{
    hipError_t err;
    if (!stream)
        return hw_ret(hipErrorStreamCaptureUnsupported); /* not on the null stream */
    if (!valid_mode(mode))
        return hw_ret(hipErrorInvalidValue);
    if (!hw_conn_get(&err))
        return hw_ret(err);
    struct capture *c = calloc(1, sizeof *c);
    if (!c)
        return hw_ret(hipErrorOutOfMemory);
    c->stream = stream_key(stream, &c->device, &c->blocking);
    c->mode = mode;
    c->thread = pthread_self();
    c->graph = hw_graph_new(c->device);
    if (!c->graph) {
        free(c);
        return hw_ret(hipErrorOutOfMemory);
    }
    c->graph->capturing = 1;
    pthread_mutex_lock(&lock);
    if (find(c->stream)) {
        pthread_mutex_unlock(&lock);
        free_capture(c);
        return hw_ret(hipErrorIllegalState);
    }
    c->id = ++last_id;
    c->next = captures;
    captures = c;
    __atomic_add_fetch(&hw_capture_count, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&lock);
    return hipSuccess;
}

HW_EXPORT hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph)
{
    if (!pGraph)
        return hw_ret(hipErrorInvalidValue);
    if (!stream)
        return hw_ret(hipErrorIllegalState);
    uint64_t key = stream_key(stream, NULL, NULL);
    pthread_mutex_lock(&lock);
    struct capture *c = find(key);
    if (!c) {
        pthread_mutex_unlock(&lock);
        return hw_ret(hipErrorIllegalState);
    }
    if (c->mode != hipStreamCaptureModeRelaxed && !pthread_equal(c->thread, pthread_self())) {
        pthread_mutex_unlock(&lock);
        return hw_ret(hipErrorStreamCaptureWrongThread);
    }
    unlink_capture(c);
    pthread_mutex_unlock(&lock);
    if (c->invalidated) {
        free_capture(c);
        *pGraph = NULL;
        return hw_ret(hipErrorStreamCaptureInvalidated);
    }
    c->graph->capturing = 0;
    *pGraph = c->graph;
    c->graph = NULL;
    free_capture(c);
    return hipSuccess;
}

/* Status of stream's capture; for the null stream, an error when a blocking
 * stream captures (asking would depend on it). */
static hipError_t capture_info(hipStream_t stream, hipStreamCaptureStatus *status,
                               unsigned long long *id, hipGraph_t *graph,
                               const hipGraphNode_t **deps, size_t *ndeps)
{
    if (!status)
        return hipErrorInvalidValue;
    *status = hipStreamCaptureStatusNone;
    if (!hw_capture_any())
        return hipSuccess;
    int dev = 0;
    uint64_t key = stream_key(stream, &dev, NULL);
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&lock);
    if (!stream) {
        for (struct capture *c = captures; c; c = c->next)
            if (c->blocking && c->device == dev)
                err = hipErrorStreamCaptureImplicit;
    } else {
        struct capture *c = find(key);
        if (c) {
            *status = c->invalidated ? hipStreamCaptureStatusInvalidated
                                     : hipStreamCaptureStatusActive;
            if (!c->invalidated) {
                if (id)
                    *id = c->id;
                if (graph)
                    *graph = c->graph;
                if (deps)
                    *deps = c->last ? (const hipGraphNode_t *)&c->last : NULL;
                if (ndeps)
                    *ndeps = c->last ? 1 : 0;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return err;
}

HW_EXPORT hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)
{
    return hw_ret(capture_info(stream, pCaptureStatus, NULL, NULL, NULL, NULL));
}

HW_EXPORT hipError_t hipStreamGetCaptureInfo(hipStream_t stream,
                                             hipStreamCaptureStatus *pCaptureStatus,
                                             unsigned long long *pId)
{
    return hw_ret(capture_info(stream, pCaptureStatus, pId, NULL, NULL, NULL));
}

HW_EXPORT hipError_t hipStreamGetCaptureInfo_v2(hipStream_t stream,
                                                hipStreamCaptureStatus *captureStatus_out,
                                                unsigned long long *id_out, hipGraph_t *graph_out,
                                                const hipGraphNode_t **dependencies_out,
                                                size_t *numDependencies_out)
{
    return hw_ret(capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                               numDependencies_out));
}

HW_EXPORT hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode *mode)
{
    if (!mode || !valid_mode(*mode))
        return hw_ret(hipErrorInvalidValue);
    hipStreamCaptureMode old = tls_mode;
    tls_mode = *mode;
    *mode = old;
    return hipSuccess;
}
