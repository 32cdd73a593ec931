/*
 * api_graph_host.c - work that runs in the client in stream order: host
 * functions (hipLaunchHostFunc, hipStreamAddCallback, graph host nodes),
 * and the internal bodies of event record and event wait that graph
 * replay uses instead of the exported calls.
 *
 * The worker has no way to call back into the application, so a host
 * function runs here, on the calling thread: the call waits until the
 * work queued on the stream before it is done (a stream synchronize on the
 * worker), then calls the function, then returns. The function therefore
 * runs after the work before it, and work queued after the call starts
 * only after the function returned: HIP's order, with the caller blocked
 * for the duration instead of a runtime thread.
 */
#include "graph.h"

hipError_t hw_host_call(hipStream_t stream, hipHostFn_t fn, void *data)
{
    hipError_t err;
    int dev;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return err;
    if (!fn)
        return hipErrorInvalidValue;
    if (hw_capture_any()) {
        struct hipGraphNode node = { .kind = HW_NODE_HOST, .u.host = { fn, data } };
        int cap = hw_capture_record(stream, &node, &err);
        if (cap)
            return cap < 0 ? err : hipSuccess;
    }
    struct hipr_stream m = { hw_stream_wire_id(stream, &dev) };
    uint8_t buf[HIPR_stream_SIZE];
    hipr_stream_encode(buf, &m);
    err = hw_call(c, HIPR_OP_STREAM_SYNCHRONIZE, buf, sizeof buf, NULL, 0, NULL, 0, NULL, 0, NULL);
    if (err != hipSuccess)
        return err;
    fn(data);
    return hipSuccess;
}

HW_EXPORT hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData)
{
    return hw_ret(hw_host_call(stream, fn, userData));
}

HW_EXPORT hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback,
                                          void *userData, unsigned int flags)
{
    hipError_t err;
    int dev;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (!callback || flags != 0)
        return hw_ret(hipErrorInvalidValue);
    /* Not a capturable call in HIP; the stream's capture is invalidated. */
    if ((err = hw_capture_stream_sync(stream)) != hipSuccess)
        return hw_ret(err);
    struct hipr_stream m = { hw_stream_wire_id(stream, &dev) };
    uint8_t buf[HIPR_stream_SIZE];
    hipr_stream_encode(buf, &m);
    /* The callback is told the stream's status, and runs even on an error. */
    err = hw_call(c, HIPR_OP_STREAM_SYNCHRONIZE, buf, sizeof buf, NULL, 0, NULL, 0, NULL, 0, NULL);
    callback(stream, err, userData);
    return hipSuccess;
}

hipError_t hw_event_record_on(hipEvent_t event, hipStream_t stream)
{
    hipError_t err;
    int dev;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return err;
    uint64_t ev_id, st_id;
    if ((err = hw_event_resolve(event, &ev_id, NULL)) != hipSuccess ||
        (err = hw_stream_resolve(stream, &st_id, &dev)) != hipSuccess)
        return err; /* a node whose event or stream was destroyed since */
    if (hw_capture_any()) {
        struct hipGraphNode node = { .kind = HW_NODE_EVENT_RECORD, .u.event = { event, 0 } };
        int cap = hw_capture_record(stream, &node, &err);
        if (cap)
            return cap < 0 ? err : hipSuccess;
    }
    struct hipr_event_record m = { ev_id, st_id };
    uint8_t buf[HIPR_event_record_SIZE];
    hipr_event_record_encode(buf, &m);
    return hw_post(c, HIPR_OP_EVENT_RECORD, buf, sizeof buf, NULL, 0);
}

hipError_t hw_stream_wait_on(hipStream_t stream, hipEvent_t event, unsigned flags)
{
    hipError_t err;
    int dev;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return err;
    uint64_t ev_id, st_id;
    if ((err = hw_event_resolve(event, &ev_id, NULL)) != hipSuccess ||
        (err = hw_stream_resolve(stream, &st_id, &dev)) != hipSuccess)
        return err;
    if (hw_capture_any()) {
        struct hipGraphNode node = { .kind = HW_NODE_WAIT_EVENT, .u.event = { event, flags } };
        int cap = hw_capture_record(stream, &node, &err);
        if (cap)
            return cap < 0 ? err : hipSuccess;
    }
    struct hipr_stream_wait_event m = { st_id, ev_id, flags };
    uint8_t buf[HIPR_stream_wait_event_SIZE];
    hipr_stream_wait_event_encode(buf, &m);
    return hw_post(c, HIPR_OP_STREAM_WAIT_EVENT, buf, sizeof buf, NULL, 0);
}
