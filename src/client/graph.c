/*
 * graph.c - the graph data structure: nodes, edges, copies and a
 * topological order (graph.h). Replaying a graph is graph_replay.c's: this
 * file calls nothing above it, so capture.c can build graphs from below the
 * API files (docs/architecture.md, "Layers").
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "array.h"
#include "graph.h"
#include "handle_registry.h"

static uint64_t last_serial, last_graph_id;

struct ihipGraph *hw_graph_new(int device, int registered)
{
    struct ihipGraph *g = hw_calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->device = device;
    g->registered = registered;
    g->id = __atomic_add_fetch(&last_graph_id, 1, __ATOMIC_RELAXED);
    if (registered && hw_handle_add(HW_HANDLE_GRAPH, g) != 0) {
        free(g);
        return NULL;
    }
    return g;
}

static void payload_free(struct hipGraphNode *n)
{
    if (n->kind == HW_NODE_KERNEL) {
        free(n->u.kernel.args);
        free(n->u.kernel.kparams);
    } else if (n->kind == HW_NODE_CHILD) {
        hw_graph_free(n->u.child);
    }
}

static void node_free(struct hipGraphNode *n)
{
    if (!n)
        return;
    if (n->graph && n->graph->registered)
        hw_handle_remove(HW_HANDLE_GRAPH_NODE, n);
    payload_free(n);
    free(n->deps);
    free(n);
}

void hw_graph_clear(struct ihipGraph *g)
{
    for (size_t i = 0; i < g->n; i++)
        node_free(g->nodes[i]);
    free(g->nodes);
    free(g->order);
    g->nodes = g->order = NULL;
    g->n = g->cap = 0;
}

void hw_graph_free(struct ihipGraph *g)
{
    if (!g)
        return;
    hw_graph_clear(g);
    if (g->registered)
        hw_handle_remove(HW_HANDLE_GRAPH, g);
    free(g);
}

/* dst gets a deep copy of src's payload; dst's own payload is not freed. */
static hipError_t payload_copy(struct hipGraphNode *dst, const struct hipGraphNode *src,
                               int registered, int device)
{
    dst->kind = src->kind;
    dst->u = src->u;
    if (src->kind == HW_NODE_KERNEL) {
        /* The arguments as they were when given, like HIP's kernel node. */
        const struct hw_function *f = src->u.kernel.f;
        size_t len = src->u.kernel.args_len;
        uint32_t np = f ? f->info.param_count : 0;
        dst->u.kernel.args = hw_malloc(len ? len : 1);
        dst->u.kernel.kparams = hw_malloc((np ? np : 1) * sizeof(void *));
        if (!dst->u.kernel.args || !dst->u.kernel.kparams) {
            free(dst->u.kernel.args);
            free(dst->u.kernel.kparams);
            return hipErrorOutOfMemory;
        }
        if (len)
            memcpy(dst->u.kernel.args, src->u.kernel.args, len);
        for (uint32_t i = 0; i < np; i++)
            dst->u.kernel.kparams[i] =
                f->params[i].offset < len ? dst->u.kernel.args + f->params[i].offset : NULL;
        if (!dst->u.kernel.func)
            dst->u.kernel.func = (void *)f;
    } else if (src->kind == HW_NODE_CHILD) {
        struct ihipGraph *c = hw_graph_new(device, registered);
        if (!c)
            return hipErrorOutOfMemory;
        hipError_t err = hw_graph_copy(src->u.child, c);
        if (err != hipSuccess) {
            hw_graph_free(c);
            return err;
        }
        c->cloned_from = src->u.child->id;
        dst->u.child = c;
    }
    return hipSuccess;
}

hipError_t hw_node_set_payload(struct hipGraphNode *dst, const struct hipGraphNode *src)
{
    struct hipGraphNode tmp = { .kind = HW_NODE_EMPTY };
    hipError_t err = payload_copy(&tmp, src, dst->graph ? dst->graph->registered : 0,
                                  dst->graph ? dst->graph->device : 0);
    if (err != hipSuccess)
        return err;
    if (tmp.kind == HW_NODE_CHILD) {
        tmp.u.child->parent = dst;
        /* In an executable graph, launches only read a kept order. */
        if (dst->graph && dst->graph->order &&
            (err = hw_graph_prepare(tmp.u.child)) != hipSuccess) {
            hw_graph_free(tmp.u.child);
            return err;
        }
    }
    payload_free(dst);
    dst->kind = tmp.kind;
    dst->u = tmp.u;
    return hipSuccess;
}

