/*
 * api_graph.c - the graph API: graphs, nodes and edges, clones,
 * instantiation and launch (graph.h; node parameters: api_graph_params.c).
 * Every handle is checked against the handle registry first: NULL, stale
 * or foreign handles are hipErrorInvalidValue, as in HIP.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "graph.h"
#include "handle_registry.h"

/* ---- graphs ------------------------------------------------------------------------ */

HW_EXPORT hipError_t hipGraphCreate(hipGraph_t *pGraph, unsigned int flags)
{
    if (!pGraph || flags != 0)
        return hw_ret(hipErrorInvalidValue);
    struct ihipGraph *g = hw_graph_new(hw_current_device(), 1);
    if (!g)
        return hw_ret(hipErrorOutOfMemory);
    *pGraph = g;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphDestroy(hipGraph_t graph)
{
    if (!graph)
        return hw_ret(hipErrorInvalidValue);
    /* A graph destroyed already is not one HIP knows: hipErrorIllegalState
     * (hip-tests Unit_hipGraphDestroy_Negative). */
    if (!hw_graph_ok(graph))
        return hw_ret(hipErrorIllegalState);
    if (graph->capturing)
        return hw_ret(hipErrorIllegalState); /* its capture owns it until it ends */
    if (graph->parent)
        return hw_ret(hipErrorInvalidValue); /* owned by its child-graph node */
    hw_graph_free(graph);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphClone(hipGraph_t *pGraphClone, hipGraph_t originalGraph)
{
    if (!pGraphClone || !hw_graph_ok(originalGraph))
        return hw_ret(hipErrorInvalidValue);
    struct ihipGraph *g = hw_graph_new(originalGraph->device, 1);
    if (!g)
        return hw_ret(hipErrorOutOfMemory);
    hipError_t err = hw_graph_copy(originalGraph, g);
    if (err != hipSuccess) {
        hw_graph_free(g);
        return hw_ret(err);
    }
    g->cloned_from = originalGraph->id;
    *pGraphClone = g;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphNodeFindInClone(hipGraphNode_t *pNode, hipGraphNode_t originalNode,
                                             hipGraph_t clonedGraph)
{
    if (!pNode || !hw_node_ok(originalNode) || !hw_graph_ok(clonedGraph))
        return hw_ret(hipErrorInvalidValue);
    if (clonedGraph->cloned_from != originalNode->graph->id)
        return hw_ret(hipErrorInvalidValue);
    for (size_t i = 0; i < clonedGraph->n; i++)
        if (clonedGraph->nodes[i]->serial == originalNode->serial) {
            *pNode = clonedGraph->nodes[i];
            return hipSuccess;
        }
    return hw_ret(hipErrorInvalidValue);
}

/* Copies up to *count of v into out (NULL-filling the rest); *count = what
 * was written. out NULL: *count = how many there are. */
static void list_out(hipGraphNode_t const *v, size_t n, hipGraphNode_t *out, size_t *count)
{
    if (!out) {
        *count = n;
        return;
    }
    size_t k = 0;
    for (; k < *count && k < n; k++)
        out[k] = v[k];
    for (size_t i = k; i < *count; i++)
        out[i] = NULL;
    *count = k;
}

HW_EXPORT hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *numNodes)
{
    if (!hw_graph_ok(graph) || !numNodes)
        return hw_ret(hipErrorInvalidValue);
    list_out(graph->nodes, graph->n, nodes, numNodes);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t *pRootNodes,
                                          size_t *pNumRootNodes)
{
    if (!hw_graph_ok(graph) || !pNumRootNodes)
        return hw_ret(hipErrorInvalidValue);
    hipGraphNode_t *roots = hw_malloc((graph->n ? graph->n : 1) * sizeof *roots);
    if (!roots)
        return hw_ret(hipErrorOutOfMemory);
    size_t n = 0;
    for (size_t i = 0; i < graph->n; i++)
        if (graph->nodes[i]->ndeps == 0)
            roots[n++] = graph->nodes[i];
    list_out(roots, n, pRootNodes, pNumRootNodes);
    free(roots);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t *from, hipGraphNode_t *to,
                                      size_t *numEdges)
{
    if (!hw_graph_ok(graph) || !numEdges || (!from != !to))
        return hw_ret(hipErrorInvalidValue);
    size_t k = 0;
    for (size_t i = 0; i < graph->n; i++) {
        const struct hipGraphNode *n = graph->nodes[i];
        for (size_t d = 0; d < n->ndeps; d++, k++)
            if (from && k < *numEdges) {
                from[k] = n->deps[d];
                to[k] = graph->nodes[i];
            }
    }
    if (from) {
        for (size_t i = k; i < *numEdges; i++)
            from[i] = to[i] = NULL;
        if (k < *numEdges)
            *numEdges = k;
    } else {
        *numEdges = k;
    }
    return hipSuccess;
}

/* ---- nodes ------------------------------------------------------------------------- */

/* Checks what every hipGraphAdd*Node takes, then adds a copy of tmpl. */
static hipError_t add(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
                      size_t ndeps, const struct hipGraphNode *tmpl)
{
    if (!out || !hw_graph_ok(graph) || (ndeps && !deps))
        return hipErrorInvalidValue;
    for (size_t i = 0; i < ndeps; i++) {
        if (!hw_node_ok(deps[i]) || deps[i]->graph != graph)
            return hipErrorInvalidValue;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i])
                return hipErrorInvalidValue;
    }
    return hw_graph_add(graph, tmpl, deps, ndeps, out);
}

