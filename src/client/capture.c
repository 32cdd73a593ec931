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
#include <string.h>

#include "hw_alloc.h"
#include "graph.h"
#include "handle_registry.h"

/* A set of nodes: what a stream's next work depends on, or what an event
 * recorded in a capture stands for. */
struct node_set {
    hipGraphNode_t *v;
    size_t n, cap;
};

/* A stream taking part in a capture: the origin, or one that joined by
 * waiting on an event recorded in it. */
struct member {
    uint64_t stream; /* the stream's wire id */
    struct node_set deps;
};

struct captured_event {
    hipEvent_t event;
    struct node_set deps;
};

struct capture {
    struct capture *next;
    int device;
    int blocking; /* the origin synchronises with the null stream */
    hipStreamCaptureMode mode;
    pthread_t thread; /* the thread that began it */
    unsigned long long id;
    int invalidated;
    struct ihipGraph *graph;
    struct member *members; /* [0] is the origin stream */
    size_t nmembers, cap_members;
    struct captured_event *events; /* recorded in this capture */
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

static int set_has(const struct node_set *s, hipGraphNode_t n)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == n)
            return 1;
    return 0;
}

static hipError_t set_add(struct node_set *s, hipGraphNode_t n)
{
    if (set_has(s, n))
        return hipSuccess;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4;
        hipGraphNode_t *v = hw_realloc(s->v, cap * sizeof *v);
        if (!v)
            return hipErrorOutOfMemory;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = n;
    return hipSuccess;
}

static hipError_t set_union(struct node_set *to, const struct node_set *from)
{
    hipError_t err = hipSuccess;
    for (size_t i = 0; i < from->n && err == hipSuccess; i++)
        err = set_add(to, from->v[i]);
    return err;
}

/* The capture stream key takes part in, and its member. Lock held. */
static struct capture *find(uint64_t key, struct member **m)
{
    for (struct capture *c = captures; c; c = c->next)
        for (size_t i = 0; i < c->nmembers; i++)
            if (c->members[i].stream == key) {
                if (m)
                    *m = &c->members[i];
                return c;
            }
    return NULL;
}

/* The capture event was last recorded in, if any. Lock held. */
static struct capture *find_event(hipEvent_t e, struct captured_event **ce)
{
    for (struct capture *c = captures; c; c = c->next)
        for (size_t i = 0; i < c->nevents; i++)
            if (c->events[i].event == e) {
                if (ce)
                    *ce = &c->events[i];
                return c;
            }
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
    for (size_t i = 0; i < c->nmembers; i++)
        free(c->members[i].deps.v);
    for (size_t i = 0; i < c->nevents; i++)
        free(c->events[i].deps.v);
    free(c->members);
    free(c->events);
    free(c);
}

static hipError_t add_member(struct capture *c, uint64_t key, const struct node_set *deps)
{
    if (c->nmembers == c->cap_members) {
        size_t cap = c->cap_members ? 2 * c->cap_members : 4;
        struct member *v = hw_realloc(c->members, cap * sizeof *v);
        if (!v)
            return hipErrorOutOfMemory;
        c->members = v;
        c->cap_members = cap;
    }
    struct member *m = &c->members[c->nmembers];
    memset(m, 0, sizeof *m);
    m->stream = key;
    if (deps && set_union(&m->deps, deps) != hipSuccess) {
        free(m->deps.v);
        return hipErrorOutOfMemory;
    }
    c->nmembers++;
    return hipSuccess;
}

static void forget_event(hipEvent_t e)
{
    struct captured_event *ce;
    struct capture *c;
    while ((c = find_event(e, &ce)) != NULL) {
        free(ce->deps.v);
        *ce = c->events[--c->nevents];
    }
}

