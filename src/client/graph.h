/*
 * graph.h - stream capture and graphs in the proxy (docs/client.md).
 *
 * Graphs live in the client. A graph is a set of nodes and the edges
 * between them (each node lists the nodes it depends on). Nodes come from
 * stream capture (the calls that would queue work on a capturing stream)
 * or from the hipGraphAdd*Node calls. hipGraphLaunch replays the nodes in a
 * topological order, through the same internal code paths, onto the launch
 * stream, so the worker sees ordinary requests and needs no graph support.
 * A node is a call with its arguments: a kernel node keeps a copy of its
 * argument buffer, a copy node the addresses it names (host memory is read
 * or written when the graph is launched, as HIP's memcpy nodes do).
 * Graphs, executable graphs and the nodes an application can name are in
 * the handle registry, so stale or foreign handles get HIP's errors.
 */
#ifndef HW_CLIENT_GRAPH_H
#define HW_CLIENT_GRAPH_H

#include "client.h"

enum hw_node_kind {
    HW_NODE_KERNEL,
    HW_NODE_MEMCPY,
    HW_NODE_MEMCPY_2D,
    HW_NODE_MEMSET,
    HW_NODE_EVENT_RECORD,
    HW_NODE_WAIT_EVENT,
    HW_NODE_MEMCPY_3D, /* hipGraphAddMemcpyNode, or any memcpy node once set */
    HW_NODE_HOST,
    HW_NODE_CHILD,
    HW_NODE_EMPTY,
    HW_NODE_MEMSET_2D, /* hipGraphAddMemsetNode, or any memset node once set */
};

/* hipGraphNode_t points at one of these. The callers that capture fill in
 * kind and u only; the rest belongs to the graph. */
struct hipGraphNode {
    enum hw_node_kind kind;
    union {
        struct {
            const struct hw_function *f;
            uint32_t grid[3], block[3];
            unsigned shared;
            uint32_t flags;
            hipEvent_t start, stop;
            size_t args_len;
            uint8_t *args;  /* owned by the node once recorded */
            void *func;     /* as the application named it (GetParams) */
            void **kparams; /* pointers into args, one per parameter (GetParams) */
            /* hipGraphKernelNodeSetAttribute's values: cooperative as given
             * (nonzero puts HIPR_LAUNCH_COOPERATIVE in flags), the access
             * policy window kept as a hint only. */
            int cooperative;
            hipAccessPolicyWindow apw;
        } kernel;
        struct {
            void *dst;
            const void *src;
            size_t n;
            hipMemcpyKind kind;
        } copy;
        struct {
            void *dst;
            const void *src;
            size_t dpitch, spitch, width, height;
            hipMemcpyKind kind;
        } copy2d;
        hipMemcpy3DParms copy3d;
        struct {
            void *dst;
            uint32_t value, elem;
            size_t count;
        } memset;
        struct {
            void *dst;
            uint32_t value, elem;
            size_t width, pitch, height; /* elements per row, bytes between rows, rows */
        } memset2d;
        struct {
            hipEvent_t event;
            unsigned flags;
        } event;
        hipHostNodeParams host;
        struct ihipGraph *child; /* owned: a copy of the graph given */
    } u;
    struct ihipGraph *graph;    /* the graph it belongs to */
    struct hipGraphNode **deps; /* the nodes it depends on */
    size_t ndeps, cap_deps;
    uint64_t serial; /* shared by a node and its clones */
    size_t idx;      /* its position in graph->nodes */
};

struct ihipGraph {
    int device;
    size_t n, cap;
    struct hipGraphNode **nodes;
    int capturing;               /* still being captured into: not the app's yet */
    int registered;              /* it and its nodes are application handles */
    uint64_t id, cloned_from;    /* hipGraphNodeFindInClone */
    struct hipGraphNode *parent; /* the child-graph node holding it, if any */
    struct hipGraphNode **order; /* a topological order, kept by executable graphs */
};

/* hipGraphExec_t: a frozen copy of a graph. */
struct hipGraphExec {
    struct ihipGraph g;
};

/* graph.c */
/* A new empty graph; registered: an application handle. */
struct ihipGraph *hw_graph_new(int device, int registered);
void hw_graph_free(struct ihipGraph *g);
/* Frees g's nodes, leaving it empty. */
void hw_graph_clear(struct ihipGraph *g);
/* Adds a copy of tmpl (its kind and u, deep-copied) depending on deps.
 * *out (may be NULL) gets the new node. */
hipError_t hw_graph_add(struct ihipGraph *g, const struct hipGraphNode *tmpl,
                        struct hipGraphNode *const *deps, size_t ndeps, struct hipGraphNode **out);
/* Copies from's nodes and edges into the empty graph to (serials kept). */
hipError_t hw_graph_copy(const struct ihipGraph *from, struct ihipGraph *to);
/* Removes node n from its graph (and every edge to or from it), frees it. */
void hw_graph_remove(struct hipGraphNode *n);
/* Node payload only: replaces dst's kind and u with a deep copy of src's. */
hipError_t hw_node_set_payload(struct hipGraphNode *dst, const struct hipGraphNode *src);
/* The nodes of g (and of its child graphs) in an order that respects every
 * edge; hipErrorInvalidValue when the edges form a cycle. *order is malloc'd. */
hipError_t hw_graph_order(const struct ihipGraph *g, struct hipGraphNode ***order, size_t *n);
/* Computes and keeps g's order, and its child graphs' (executable graphs:
 * a launch then only reads). hipErrorInvalidValue for a cycle. */
hipError_t hw_graph_prepare(struct ihipGraph *g);
/* Queues g's work onto stream in a topological order (one stream). */
hipError_t hw_graph_run(const struct ihipGraph *g, hipStream_t stream);
/* Whether a depends, directly or not, on b (or is b); -1 when memory ran out. */
int hw_node_reaches(const struct hipGraphNode *a, const struct hipGraphNode *b);

/* Live application handles (handle registry), NULL refused. */
int hw_graph_ok(const struct ihipGraph *g);
int hw_node_ok(const struct hipGraphNode *n);
int hw_exec_ok(const struct hipGraphExec *e);
/* The node of exec standing for node (same serial), or NULL. */
struct hipGraphNode *hw_exec_node(const struct hipGraphExec *e, const struct hipGraphNode *node);

/* api_graph_params.c: payload checks shared by the Add and Set calls. The
 * template gets kind and u (a kernel's arguments in args, HIPR_CAP_KERNEL_ARGS). */
hipError_t hw_kernel_payload(const hipKernelNodeParams *p, struct hipGraphNode *t, uint8_t *args);
hipError_t hw_memcpy_payload(const hipMemcpy3DParms *p, struct hipGraphNode *t);
hipError_t hw_memcpy1d_payload(void *dst, const void *src, size_t count, hipMemcpyKind kind,
                               struct hipGraphNode *t);
hipError_t hw_symbol_payload(void *dst, const void *src, const void *symbol, int to_symbol,
                             size_t count, size_t offset, hipMemcpyKind kind, int device,
                             struct hipGraphNode *t);
hipError_t hw_memset_payload(const hipMemsetParams *p, struct hipGraphNode *t);

/* The host-callback mechanism (api_graph_host.c): waits for the work queued
 * on stream so far, then calls fn on this thread. */
hipError_t hw_host_call(hipStream_t stream, hipHostFn_t fn, void *data);
/* Internal bodies of event record / stream wait, used by graph replay. */
hipError_t hw_event_record_on(hipEvent_t event, hipStream_t stream);
hipError_t hw_stream_wait_on(hipStream_t stream, hipEvent_t event, unsigned flags);

#endif