HW_EXPORT hipError_t hipGraphAddEmptyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                          const hipGraphNode_t *pDependencies,
                                          size_t numDependencies)
{
    struct hipGraphNode t = { .kind = HW_NODE_EMPTY };
    return hw_ret(add(pGraphNode, graph, pDependencies, numDependencies, &t));
}

HW_EXPORT hipError_t hipGraphAddKernelNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                           const hipGraphNode_t *pDependencies,
                                           size_t numDependencies,
                                           const hipKernelNodeParams *pNodeParams)
{
    uint8_t args[HIPR_CAP_KERNEL_ARGS];
    struct hipGraphNode t;
    hipError_t err = hw_kernel_payload(pNodeParams, &t, args);
    if (err == hipSuccess)
        err = add(pGraphNode, graph, pDependencies, numDependencies, &t);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipGraphAddMemcpyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                           const hipGraphNode_t *pDependencies,
                                           size_t numDependencies,
                                           const hipMemcpy3DParms *pCopyParams)
{
    struct hipGraphNode t;
    hipError_t err = hw_memcpy_payload(pCopyParams, &t);
    if (err == hipSuccess)
        err = add(pGraphNode, graph, pDependencies, numDependencies, &t);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                             const hipGraphNode_t *pDependencies,
                                             size_t numDependencies, void *dst, const void *src,
                                             size_t count, hipMemcpyKind kind)
{
    struct hipGraphNode t;
    hipError_t err = hw_memcpy1d_payload(dst, src, count, kind, &t);
    if (err == hipSuccess)
        err = add(pGraphNode, graph, pDependencies, numDependencies, &t);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipGraphAddMemcpyNodeToSymbol(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                                   const hipGraphNode_t *pDependencies,
                                                   size_t numDependencies, const void *symbol,
                                                   const void *src, size_t count, size_t offset,
                                                   hipMemcpyKind kind)
{
    struct hipGraphNode t;
    if (!hw_graph_ok(graph))
        return hw_ret(hipErrorInvalidValue);
    hipError_t err =
        hw_symbol_payload(NULL, src, symbol, 1, count, offset, kind, graph->device, &t);
    if (err == hipSuccess)
        err = add(pGraphNode, graph, pDependencies, numDependencies, &t);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipGraphAddMemcpyNodeFromSymbol(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                                     const hipGraphNode_t *pDependencies,
                                                     size_t numDependencies, void *dst,
                                                     const void *symbol, size_t count,
                                                     size_t offset, hipMemcpyKind kind)
{
    struct hipGraphNode t;
    if (!hw_graph_ok(graph))
        return hw_ret(hipErrorInvalidValue);
    hipError_t err =
        hw_symbol_payload(dst, NULL, symbol, 0, count, offset, kind, graph->device, &t);
    if (err == hipSuccess)
        err = add(pGraphNode, graph, pDependencies, numDependencies, &t);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipGraphAddMemsetNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                           const hipGraphNode_t *pDependencies,
                                           size_t numDependencies,
                                           const hipMemsetParams *pMemsetParams)
{
    struct hipGraphNode t;
    hipError_t err = hw_memset_payload(pMemsetParams, &t);
    if (err == hipSuccess)
        err = add(pGraphNode, graph, pDependencies, numDependencies, &t);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipGraphAddHostNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                         const hipGraphNode_t *pDependencies,
                                         size_t numDependencies,
                                         const hipHostNodeParams *pNodeParams)
{
    if (!pNodeParams || !pNodeParams->fn)
        return hw_ret(hipErrorInvalidValue);
    struct hipGraphNode t = { .kind = HW_NODE_HOST, .u.host = *pNodeParams };
    return hw_ret(add(pGraphNode, graph, pDependencies, numDependencies, &t));
}

HW_EXPORT hipError_t hipGraphAddChildGraphNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                               const hipGraphNode_t *pDependencies,
                                               size_t numDependencies, hipGraph_t childGraph)
{
    if (!hw_graph_ok(childGraph) || childGraph->capturing)
        return hw_ret(hipErrorInvalidValue);
    /* The node holds a copy: later changes to childGraph do not reach it.
     * A graph may be its own child: the copy is of its nodes before this one. */
    struct hipGraphNode t = { .kind = HW_NODE_CHILD, .u.child = childGraph };
    return hw_ret(add(pGraphNode, graph, pDependencies, numDependencies, &t));
}

static hipError_t add_event_node(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
                                 size_t ndeps, hipEvent_t event, enum hw_node_kind kind)
{
    uint64_t id;
    if (!event || hw_event_resolve(event, &id, NULL) != hipSuccess)
        return hipErrorInvalidValue; /* never read a handle this proxy did not issue */
    struct hipGraphNode t = { .kind = kind, .u.event = { event, 0 } };
    return add(out, graph, deps, ndeps, &t);
}

HW_EXPORT hipError_t hipGraphAddEventRecordNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                                const hipGraphNode_t *pDependencies,
                                                size_t numDependencies, hipEvent_t event)
{
    return hw_ret(add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
                                 HW_NODE_EVENT_RECORD));
}

