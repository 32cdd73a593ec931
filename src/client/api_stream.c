/*
 * api_stream.c - streams and events. Handles are chosen by the client, so
 * creating, recording, waiting and destroying are all fire-and-forget; only
 * synchronize, query and elapsed time wait for the worker.
 */
#include <stdlib.h>

#include "hw_alloc.h"
#include "client.h"
#include "graph.h"
#include "hw_os.h"

static hipError_t finish_sync(struct hw_conn *c, hipError_t err)
{
    if (err == hipSuccess)
        err = hw_take_async_error(c);
    return hw_ret(err);
}

hipError_t hw_stream_create(hipStream_t *out, unsigned flags, int priority)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!out)
        return hw_ret(hipErrorInvalidValue);
    if (flags != hipStreamDefault && flags != hipStreamNonBlocking)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    const struct hipr_devinfo *d = &c->devs[hw_current_device()];
    /* Lower numbers are higher priority; clamp into the device's range as HIP does. */
    if (priority < d->stream_priority_high)
        priority = d->stream_priority_high;
    if (priority > d->stream_priority_low)
        priority = d->stream_priority_low;
    struct hw_stream *st = hw_calloc(1, sizeof *st);
    if (!st)
        return hw_ret(hipErrorOutOfMemory);
    st->id = hw_new_handle_id();
    st->device = hw_current_device();
    st->flags = flags;
    st->priority = priority;
    if (hw_handle_add(HW_HANDLE_STREAM, st) != 0) {
        free(st);
        return hw_ret(hipErrorOutOfMemory);
    }
    struct hipr_stream_create m = { st->id, hw_wire_device(st->device), flags, priority };
    uint8_t buf[HIPR_stream_create_SIZE];
    hipr_stream_create_encode(buf, &m);
    err = hw_post(c, HIPR_OP_STREAM_CREATE, buf, sizeof buf, NULL, 0);
    if (err != hipSuccess) {
        hw_handle_remove(HW_HANDLE_STREAM, st);
        free(st);
        return hw_ret(err);
    }
    *out = (hipStream_t)st;
    return hipSuccess;
}

HW_EXPORT hipError_t hipStreamCreate(hipStream_t *stream)
{
    return hw_stream_create(stream, hipStreamDefault, 0);
}

HW_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    return hw_stream_create(stream, flags, 0);
}

HW_EXPORT hipError_t hipStreamCreateWithPriority(hipStream_t *stream, unsigned int flags,
                                                 int priority)
{
    return hw_stream_create(stream, flags, priority);
}

HW_EXPORT hipError_t hipStreamDestroy(hipStream_t stream)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (!stream || stream == hipStreamPerThread)
        return hw_ret(hipErrorInvalidHandle);
    /* A second destroy must not touch the freed stream. The capture is
     * dropped while the handle still resolves; removing it is what decides
     * between two racing destroys. */
    if (!hw_handle_valid(HW_HANDLE_STREAM, stream))
        return hw_ret(hipErrorContextIsDestroyed);
    hw_capture_stream_destroyed(stream);
    if (!hw_handle_remove(HW_HANDLE_STREAM, stream))
        return hw_ret(hipErrorContextIsDestroyed);
    struct hw_stream *st = (struct hw_stream *)stream;
    struct hipr_stream m = { st->id };
    uint8_t buf[HIPR_stream_SIZE];
    hipr_stream_encode(buf, &m);
    err = hw_post(c, HIPR_OP_STREAM_DESTROY, buf, sizeof buf, NULL, 0);
    free(st);
    return hw_ret(err);
}

static hipError_t stream_call(uint16_t op, hipStream_t stream)
{
    hipError_t err;
    int dev;
    uint64_t sid;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_stream_resolve(stream, &sid, &dev)) != hipSuccess)
        return hw_ret(err);
    /* A capturing stream has nothing to wait for: HIP refuses and the
     * capture is invalidated. */
    if ((err = hw_capture_stream_sync(stream)) != hipSuccess)
        return hw_ret(err);
    struct hipr_stream m = { sid };
    uint8_t buf[HIPR_stream_SIZE];
    hipr_stream_encode(buf, &m);
    err = hw_call(c, op, buf, sizeof buf, NULL, 0, NULL, 0, NULL, 0, NULL);
    if (op == HIPR_OP_STREAM_QUERY)
        return err == hipErrorNotReady ? err : hw_ret(err); /* not-ready is not sticky */
    return finish_sync(c, err);
}

HW_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream)
{
    /* The legacy default stream waits for every blocking stream: that is a
     * device synchronize (and during a blocking stream's capture, a wait on
     * it: hipErrorStreamCaptureImplicit). */
    if (stream == NULL) {
        hipError_t err = hw_capture_stream_sync(NULL);
        return err != hipSuccess ? hw_ret(err) : hipDeviceSynchronize();
    }
    return stream_call(HIPR_OP_STREAM_SYNCHRONIZE, stream);
}