static hipError_t add_dep(struct hipGraphNode *n, struct hipGraphNode *dep)
{
    if (n->ndeps == n->cap_deps) {
        size_t cap = n->cap_deps ? 2 * n->cap_deps : 4;
        struct hipGraphNode **v = hw_realloc(n->deps, cap * sizeof *v);
        if (!v)
            return hipErrorOutOfMemory;
        n->deps = v;
        n->cap_deps = cap;
    }
    n->deps[n->ndeps++] = dep;
    return hipSuccess;
}

static hipError_t add_node(struct ihipGraph *g, const struct hipGraphNode *tmpl,
                           struct hipGraphNode *const *deps, size_t ndeps, uint64_t serial,
                           struct hipGraphNode **out)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        struct hipGraphNode **v = hw_realloc(g->nodes, cap * sizeof *v);
        if (!v)
            return hipErrorOutOfMemory;
        g->nodes = v;
        g->cap = cap;
    }
    struct hipGraphNode *n = hw_calloc(1, sizeof *n);
    if (!n)
        return hipErrorOutOfMemory;
    hipError_t err = payload_copy(n, tmpl, g->registered, g->device);
    if (err != hipSuccess) {
        free(n);
        return err;
    }
    n->graph = g;
    n->serial = serial ? serial : __atomic_add_fetch(&last_serial, 1, __ATOMIC_RELAXED);
    if (n->kind == HW_NODE_CHILD)
        n->u.child->parent = n;
    for (size_t i = 0; i < ndeps && err == hipSuccess; i++)
        err = add_dep(n, deps[i]);
    if (err == hipSuccess && g->registered && hw_handle_add(HW_HANDLE_GRAPH_NODE, n) != 0)
        err = hipErrorOutOfMemory;
    if (err != hipSuccess) {
        n->graph = NULL;
        node_free(n);
        return err;
    }
    n->idx = g->n;
    g->nodes[g->n++] = n;
    free(g->order); /* no longer complete */
    g->order = NULL;
    if (out)
        *out = n;
    return hipSuccess;
}

hipError_t hw_graph_add(struct ihipGraph *g, const struct hipGraphNode *tmpl,
                        struct hipGraphNode *const *deps, size_t ndeps, struct hipGraphNode **out)
{
    return add_node(g, tmpl, deps, ndeps, 0, out);
}

hipError_t hw_graph_copy(const struct ihipGraph *from, struct ihipGraph *to)
{
    hipError_t err = hipSuccess;
    to->device = from->device;
    for (size_t i = 0; i < from->n && err == hipSuccess; i++)
        err = add_node(to, from->nodes[i], NULL, 0, from->nodes[i]->serial, NULL);
    /* Edges by position: node i of the copy is node i of the original. */
    for (size_t i = 0; i < from->n && err == hipSuccess; i++) {
        const struct hipGraphNode *n = from->nodes[i];
        for (size_t d = 0; d < n->ndeps && err == hipSuccess; d++)
            err = add_dep(to->nodes[i], to->nodes[n->deps[d]->idx]);
    }
    if (err != hipSuccess)
        hw_graph_clear(to);
    return err;
}

void hw_graph_remove(struct hipGraphNode *n)
{
    struct ihipGraph *g = n->graph;
    size_t at = n->idx;
    for (size_t i = 0; i < g->n; i++) {
        struct hipGraphNode *m = g->nodes[i];
        for (size_t d = 0; d < m->ndeps;)
            if (m->deps[d] == n)
                m->deps[d] = m->deps[--m->ndeps];
            else
                d++;
    }
    memmove(&g->nodes[at], &g->nodes[at + 1], (g->n - at - 1) * sizeof *g->nodes);
    g->n--;
    for (size_t i = at; i < g->n; i++)
        g->nodes[i]->idx = i;
    free(g->order);
    g->order = NULL;
    node_free(n);
}