HW_EXPORT hipError_t hipGraphAddEventWaitNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                              const hipGraphNode_t *pDependencies,
                                              size_t numDependencies, hipEvent_t event)
{
    return hw_ret(add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
                                 HW_NODE_WAIT_EVENT));
}

HW_EXPORT hipError_t hipGraphDestroyNode(hipGraphNode_t node)
{
    if (!hw_node_ok(node))
        return hw_ret(hipErrorInvalidValue);
    if (node->graph->capturing)
        return hw_ret(hipErrorIllegalState);
    hw_graph_remove(node);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType *pType)
{
    if (!hw_node_ok(node) || !pType)
        return hw_ret(hipErrorInvalidValue);
    switch (node->kind) {
    case HW_NODE_KERNEL: *pType = hipGraphNodeTypeKernel; break;
    case HW_NODE_MEMCPY:
    case HW_NODE_MEMCPY_2D:
    case HW_NODE_MEMCPY_3D: *pType = hipGraphNodeTypeMemcpy; break;
    case HW_NODE_MEMSET:
    case HW_NODE_MEMSET_2D: *pType = hipGraphNodeTypeMemset; break;
    case HW_NODE_EVENT_RECORD: *pType = hipGraphNodeTypeEventRecord; break;
    case HW_NODE_WAIT_EVENT: *pType = hipGraphNodeTypeWaitEvent; break;
    case HW_NODE_HOST: *pType = hipGraphNodeTypeHost; break;
    case HW_NODE_CHILD: *pType = hipGraphNodeTypeGraph; break;
    case HW_NODE_EMPTY: *pType = hipGraphNodeTypeEmpty; break;
    }
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t *pDependencies,
                                                 size_t *pNumDependencies)
{
    if (!hw_node_ok(node) || !pNumDependencies)
        return hw_ret(hipErrorInvalidValue);
    list_out(node->deps, node->ndeps, pDependencies, pNumDependencies);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node,
                                                   hipGraphNode_t *pDependentNodes,
                                                   size_t *pNumDependentNodes)
{
    if (!hw_node_ok(node) || !pNumDependentNodes)
        return hw_ret(hipErrorInvalidValue);
    const struct ihipGraph *g = node->graph;
    hipGraphNode_t *v = hw_malloc((g->n ? g->n : 1) * sizeof *v);
    if (!v)
        return hw_ret(hipErrorOutOfMemory);
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t d = 0; d < g->nodes[i]->ndeps; d++)
            if (g->nodes[i]->deps[d] == node) {
                v[n++] = g->nodes[i];
                break;
            }
    list_out(v, n, pDependentNodes, pNumDependentNodes);
    free(v);
    return hipSuccess;
}

/* ---- edges ------------------------------------------------------------------------- */

static int has_edge(const struct hipGraphNode *from, const struct hipGraphNode *to)
{
    for (size_t d = 0; d < to->ndeps; d++)
        if (to->deps[d] == from)
            return 1;
    return 0;
}

