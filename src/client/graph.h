/*
 * graph.h - stream capture and graphs in the proxy (docs/client.md).
 *
 * Graphs live in the client. While a stream captures, the calls that would
 * queue work on it (launches, copies, memsets, event records and waits) are
 * recorded as nodes instead of being sent; hipGraphLaunch replays the nodes,
 * in capture order, through the same code paths onto the launch stream, so
 * the worker sees ordinary requests and needs no graph support. A node is a
 * call with its arguments: a kernel node keeps a copy of its argument
 * buffer, a copy node the addresses it names (host memory is read or
 * written when the graph is launched, as HIP's memcpy nodes do).
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
};

/* hipGraphNode_t points at one of these. */
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
            uint8_t *args;         /* owned by the node once recorded */
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
        struct {
            void *dst;
            uint32_t value, elem;
            size_t count;
        } memset;
        struct {
            hipEvent_t event;
            unsigned flags;
        } event;
    } u;
};

/* hipGraph_t: nodes in capture order (each depends on the one before). */
struct ihipGraph {
    int device;
    size_t n, cap;
    struct hipGraphNode **nodes;
    int capturing;                 /* still being captured into: not the app's yet */
};

/* hipGraphExec_t: a frozen copy of a graph. */
struct hipGraphExec {
    struct ihipGraph g;
};

/* graph.c */
struct ihipGraph *hw_graph_new(int device);
void hw_graph_free(struct ihipGraph *g);
/* Appends a copy of node (and of its kernel arguments). */
hipError_t hw_graph_append(struct ihipGraph *g, const struct hipGraphNode *node);

#endif