HW_EXPORT hipError_t hipStreamQuery(hipStream_t stream)
{
    return stream_call(HIPR_OP_STREAM_QUERY, stream);
}

/* What AMD answers for an invalid stream in hipStreamWaitEvent: its HIP 6
 * runtime folds the stream check into the event's. */
#if HIP_VERSION_MAJOR >= 6
#define WAIT_BAD_STREAM hipErrorInvalidHandle
#else
#define WAIT_BAD_STREAM hipErrorContextIsDestroyed
#endif

HW_EXPORT hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
    hipError_t err;
    int dev;
    uint64_t sid, eid;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (!event)
        return hw_ret(hipErrorInvalidHandle);
    if (hw_stream_resolve(stream, &sid, &dev) != hipSuccess)
        return hw_ret(WAIT_BAD_STREAM);
    if ((err = hw_event_resolve(event, &eid, NULL)) != hipSuccess)
        return hw_ret(err);
    if (flags != 0)
        return hw_ret(hipErrorInvalidValue);
    if (hw_capture_any()) {
        struct hipGraphNode node = { .kind = HW_NODE_WAIT_EVENT, .u.event = { event, flags } };
        int cap = hw_capture_record(stream, &node, &err);
        if (cap)
            return cap < 0 ? hw_ret(err) : hipSuccess;
        if ((err = hw_capture_event_use(event, stream ? stream : hipStreamPerThread)) != hipSuccess)
            return hw_ret(err);
    }
    struct hipr_stream_wait_event m = { sid, eid, flags };
    uint8_t buf[HIPR_stream_wait_event_SIZE];
    hipr_stream_wait_event_encode(buf, &m);
    return hw_ret(hw_post(c, HIPR_OP_STREAM_WAIT_EVENT, buf, sizeof buf, NULL, 0));
}

/* AMD refuses the null stream here (the per-thread stream is a real one). */
HW_EXPORT hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags)
{
    if (!flags || !stream)
        return hw_ret(hipErrorInvalidValue);
    if (stream == hipStreamPerThread) {
        *flags = hipStreamDefault;
        return hipSuccess;
    }
    if (!hw_handle_valid(HW_HANDLE_STREAM, stream))
        return hw_ret(hipErrorContextIsDestroyed);
    *flags = ((struct hw_stream *)stream)->flags;
    return hipSuccess;
}

HW_EXPORT hipError_t hipStreamGetPriority(hipStream_t stream, int *priority)
{
    if (!priority)
        return hw_ret(hipErrorInvalidValue);
    if (!stream || stream == hipStreamPerThread) {
        *priority = 0;
        return hipSuccess;
    }
    if (!hw_handle_valid(HW_HANDLE_STREAM, stream))
        return hw_ret(hipErrorContextIsDestroyed);
    *priority = ((struct hw_stream *)stream)->priority;
    return hipSuccess;
}

/* -1 for an invalid stream, as AMD's. */
HW_EXPORT int hipGetStreamDeviceId(hipStream_t stream)
{
    int dev;
    uint64_t sid;
    return hw_stream_resolve(stream, &sid, &dev) == hipSuccess ? dev : -1;
}

/* ---- events ---- */

/* AMD's rules: known flags only, at most one release scope, and an
 * interprocess event cannot be timed. */
static int event_flags_ok(unsigned flags)
{
    unsigned release = hipEventReleaseToDevice | hipEventReleaseToSystem;
#ifdef hipEventDisableSystemFence
    release |= hipEventDisableSystemFence;
#endif
    unsigned known = hipEventDefault | hipEventBlockingSync | hipEventDisableTiming |
                     hipEventInterprocess | release;
    unsigned r = flags & release;
    if (flags & ~known)
        return 0;
    if (r & (r - 1))
        return 0;
    return !(flags & hipEventInterprocess) || (flags & hipEventDisableTiming);
}

static hipError_t event_create(hipEvent_t *out, unsigned flags)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!out || !event_flags_ok(flags))
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    struct hw_event *ev = hw_calloc(1, sizeof *ev);
    if (!ev)
        return hw_ret(hipErrorOutOfMemory);
    ev->id = hw_new_handle_id();
    ev->device = hw_current_device();
    ev->flags = flags;
    if (hw_handle_add(HW_HANDLE_EVENT, ev) != 0) {
        free(ev);
        return hw_ret(hipErrorOutOfMemory);
    }
    struct hipr_event_create m = { ev->id, hw_wire_device(ev->device), flags };
    uint8_t buf[HIPR_event_create_SIZE];
    hipr_event_create_encode(buf, &m);
    err = hw_post(c, HIPR_OP_EVENT_CREATE, buf, sizeof buf, NULL, 0);
    if (err != hipSuccess) {
        hw_handle_remove(HW_HANDLE_EVENT, ev);
        free(ev);
        return hw_ret(err);
    }
    *out = (hipEvent_t)ev;
    return hipSuccess;
}