/* Checks the edge lists: both nodes live and of graph, distinct. */
static hipError_t check_edges(hipGraph_t graph, const hipGraphNode_t *from,
                              const hipGraphNode_t *to, size_t n)
{
    if (!hw_graph_ok(graph) || (n && (!from || !to)))
        return hipErrorInvalidValue;
    for (size_t i = 0; i < n; i++)
        if (!hw_node_ok(from[i]) || !hw_node_ok(to[i]) || from[i]->graph != graph ||
            to[i]->graph != graph || from[i] == to[i])
            return hipErrorInvalidValue;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                             const hipGraphNode_t *to, size_t numDependencies)
{
    /* No edges is success, as in AMD's runtime, whatever the lists. */
    hipError_t err = check_edges(graph, from, to, numDependencies);
    for (size_t i = 0; i < numDependencies && err == hipSuccess; i++)
        if (has_edge(from[i], to[i]))
            err = hipErrorInvalidValue; /* HIP refuses an edge that exists */
    for (size_t i = 0; i < numDependencies && err == hipSuccess; i++) {
        struct hipGraphNode *t = to[i];
        if (t->ndeps == t->cap_deps) {
            size_t cap = t->cap_deps ? 2 * t->cap_deps : 4;
            struct hipGraphNode **v = hw_realloc(t->deps, cap * sizeof *v);
            if (!v) {
                err = hipErrorOutOfMemory;
                break;
            }
            t->deps = v;
            t->cap_deps = cap;
        }
        t->deps[t->ndeps++] = from[i];
    }
    return hw_ret(err);
}

HW_EXPORT hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                                const hipGraphNode_t *to, size_t numDependencies)
{
    hipError_t err = check_edges(graph, from, to, numDependencies);
    if (err == hipSuccess && (!from || !to))
        err = hipErrorInvalidValue;
    for (size_t i = 0; i < numDependencies && err == hipSuccess; i++)
        if (!has_edge(from[i], to[i]))
            err = hipErrorInvalidValue;
    for (size_t i = 0; i < numDependencies && err == hipSuccess; i++) {
        struct hipGraphNode *t = to[i];
        for (size_t d = 0; d < t->ndeps; d++)
            if (t->deps[d] == from[i]) {
                memmove(&t->deps[d], &t->deps[d + 1], (t->ndeps - d - 1) * sizeof *t->deps);
                t->ndeps--;
                break;
            }
    }
    return hw_ret(err);
}

/* ---- executable graphs ------------------------------------------------------------- */

static hipError_t instantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph)
{
    if (!pGraphExec || !hw_graph_ok(graph))
        return hipErrorInvalidValue;
    if (graph->capturing)
        return hipErrorIllegalState;
    struct hipGraphNode **order = NULL;
    size_t n = 0;
    hipError_t err = hw_graph_order(graph, &order, &n); /* a cycle is hipErrorInvalidValue */
    free(order);
    if (err != hipSuccess)
        return err;
    struct hipGraphExec *e = hw_calloc(1, sizeof *e);
    if (!e)
        return hipErrorOutOfMemory;
    if ((err = hw_graph_copy(graph, &e->g)) == hipSuccess &&
        (err = hw_graph_prepare(&e->g)) == hipSuccess &&
        hw_handle_add(HW_HANDLE_GRAPH_EXEC, e) != 0)
        err = hipErrorOutOfMemory;
    if (err != hipSuccess) {
        hw_graph_clear(&e->g);
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
    /* Auto-free concerns memory allocated by graph nodes, which are not
     * built here; it is accepted as HIP accepts it. */
    if (flags != 0 && flags != hipGraphInstantiateFlagAutoFreeOnLaunch)
        return hw_ret(hipErrorInvalidValue);
    return hw_ret(instantiate(pGraphExec, graph));
}

HW_EXPORT hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)
{
    hipError_t err;
    int dev = 0;
    if (!hw_exec_ok(graphExec))
        return hw_ret(hipErrorInvalidValue);
    if (!hw_conn_get(&err))
        return hw_ret(err);
    hw_stream_wire_id(stream, &dev);
    /* Its kernels are loaded on the device it was made on. */
    if (graphExec->g.n && dev != graphExec->g.device)
        return hw_ret(hipErrorInvalidValue);
    return hw_ret(hw_graph_run(&graphExec->g, stream));
}

HW_EXPORT hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)
{
    if (!graphExec || !hw_handle_remove(HW_HANDLE_GRAPH_EXEC, graphExec))
        return hw_ret(hipErrorInvalidValue);
    hw_graph_clear(&graphExec->g);
    free(graphExec);
    return hipSuccess;
}
