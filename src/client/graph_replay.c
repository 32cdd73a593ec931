/*
 * graph_replay.c - hipGraphLaunch's body: a graph's nodes onto one stream,
 * in a topological order, each through the internal body of its call
 * (hw_launch, hw_copy, hw_fill, hw_event_record_on...), never through an
 * exported entry point, which would record the thread's last error and see
 * the stream's capture state (client_layers checks this).
 */
#include <stdlib.h>

#include "array.h"
#include "client.h"
#include "graph.h"

/* One node onto stream, through the internal body of its call. */
static hipError_t replay(const struct hipGraphNode *n, hipStream_t stream)
{
    switch (n->kind) {
    case HW_NODE_KERNEL: {
        size_t len = n->u.kernel.args_len;
        void *extra[] = { HIP_LAUNCH_PARAM_BUFFER_POINTER, n->u.kernel.args,
                          HIP_LAUNCH_PARAM_BUFFER_SIZE, &len, HIP_LAUNCH_PARAM_END };
        return hw_launch(n->u.kernel.f, n->u.kernel.grid, n->u.kernel.block, n->u.kernel.shared,
                         stream, NULL, extra, n->u.kernel.start, n->u.kernel.stop,
                         n->u.kernel.flags);
    }
    case HW_NODE_MEMCPY:
        return hw_copy(n->u.copy.dst, n->u.copy.src, n->u.copy.n, n->u.copy.kind, stream, 0);
    case HW_NODE_MEMCPY_2D:
        return hw_copy_2d(n->u.copy2d.dst, n->u.copy2d.dpitch, n->u.copy2d.src, n->u.copy2d.spitch,
                          n->u.copy2d.width, n->u.copy2d.height, n->u.copy2d.kind, stream, 0);
    case HW_NODE_MEMCPY_3D: return hw_copy_3d(&n->u.copy3d, stream, 0);
    case HW_NODE_MEMSET:
        return hw_fill(n->u.memset.dst, n->u.memset.value, n->u.memset.elem, n->u.memset.count,
                       stream, 0);
    case HW_NODE_MEMSET_2D: {
        hipError_t err = hipSuccess;
        for (size_t r = 0; r < n->u.memset2d.height && err == hipSuccess; r++)
            err = hw_fill((char *)n->u.memset2d.dst + r * n->u.memset2d.pitch, n->u.memset2d.value,
                          n->u.memset2d.elem, n->u.memset2d.width, stream, 0);
        return err;
    }
    case HW_NODE_EVENT_RECORD: return hw_event_record_on(n->u.event.event, stream);
    case HW_NODE_WAIT_EVENT: return hw_stream_wait_on(stream, n->u.event.event, n->u.event.flags);
    case HW_NODE_HOST: return hw_host_call(stream, n->u.host.fn, n->u.host.userData);
    case HW_NODE_CHILD: return hw_graph_run(n->u.child, stream);
    case HW_NODE_EMPTY: return hipSuccess;
    }
    return hipErrorInvalidValue;
}

hipError_t hw_graph_run(const struct ihipGraph *g, hipStream_t stream)
{
    struct hipGraphNode **order = g->order;
    size_t n = g->n;
    hipError_t err = hipSuccess;
    if (!order)
        err = hw_graph_order(g, &order, &n);
    for (size_t i = 0; i < n && err == hipSuccess; i++)
        err = replay(order[i], stream);
    if (order != g->order)
        free(order);
    return err;
}