int hw_node_reaches(const struct hipGraphNode *a, const struct hipGraphNode *b)
{
    /* Depth-first over dependencies, each node visited once (a walk of
     * every path would be exponential in a chain of forks and joins). */
    const struct ihipGraph *g = a->graph;
    size_t n = g ? g->n : 0, top = 0;
    int found = 0;
    const struct hipGraphNode **stack = hw_malloc((n + 1) * sizeof *stack);
    unsigned char *seen = hw_calloc(n + 1, 1);
    if (!stack || !seen) {
        found = -1;
        goto cleanup;
    }
    stack[top++] = a;
    while (top && !found) {
        const struct hipGraphNode *x = stack[--top];
        if (x == b) {
            found = 1;
            break;
        }
        for (size_t d = 0; d < x->ndeps; d++) {
            size_t i = x->deps[d]->idx;
            if (i < n && !seen[i]) {
                seen[i] = 1;
                stack[top++] = x->deps[d];
            }
        }
    }
cleanup:
    free(stack);
    free(seen);
    return found;
}

/* Kahn's algorithm over a reverse (dependents) index, O(nodes + edges);
 * roots in the order they were added. Child graphs are checked too. */
hipError_t hw_graph_order(const struct ihipGraph *g, struct hipGraphNode ***order, size_t *count)
{
    size_t n = g->n, edges = 0, done = 0;
    for (size_t i = 0; i < n; i++)
        edges += g->nodes[i]->ndeps;
    struct hipGraphNode **out = hw_malloc((n ? n : 1) * sizeof *out);
    size_t *left = hw_malloc((n ? n : 1) * sizeof *left);
    size_t *first = hw_calloc(n + 1, sizeof *first); /* CSR: dependents of i */
    size_t *adj = hw_malloc((edges ? edges : 1) * sizeof *adj);
    hipError_t err = hipSuccess;
    if (!out || !left || !first || !adj) {
        err = hipErrorOutOfMemory;
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < g->nodes[i]->ndeps; d++)
            first[g->nodes[i]->deps[d]->idx + 1]++;
    for (size_t i = 0; i < n; i++)
        first[i + 1] += first[i];
    for (size_t i = 0; i < n; i++)
        left[i] = first[i]; /* for now, where i's next dependent goes */
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < g->nodes[i]->ndeps; d++)
            adj[left[g->nodes[i]->deps[d]->idx]++] = i;
    for (size_t i = 0; i < n; i++) {
        left[i] = g->nodes[i]->ndeps;
        if (left[i] == 0)
            out[done++] = g->nodes[i];
    }
    for (size_t head = 0; head < done; head++)
        for (size_t k = first[out[head]->idx]; k < first[out[head]->idx + 1]; k++)
            if (--left[adj[k]] == 0)
                out[done++] = g->nodes[adj[k]];
    if (done != n) {
        err = hipErrorInvalidValue; /* a cycle */
        goto cleanup;
    }
    for (size_t i = 0; i < n && err == hipSuccess; i++)
        if (out[i]->kind == HW_NODE_CHILD) {
            struct hipGraphNode **sub = NULL;
            size_t ns = 0;
            err = hw_graph_order(out[i]->u.child, &sub, &ns);
            free(sub);
        }
    if (err == hipSuccess) {
        *order = out;
        *count = n;
        out = NULL;
    }
cleanup:
    free(out);
    free(left);
    free(first);
    free(adj);
    return err;
}

hipError_t hw_graph_prepare(struct ihipGraph *g)
{
    struct hipGraphNode **order = NULL;
    size_t n = 0;
    hipError_t err = hw_graph_order(g, &order, &n);
    for (size_t i = 0; i < n && err == hipSuccess; i++)
        if (g->nodes[i]->kind == HW_NODE_CHILD)
            err = hw_graph_prepare(g->nodes[i]->u.child);
    if (err != hipSuccess) {
        free(order);
        return err;
    }
    free(g->order);
    g->order = order;
    return hipSuccess;
}

int hw_graph_ok(const struct ihipGraph *g)
{
    return g && hw_handle_valid(HW_HANDLE_GRAPH, g);
}

int hw_node_ok(const struct hipGraphNode *n)
{
    return n && hw_handle_valid(HW_HANDLE_GRAPH_NODE, n);
}

int hw_exec_ok(const struct hipGraphExec *e)
{
    return e && hw_handle_valid(HW_HANDLE_GRAPH_EXEC, e);
}

struct hipGraphNode *hw_exec_node(const struct hipGraphExec *e, const struct hipGraphNode *node)
{
    for (size_t i = 0; i < e->g.n; i++)
        if (e->g.nodes[i]->serial == node->serial)
            return e->g.nodes[i];
    return NULL;
}