/* e now stands for what m's next work would depend on. Lock held. */
static hipError_t record_event(struct capture *c, const struct member *m, hipEvent_t e)
{
    forget_event(e);
    if (c->nevents == c->cap_events) {
        size_t cap = c->cap_events ? 2 * c->cap_events : 4;
        struct captured_event *v = hw_realloc(c->events, cap * sizeof *v);
        if (!v)
            return hipErrorOutOfMemory;
        c->events = v;
        c->cap_events = cap;
    }
    struct captured_event *ce = &c->events[c->nevents];
    memset(ce, 0, sizeof *ce);
    ce->event = e;
    if (set_union(&ce->deps, &m->deps) != hipSuccess) {
        free(ce->deps.v);
        return hipErrorOutOfMemory;
    }
    c->nevents++;
    return hipSuccess;
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

/* A wait on a captured event (HIP's cross-stream capture): a stream of the
 * same capture adds the event's nodes to its dependencies; a stream that
 * is not capturing joins the capture from there. 1, or -1 with *err. */
static int wait_captured(struct capture *ec, const struct captured_event *ce, struct capture *c,
                         struct member *m, uint64_t key, hipError_t *err)
{
    if (ec->invalidated)
        *err = hipErrorStreamCaptureInvalidated;
    else if (c && c != ec) {
        /* Two captures would become one graph: HIP refuses the merge. */
        c->invalidated = ec->invalidated = 1;
        *err = hipErrorStreamCaptureMerge;
    } else if (c)
        *err = set_union(&m->deps, &ce->deps);
    else if (!key)
        *err = hipErrorInvalidHandle; /* the null stream cannot join a capture (HIP's code) */
    else
        *err = add_member(ec, key, &ce->deps);
    return *err == hipSuccess ? 1 : -1;
}

int hw_capture_record(hipStream_t stream, const struct hipGraphNode *node, hipError_t *err)
{
    if (!hw_capture_any())
        return 0;
    int dev = 0;
    uint64_t key = stream_key(stream, &dev, NULL);
    int rc = 0;
    struct member *m = NULL;
    struct captured_event *ce = NULL;
    pthread_mutex_lock(&lock);
    struct capture *c = key ? find(key, &m) : NULL;
    struct capture *ec =
        node->kind == HW_NODE_WAIT_EVENT ? find_event(node->u.event.event, &ce) : NULL;
    if (!key && null_stream_conflict(dev)) {
        *err = hipErrorStreamCaptureImplicit;
        rc = -1;
    } else if (c && c->invalidated) {
        *err = hipErrorStreamCaptureInvalidated;
        rc = -1;
    } else if (ec) {
        rc = wait_captured(ec, ce, c, m, key, err);
    } else if (c && node->kind == HW_NODE_EVENT_RECORD) {
        /* A record in a capture makes no node: the event stands for the
         * stream's position, for waits in the same capture (HIP does so). */
        *err = record_event(c, m, node->u.event.event);
        rc = *err == hipSuccess ? 1 : -1;
    } else if (c) {
        hipGraphNode_t added = NULL;
        *err = hw_graph_add(c->graph, node, m->deps.v, m->deps.n, &added);
        if (*err == hipSuccess) {
            m->deps.n = 0;
            *err = set_add(&m->deps, added);
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
        int global =
            tls_mode == hipStreamCaptureModeGlobal && c->mode == hipStreamCaptureModeGlobal;
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
    struct capture *c = key ? find(key, NULL) : NULL;
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
    pthread_mutex_lock(&lock);
    /* A wait on a captured event was taken by hw_capture_record; what is
     * left is a query or synchronize, and that event has not happened. */
    hipError_t err = !waiter && find_event(event, NULL) ? hipErrorCapturedEvent : hipSuccess;
    pthread_mutex_unlock(&lock);
    return err;
}

void hw_capture_stream_destroyed(hipStream_t stream)
{
    if (!hw_capture_any())
        return;
    uint64_t key = stream_key(stream, NULL, NULL);
    struct member *m = NULL;
    pthread_mutex_lock(&lock);
    struct capture *c = find(key, &m);
    if (c && m != &c->members[0]) {
        /* A joined stream leaves; the capture goes on. */
        free(m->deps.v);
        *m = c->members[--c->nmembers];
        c = NULL;
    } else if (c) {
        unlink_capture(c);
    }
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
    if ((err = hw_stream_check(stream)) != hipSuccess)
        return hw_ret(err); /* destroyed or never created: never read */
    if (!valid_mode(mode))
        return hw_ret(hipErrorInvalidValue);
    if (!hw_conn_get(&err))
        return hw_ret(err);
    struct capture *c = hw_calloc(1, sizeof *c);
    if (!c)
        return hw_ret(hipErrorOutOfMemory);
    uint64_t key = stream_key(stream, &c->device, &c->blocking);
    c->mode = mode;
    c->thread = pthread_self();
    c->graph = hw_graph_new(c->device, 1);
    if (!c->graph || add_member(c, key, NULL) != hipSuccess) {
        free_capture(c);
        return hw_ret(hipErrorOutOfMemory);
    }
    c->graph->capturing = 1;
    pthread_mutex_lock(&lock);
    if (find(key, NULL)) {
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

/* Every stream that joined has come back: each node its next work would
 * depend on is one the origin's next work depends on too. Lock held. */
static int all_joined(const struct capture *c)
{
    const struct node_set *origin = &c->members[0].deps;
    for (size_t i = 1; i < c->nmembers; i++)
        for (size_t d = 0; d < c->members[i].deps.n; d++) {
            int seen = 0;
            for (size_t o = 0; o < origin->n && !seen; o++)
                seen = hw_node_reaches(origin->v[o], c->members[i].deps.v[d]);
            if (!seen)
                return 0;
        }
    return 1;
}

HW_EXPORT hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph)
{
    if (!pGraph)
        return hw_ret(hipErrorInvalidValue);
    if (!stream)
        return hw_ret(hipErrorIllegalState);
    hipError_t bad = hw_stream_check(stream);
    if (bad != hipSuccess)
        return hw_ret(bad);
    uint64_t key = stream_key(stream, NULL, NULL);
    struct member *m = NULL;
    pthread_mutex_lock(&lock);
    struct capture *c = find(key, &m);
    hipError_t err = hipSuccess;
    if (!c)
        err = hipErrorIllegalState;
    else if (m != &c->members[0])
        err = hipErrorStreamCaptureUnmatched; /* ended where it began only */
    else if (c->mode != hipStreamCaptureModeRelaxed && !pthread_equal(c->thread, pthread_self()))
        err = hipErrorStreamCaptureWrongThread;
    if (err != hipSuccess) {
        pthread_mutex_unlock(&lock);
        return hw_ret(err);
    }
    unlink_capture(c);
    if (c->invalidated)
        err = hipErrorStreamCaptureInvalidated;
    else if (!all_joined(c))
        err = hipErrorStreamCaptureUnjoined; /* the capture ends all the same */
    pthread_mutex_unlock(&lock);
    if (err != hipSuccess) {
        free_capture(c);
        *pGraph = NULL;
        return hw_ret(err);
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
    hipError_t bad = hw_stream_check(stream);
    if (bad != hipSuccess)
        return bad;
    *status = hipStreamCaptureStatusNone;
    if (!hw_capture_any())
        return hipSuccess;
    int dev = 0;
    uint64_t key = stream_key(stream, &dev, NULL);
    hipError_t err = hipSuccess;
    struct member *m = NULL;
    pthread_mutex_lock(&lock);
    if (!stream) {
        for (struct capture *c = captures; c; c = c->next)
            if (c->blocking && c->device == dev)
                err = hipErrorStreamCaptureImplicit;
    } else {
        struct capture *c = find(key, &m);
        if (c) {
            *status =
                c->invalidated ? hipStreamCaptureStatusInvalidated : hipStreamCaptureStatusActive;
            if (!c->invalidated) {
                if (id)
                    *id = c->id;
                if (graph)
                    *graph = c->graph;
                /* Valid until the stream's next captured call, as in HIP. */
                if (deps)
                    *deps = m->deps.n ? m->deps.v : NULL;
                if (ndeps)
                    *ndeps = m->deps.n;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return err;
}

HW_EXPORT hipError_t hipStreamIsCapturing(hipStream_t stream,
                                          hipStreamCaptureStatus *pCaptureStatus)
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

HW_EXPORT hipError_t hipStreamUpdateCaptureDependencies(hipStream_t stream,
                                                        hipGraphNode_t *dependencies,
                                                        size_t numDependencies, unsigned int flags)
{
    if (flags != hipStreamAddCaptureDependencies && flags != hipStreamSetCaptureDependencies)
        return hw_ret(hipErrorInvalidValue);
    if (!dependencies && numDependencies)
        return hw_ret(hipErrorInvalidValue);
    hipError_t bad = hw_stream_check(stream);
    if (bad != hipSuccess)
        return hw_ret(bad);
    uint64_t key = stream_key(stream, NULL, NULL);
    struct member *m = NULL;
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&lock);
    struct capture *c = key && hw_capture_any() ? find(key, &m) : NULL;
    if (!c)
        err = hipErrorIllegalState;
    else if (c->invalidated)
        err = hipErrorStreamCaptureInvalidated;
    for (size_t i = 0; i < numDependencies && err == hipSuccess; i++)
        if (!hw_handle_valid(HW_HANDLE_GRAPH_NODE, dependencies[i]) ||
            dependencies[i]->graph != c->graph)
            err = hipErrorInvalidValue;
    if (err == hipSuccess) {
        struct node_set next = { 0 };
        if (flags == hipStreamAddCaptureDependencies)
            err = set_union(&next, &m->deps);
        for (size_t i = 0; i < numDependencies && err == hipSuccess; i++)
            err = set_add(&next, dependencies[i]);
        if (err == hipSuccess) {
            free(m->deps.v);
            m->deps = next;
        } else {
            free(next.v);
        }
    }
    pthread_mutex_unlock(&lock);
    return hw_ret(err);
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
