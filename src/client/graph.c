/*
 * graph.c - graphs and executable graphs: nodes kept in the client, a
 * launch replays them in order onto the launch stream (graph.h).
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

struct ihipGraph *hw_graph_new(int device)
{
    struct ihipGraph *g = calloc(1, sizeof *g);
    if (g)
        g->device = device;
    return g;
}

static void node_free(struct hipGraphNode *n)
{
    if (n && n->kind == HW_NODE_KERNEL)
        free(n->u.kernel.args);
    free(n);
}

static void graph_clear(struct ihipGraph *g)
{
    for (size_t i = 0; i < g->n; i++)
        node_free(g->nodes[i]);
    free(g->nodes);
    g->nodes = NULL;
    g->n = g->cap = 0;
}

void hw_graph_free(struct ihipGraph *g)
{
    if (!g)
        return;
    graph_clear(g);
    free(g);
}

hipError_t hw_graph_append(struct ihipGraph *g, const struct hipGraphNode *node)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        struct hipGraphNode **v = realloc(g->nodes, cap * sizeof *v);
        if (!v)
            return hipErrorOutOfMemory;
        g->nodes = v;
        g->cap = cap;
    }
    struct hipGraphNode *n = malloc(sizeof *n);
    if (!n)
        return hipErrorOutOfMemory;
    *n = *node;
    if (n->kind == HW_NODE_KERNEL) {
        /* The arguments as they were at the captured call, like HIP's kernel node. */
        size_t len = node->u.kernel.args_len;
        n->u.kernel.args = malloc(len ? len : 1);
        if (!n->u.kernel.args) {
            free(n);
            return hipErrorOutOfMemory;
        }
        if (len)
            memcpy(n->u.kernel.args, node->u.kernel.args, len);
    }
    g->nodes[g->n++] = n;
    return hipSuccess;
}

static hipError_t graph_copy(const struct ihipGraph *from, struct ihipGraph *to)
{
    to->device = from->device;
    for (size_t i = 0; i < from->n; i++) {
        hipError_t err = hw_graph_append(to, from->nodes[i]);
        if (err != hipSuccess) {
            graph_clear(to);
            return err;
        }
    }
    return hipSuccess;
}

/* One node onto stream, through the path its call took when captured. */
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
    case HW_NODE_MEMSET:
        return hw_fill(n->u.memset.dst, n->u.memset.value, n->u.memset.elem, n->u.memset.count,
                       stream, 0);
    case HW_NODE_EVENT_RECORD:
        return hipEventRecord(n->u.event.event, stream);
    case HW_NODE_WAIT_EVENT:
        return hipStreamWaitEvent(stream, n->u.event.event, n->u.event.flags);
    }
    return hipErrorInvalidValue;
}

/* ---- graphs ------------------------------------------------------------------------ */

HW_EXPORT hipError_t hipGraphCreate(hipGraph_t *pGraph, unsigned int flags)
{
    if (!pGraph || flags != 0)
        return hw_ret(hipErrorInvalidValue);
    struct ihipGraph *g = hw_graph_new(hw_current_device());
    if (!g)
        return hw_ret(hipErrorOutOfMemory);
    *pGraph = g;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphDestroy(hipGraph_t graph)
{
    if (!graph)
        return hw_ret(hipErrorInvalidValue);
    if (graph->capturing)
        return hw_ret(hipErrorIllegalState); /* its capture owns it until it ends */
    hw_graph_free(graph);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *numNodes)
{
    if (!graph || !numNodes)
        return hw_ret(hipErrorInvalidValue);
    if (!nodes) {
        *numNodes = graph->n;
        return hipSuccess;
    }
    size_t k = 0;
    for (; k < *numNodes && k < graph->n; k++)
        nodes[k] = graph->nodes[k];
    for (size_t i = k; i < *numNodes; i++)
        nodes[i] = NULL;
    *numNodes = k;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType *pType)
{
    if (!node || !pType)
        return hw_ret(hipErrorInvalidValue);
    switch (node->kind) {
    case HW_NODE_KERNEL: *pType = hipGraphNodeTypeKernel; break;
    case HW_NODE_MEMCPY:
    case HW_NODE_MEMCPY_2D: *pType = hipGraphNodeTypeMemcpy; break;
    case HW_NODE_MEMSET: *pType = hipGraphNodeTypeMemset; break;
    case HW_NODE_EVENT_RECORD: *pType = hipGraphNodeTypeEventRecord; break;
    case HW_NODE_WAIT_EVENT: *pType = hipGraphNodeTypeWaitEvent; break;
    }
    return hipSuccess;
}

/* ---- executable graphs ------------------------------------------------------------- */

static hipError_t instantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph)
{
    if (!pGraphExec || !graph)
        return hipErrorInvalidValue;
    if (graph->capturing)
        return hipErrorIllegalState;
    struct hipGraphExec *e = calloc(1, sizeof *e);
    if (!e)
        return hipErrorOutOfMemory;
    hipError_t err = graph_copy(graph, &e->g);
    if (err != hipSuccess) {
        free(e);
        return err;
    }
    *pGraphExec = e;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                         hipGraphNode_t *pErrorNode, char *pLogBuffer,
                                         size_t bufferSize)
{
    hipError_t err = instantiate(pGraphExec, graph);
    if (err == hipSuccess && pErrorNode)
        *pErrorNode = NULL;
    if (pLogBuffer && bufferSize)
        pLogBuffer[0] = '\0';
    return hw_ret(err);
}

HW_EXPORT hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                                  unsigned long long flags)
{
    /* Auto-free concerns memory allocated by graph nodes, which capture
     * never records here; it is accepted as HIP accepts it. */
    if (flags != 0 && flags != hipGraphInstantiateFlagAutoFreeOnLaunch)
        return hw_ret(hipErrorInvalidValue);
    return hw_ret(instantiate(pGraphExec, graph));
}

HW_EXPORT hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)
{
    hipError_t err;
    int dev = 0;
    if (!graphExec)
        return hw_ret(hipErrorInvalidValue);
    if (!hw_conn_get(&err))
        return hw_ret(err);
    hw_stream_wire_id(stream, &dev);
    /* Its kernels are loaded on the device it was captured on. */
    if (graphExec->g.n && dev != graphExec->g.device)
        return hw_ret(hipErrorInvalidValue);
    for (size_t i = 0; i < graphExec->g.n; i++)
        if ((err = replay(graphExec->g.nodes[i], stream)) != hipSuccess)
            return hw_ret(err);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)
{
    if (!graphExec)
        return hw_ret(hipErrorInvalidValue);
    graph_clear(&graphExec->g);
    free(graphExec);
    return hipSuccess;
}