HW_EXPORT hipError_t hipEventCreate(hipEvent_t *event)
{
    return event_create(event, hipEventDefault);
}

HW_EXPORT hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
    return event_create(event, flags);
}

HW_EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
    hipError_t err;
    int dev, edev;
    uint64_t sid, eid;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_event_resolve(event, &eid, &edev)) != hipSuccess)
        return hw_ret(err);
    if ((err = hw_stream_resolve(stream, &sid, &dev)) != hipSuccess)
        return hw_ret(err);
    if (hw_capture_any()) {
        struct hipGraphNode node = { .kind = HW_NODE_EVENT_RECORD, .u.event = { event, 0 } };
        int cap = hw_capture_record(stream, &node, &err);
        if (cap)
            return cap < 0 ? hw_ret(err) : hipSuccess;
    }
    /* An event belongs to the device current at its creation. */
    if (edev != dev)
        return hw_ret(hipErrorInvalidHandle);
    struct hipr_event_record m = { eid, sid };
    uint8_t buf[HIPR_event_record_SIZE];
    hipr_event_record_encode(buf, &m);
    return hw_ret(hw_post(c, HIPR_OP_EVENT_RECORD, buf, sizeof buf, NULL, 0));
}

static hipError_t event_call(uint16_t op, hipEvent_t event)
{
    hipError_t err;
    uint64_t eid;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_event_resolve(event, &eid, NULL)) != hipSuccess)
        return hw_ret(err);
    /* An event last recorded in a running capture has not happened. */
    if ((err = hw_capture_event_use(event, NULL)) != hipSuccess)
        return hw_ret(err);
    struct hipr_event m = { eid };
    uint8_t buf[HIPR_event_SIZE];
    hipr_event_encode(buf, &m);
    err = hw_call(c, op, buf, sizeof buf, NULL, 0, NULL, 0, NULL, 0, NULL);
    if (op == HIPR_OP_EVENT_QUERY)
        return err == hipErrorNotReady ? err : hw_ret(err);
    return finish_sync(c, err);
}

HW_EXPORT hipError_t hipEventSynchronize(hipEvent_t event)
{
    return event_call(HIPR_OP_EVENT_SYNCHRONIZE, event);
}

HW_EXPORT hipError_t hipEventQuery(hipEvent_t event)
{
    return event_call(HIPR_OP_EVENT_QUERY, event);
}

/* Events of two devices, or one created with hipEventDisableTiming, have
 * no common clock: hipErrorInvalidHandle, as AMD answers; so does an event
 * never recorded (the worker's verdict). */
HW_EXPORT hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    uint64_t a, b;
    int adev, bdev;
    if (!ms)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (hw_event_resolve(start, &a, &adev) != hipSuccess ||
        hw_event_resolve(stop, &b, &bdev) != hipSuccess || adev != bdev ||
        ((((const struct hw_event *)start)->flags | ((const struct hw_event *)stop)->flags) &
         hipEventDisableTiming))
        return hw_ret(hipErrorInvalidHandle);
    struct hipr_event_elapsed_req m = { a, b };
    uint8_t buf[HIPR_event_elapsed_req_SIZE], body[HIPR_event_elapsed_rep_SIZE];
    hipr_event_elapsed_req_encode(buf, &m);
    err = hw_call(c, HIPR_OP_EVENT_ELAPSED, buf, sizeof buf, NULL, 0, body, sizeof body, NULL, 0,
                  NULL);
    if (err != hipSuccess)
        return err == hipErrorNotReady ? err : hw_ret(err);
    struct hipr_event_elapsed_rep r;
    hipr_event_elapsed_rep_decode(body, sizeof body, &r);
    *ms = r.ms;
    return hipSuccess;
}

HW_EXPORT hipError_t hipEventDestroy(hipEvent_t event)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (!event)
        return hw_ret(hipErrorInvalidHandle);
    /* A second destroy must not touch the freed event. */
    if (!hw_handle_remove(HW_HANDLE_EVENT, event))
        return hw_ret(hipErrorContextIsDestroyed);
    struct hw_event *ev = (struct hw_event *)event;
    struct hipr_event m = { ev->id };
    uint8_t buf[HIPR_event_SIZE];
    hipr_event_encode(buf, &m);
    err = hw_post(c, HIPR_OP_EVENT_DESTROY, buf, sizeof buf, NULL, 0);
    free(ev);
    return hw_ret(err);
}
