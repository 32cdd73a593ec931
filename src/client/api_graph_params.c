/*
 * api_graph_params.c - node parameters: the checks the Add and Set calls
 * share, Get/Set of each node type in a graph and in an executable graph,
 * and hipGraphExecUpdate (graph.h).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "graph.h"
#include "handle_registry.h"

/* ---- payloads ---------------------------------------------------------------------- */

/* [p, p+n) lies in one device allocation. */
static int dev_range(const void *p, size_t n)
{
    struct hw_mem_range r;
    uint64_t a = (uint64_t)(uintptr_t)p;
    return hw_mem_find(a, &r) == 0 && r.kind == HW_MEM_DEVICE && n <= r.base + r.size - a;
}

hipError_t hw_kernel_payload(const hipKernelNodeParams *p, struct hipGraphNode *t, uint8_t *args)
{
    const struct hw_function *f = NULL;
    if (!p || !p->func)
        return hipErrorInvalidValue;
    hipError_t err = hw_function_of(p->func, &f);
    if (err != hipSuccess)
        return err;
    if (!f->module)
        return hipErrorInvalidResourceHandle; /* its module was unloaded */
    if (!p->gridDim.x || !p->gridDim.y || !p->gridDim.z || !p->blockDim.x || !p->blockDim.y ||
        !p->blockDim.z)
        return hipErrorInvalidValue;
    size_t len = 0;
    /* kernelParams win over extra when a node names both. */
    if ((err = hw_pack_kernel_args(f, p->kernelParams, p->extra, args, HIPR_CAP_KERNEL_ARGS,
                                   &len)) != hipSuccess)
        return err;
    memset(t, 0, sizeof *t);
    t->kind = HW_NODE_KERNEL;
    t->u.kernel.f = f;
    t->u.kernel.func = p->func;
    t->u.kernel.grid[0] = p->gridDim.x;
    t->u.kernel.grid[1] = p->gridDim.y;
    t->u.kernel.grid[2] = p->gridDim.z;
    t->u.kernel.block[0] = p->blockDim.x;
    t->u.kernel.block[1] = p->blockDim.y;
    t->u.kernel.block[2] = p->blockDim.z;
    t->u.kernel.shared = p->sharedMemBytes;
    t->u.kernel.args = args;
    t->u.kernel.args_len = len;
    return hipSuccess;
}

hipError_t hw_memcpy1d_payload(void *dst, const void *src, size_t count, hipMemcpyKind kind,
                               struct hipGraphNode *t)
{
    if (!dst || !src || !count)
        return hipErrorInvalidValue;
    /* Only the device side is checked: a host address may equal a device
     * one numerically (the CPU device's memory is another process's). */
    int ok;
    switch (kind) {
    case hipMemcpyHostToDevice: ok = dev_range(dst, count); break;
    case hipMemcpyDeviceToHost: ok = dev_range(src, count); break;
    case hipMemcpyDeviceToDevice: ok = dev_range(dst, count) && dev_range(src, count); break;
    case hipMemcpyHostToHost:
    case hipMemcpyDefault: ok = 1; break; /* the copy finds out at launch */
    default: ok = 0; break;
    }
    if (!ok)
        return hipErrorInvalidValue;
    memset(t, 0, sizeof *t);
    t->kind = HW_NODE_MEMCPY;
    t->u.copy.dst = dst;
    t->u.copy.src = src;
    t->u.copy.n = count;
    t->u.copy.kind = kind;
    return hipSuccess;
}

hipError_t hw_symbol_payload(void *dst, const void *src, const void *symbol, int to_symbol,
                             size_t count, size_t offset, hipMemcpyKind kind, int device,
                             struct hipGraphNode *t)
{
    uint64_t ptr = 0, size = 0;
    if (!symbol || hw_fatbin_global(symbol, device, &ptr, &size) != hipSuccess)
        return hipErrorInvalidSymbol;
    if (offset > size || count > size - offset)
        return hipErrorInvalidValue;
    void *sym = (void *)(uintptr_t)(ptr + offset);
    if (to_symbol) {
        if (kind != hipMemcpyHostToDevice && kind != hipMemcpyDeviceToDevice &&
            kind != hipMemcpyDefault)
            return hipErrorInvalidValue;
        return hw_memcpy1d_payload(sym, src, count, kind, t);
    }
    if (kind != hipMemcpyDeviceToHost && kind != hipMemcpyDeviceToDevice &&
        kind != hipMemcpyDefault)
        return hipErrorInvalidValue;
    return hw_memcpy1d_payload(dst, sym, count, kind, t);
}

/* The bytes a pitched operand spans from its base, or 0 when it does not
 * fit its pitch; w: the row in bytes (position x is in bytes too, as
 * hipMemcpy3D reads a pointer operand's). */
static size_t pitched_span(const hipPitchedPtr *p, const hipPos *pos, size_t w, const hipExtent *e)
{
    size_t pitch = p->pitch ? p->pitch : w;
    size_t ysize = p->ysize ? p->ysize : e->height;
    if (pos->x + w > pitch)
        return 0;
    return ((pos->z + e->depth - 1) * ysize + pos->y + e->height - 1) * pitch + pos->x + w;
}

hipError_t hw_memcpy_payload(const hipMemcpy3DParms *p, struct hipGraphNode *t)
{
    if (!p || (!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr) ||
        !p->extent.width || !p->extent.height || !p->extent.depth ||
        (unsigned)p->kind > hipMemcpyDefault)
        return hipErrorInvalidValue;
    /* hipMemcpy3D's own checks: one operand form per side, live arrays of
     * one element size, pitches, the region inside each array. */
    hipError_t err = hw_copy_3d_check(p);
    if (err != hipSuccess)
        return err;
    /* A pointer the kind names as device memory must be this device's,
     * for the whole region (arrays were checked above). */
    const struct hw_array *a = hw_array_get(p->dstArray ? p->dstArray : p->srcArray);
    size_t w = p->extent.width * (a ? a->elem : 1); /* checked by hw_copy_3d_check */
    int sdev = p->kind == hipMemcpyDeviceToHost || p->kind == hipMemcpyDeviceToDevice;
    int ddev = p->kind == hipMemcpyHostToDevice || p->kind == hipMemcpyDeviceToDevice;
    if (!p->srcArray) {
        size_t sspan = pitched_span(&p->srcPtr, &p->srcPos, w, &p->extent);
        if (!sspan || (sdev && !dev_range(p->srcPtr.ptr, sspan)))
            return hipErrorInvalidValue;
    }
    if (!p->dstArray) {
        size_t dspan = pitched_span(&p->dstPtr, &p->dstPos, w, &p->extent);
        if (!dspan || (ddev && !dev_range(p->dstPtr.ptr, dspan)))
            return hipErrorInvalidValue;
    }
    memset(t, 0, sizeof *t);
    t->kind = HW_NODE_MEMCPY_3D;
    t->u.copy3d = *p;
    return hipSuccess;
}

hipError_t hw_memset_payload(const hipMemsetParams *p, struct hipGraphNode *t)
{
    if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        !p->width || !p->height)
        return hipErrorInvalidValue;
    size_t row = p->width * p->elementSize;
    if (p->width > SIZE_MAX / p->elementSize || (p->height > 1 && p->pitch < row))
        return hipErrorInvalidValue;
    if (p->height > 1 && p->height - 1 > (SIZE_MAX - row) / p->pitch)
        return hipErrorInvalidValue;
    if (!dev_range(p->dst, (p->height - 1) * p->pitch + row))
        return hipErrorInvalidValue;
    memset(t, 0, sizeof *t);
    t->kind = HW_NODE_MEMSET_2D;
    t->u.memset2d.dst = p->dst;
    t->u.memset2d.elem = p->elementSize;
    t->u.memset2d.value =
        p->elementSize == 4 ? p->value : p->value & ((1u << (8 * p->elementSize)) - 1);
    t->u.memset2d.width = p->width;
    t->u.memset2d.pitch = p->pitch;
    t->u.memset2d.height = p->height;
    return hipSuccess;
}

/* ---- get and set ------------------------------------------------------------------- */

static int is_memcpy(const struct hipGraphNode *n)
{
    return n->kind == HW_NODE_MEMCPY || n->kind == HW_NODE_MEMCPY_2D ||
           n->kind == HW_NODE_MEMCPY_3D;
}

static int is_memset(const struct hipGraphNode *n)
{
    return n->kind == HW_NODE_MEMSET || n->kind == HW_NODE_MEMSET_2D;
}

/* The node to change: node itself (exec NULL) or exec's copy of it; NULL
 * when either handle is bad, the node is not in exec, or not of kind. */
static struct hipGraphNode *target(hipGraphExec_t exec, int in_exec, hipGraphNode_t node,
                                   enum hw_node_kind kind)
{
    if (!hw_node_ok(node) || (in_exec && !hw_exec_ok(exec)))
        return NULL;
    struct hipGraphNode *n = in_exec ? hw_exec_node(exec, node) : node;
    if (!n)
        return NULL;
    int same = kind == HW_NODE_MEMCPY_3D   ? is_memcpy(n)
               : kind == HW_NODE_MEMSET_2D ? is_memset(n)
                                           : n->kind == kind;
    return same ? n : NULL;
}

static hipError_t set(hipGraphExec_t exec, int in_exec, hipGraphNode_t node,
                      const struct hipGraphNode *t)
{
    /* The node must be of t's class: any memcpy form for a memcpy. */
    enum hw_node_kind k = t->kind == HW_NODE_MEMCPY ? HW_NODE_MEMCPY_3D : t->kind;
    struct hipGraphNode *n = target(exec, in_exec, node, k);
    if (!n)
        return hipErrorInvalidValue;
    return hw_node_set_payload(n, t);
}

/* kernel */

HW_EXPORT hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node,
                                                 hipKernelNodeParams *pNodeParams)
{
    struct hipGraphNode *n = target(NULL, 0, node, HW_NODE_KERNEL);
    if (!n || !pNodeParams)
        return hw_ret(hipErrorInvalidValue);
    memset(pNodeParams, 0, sizeof *pNodeParams);
    pNodeParams->func = n->u.kernel.func;
    pNodeParams->gridDim = (dim3){ n->u.kernel.grid[0], n->u.kernel.grid[1], n->u.kernel.grid[2] };
    pNodeParams->blockDim =
        (dim3){ n->u.kernel.block[0], n->u.kernel.block[1], n->u.kernel.block[2] };
    pNodeParams->sharedMemBytes = n->u.kernel.shared;
    pNodeParams->kernelParams = n->u.kernel.kparams;
    return hipSuccess;
}

static hipError_t kernel_set(hipGraphExec_t exec, int in_exec, hipGraphNode_t node,
                             const hipKernelNodeParams *p)
{
    uint8_t args[HIPR_CAP_KERNEL_ARGS];
    struct hipGraphNode t;
    hipError_t err = hw_kernel_payload(p, &t, args);
    if (err != hipSuccess)
        return err;
    /* New parameters keep the node's attributes. */
    const struct hipGraphNode *n = target(exec, in_exec, node, HW_NODE_KERNEL);
    if (n) {
        t.u.kernel.flags |= n->u.kernel.flags & HIPR_LAUNCH_COOPERATIVE;
        t.u.kernel.cooperative = n->u.kernel.cooperative;
        t.u.kernel.apw = n->u.kernel.apw;
    }
    return set(exec, in_exec, node, &t);
}

HW_EXPORT hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node,
                                                 const hipKernelNodeParams *pNodeParams)
{
    return hw_ret(kernel_set(NULL, 0, node, pNodeParams));
}

HW_EXPORT hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                     const hipKernelNodeParams *pNodeParams)
{
    return hw_ret(kernel_set(hGraphExec, 1, node, pNodeParams));
}

/* Kernel node attributes, checked as AMD's runtime checks them (hip-tests
 * catch/unit/graph/hipGraphKernelNode{Get,Set}Attribute.cc): everything
 * wrong is hipErrorInvalidValue. A window larger than the device's
 * hipDeviceAttributeAccessPolicyMaxWindowSize is refused; a window that
 * fits is kept and reported, and changes nothing at replay (no backend has
 * an L2 persistence control to give it to). Cooperative takes effect: the
 * node's replays launch as hipLaunchCooperativeKernel does. */
static int window_ok(const struct hipGraphNode *n, const hipAccessPolicyWindow *w)
{
    hipError_t err;
    struct hipr_devattr e;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c ||
        hw_device_attrs(c, n->graph ? n->graph->device : hw_current_device(), &e) != hipSuccess)
        return 0;
    size_t max = e.access_policy_max_window_size > 0 ? (size_t)e.access_policy_max_window_size : 0;
    return w->num_bytes <= max && w->hitRatio >= 0.0f && w->hitRatio <= 1.0f &&
           (unsigned)w->hitProp <= hipAccessPropertyPersisting &&
           (unsigned)w->missProp <= hipAccessPropertyStreaming;
}

HW_EXPORT hipError_t hipGraphKernelNodeSetAttribute(hipGraphNode_t hNode, hipKernelNodeAttrID attr,
                                                    const hipKernelNodeAttrValue *value)
{
    struct hipGraphNode *n = target(NULL, 0, hNode, HW_NODE_KERNEL);
    if (!n || !value)
        return hw_ret(hipErrorInvalidValue);
    switch (attr) {
    case hipKernelNodeAttributeAccessPolicyWindow:
        if (!window_ok(n, &value->accessPolicyWindow))
            return hw_ret(hipErrorInvalidValue);
        n->u.kernel.apw = value->accessPolicyWindow;
        return hipSuccess;
    case hipKernelNodeAttributeCooperative:
        n->u.kernel.cooperative = value->cooperative;
        if (value->cooperative)
            n->u.kernel.flags |= HIPR_LAUNCH_COOPERATIVE;
        else
            n->u.kernel.flags &= ~HIPR_LAUNCH_COOPERATIVE;
        return hipSuccess;
    default: /* HIP 6 adds launch attributes (priority...) not kept on nodes */ break;
    }
    return hw_ret(hipErrorInvalidValue);
}

HW_EXPORT hipError_t hipGraphKernelNodeGetAttribute(hipGraphNode_t hNode, hipKernelNodeAttrID attr,
                                                    hipKernelNodeAttrValue *value)
{
    const struct hipGraphNode *n = target(NULL, 0, hNode, HW_NODE_KERNEL);
    if (!n || !value)
        return hw_ret(hipErrorInvalidValue);
    switch (attr) {
    case hipKernelNodeAttributeAccessPolicyWindow:
        value->accessPolicyWindow = n->u.kernel.apw;
        return hipSuccess;
    case hipKernelNodeAttributeCooperative:
        /* A captured hipLaunchCooperativeKernel is cooperative too. */
        value->cooperative = n->u.kernel.cooperative
                                 ? n->u.kernel.cooperative
                                 : (n->u.kernel.flags & HIPR_LAUNCH_COOPERATIVE) != 0;
        return hipSuccess;
    default: break;
    }
    return hw_ret(hipErrorInvalidValue);
}

/* memcpy */

HW_EXPORT hipError_t hipGraphMemcpyNodeGetParams(hipGraphNode_t node, hipMemcpy3DParms *pNodeParams)
{
    struct hipGraphNode *n = target(NULL, 0, node, HW_NODE_MEMCPY_3D);
    if (!n || !pNodeParams)
        return hw_ret(hipErrorInvalidValue);
    hipMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    if (n->kind == HW_NODE_MEMCPY_3D) {
        p = n->u.copy3d;
    } else if (n->kind == HW_NODE_MEMCPY) {
        size_t c = n->u.copy.n;
        p.srcPtr = (hipPitchedPtr){ (void *)n->u.copy.src, c, c, 1 };
        p.dstPtr = (hipPitchedPtr){ n->u.copy.dst, c, c, 1 };
        p.extent = (hipExtent){ c, 1, 1 };
        p.kind = n->u.copy.kind;
    } else {
        size_t w = n->u.copy2d.width, h = n->u.copy2d.height;
        p.srcPtr = (hipPitchedPtr){ (void *)n->u.copy2d.src, n->u.copy2d.spitch, w, h };
        p.dstPtr = (hipPitchedPtr){ n->u.copy2d.dst, n->u.copy2d.dpitch, w, h };
        p.extent = (hipExtent){ w, h, 1 };
        p.kind = n->u.copy2d.kind;
    }
    *pNodeParams = p;
    return hipSuccess;
}

static hipError_t memcpy_set(hipGraphExec_t exec, int in_exec, hipGraphNode_t node,
                             const hipMemcpy3DParms *p)
{
    struct hipGraphNode t;
    hipError_t err = hw_memcpy_payload(p, &t);
    return err == hipSuccess ? set(exec, in_exec, node, &t) : err;
}

HW_EXPORT hipError_t hipGraphMemcpyNodeSetParams(hipGraphNode_t node,
                                                 const hipMemcpy3DParms *pNodeParams)
{
    return hw_ret(memcpy_set(NULL, 0, node, pNodeParams));
}

HW_EXPORT hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                     hipMemcpy3DParms *pNodeParams)
{
    return hw_ret(memcpy_set(hGraphExec, 1, node, pNodeParams));
}

static hipError_t memcpy1d_set(hipGraphExec_t exec, int in_exec, hipGraphNode_t node, void *dst,
                               const void *src, size_t count, hipMemcpyKind kind)
{
    struct hipGraphNode t;
    /* AMD refuses a source that is the destination here (not when adding). */
    if (dst && dst == src)
        return hipErrorInvalidValue;
    hipError_t err = hw_memcpy1d_payload(dst, src, count, kind, &t);
    return err == hipSuccess ? set(exec, in_exec, node, &t) : err;
}

HW_EXPORT hipError_t hipGraphMemcpyNodeSetParams1D(hipGraphNode_t node, void *dst, const void *src,
                                                   size_t count, hipMemcpyKind kind)
{
    return hw_ret(memcpy1d_set(NULL, 0, node, dst, src, count, kind));
}

HW_EXPORT hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec,
                                                       hipGraphNode_t node, void *dst,
                                                       const void *src, size_t count,
                                                       hipMemcpyKind kind)
{
    return hw_ret(memcpy1d_set(hGraphExec, 1, node, dst, src, count, kind));
}

static hipError_t symbol_set(hipGraphExec_t exec, int in_exec, hipGraphNode_t node, void *dst,
                             const void *src, const void *symbol, int to_symbol, size_t count,
                             size_t offset, hipMemcpyKind kind)
{
    struct hipGraphNode t;
    if (!hw_node_ok(node))
        return hipErrorInvalidValue;
    hipError_t err = hw_symbol_payload(dst, src, symbol, to_symbol, count, offset, kind,
                                       node->graph->device, &t);
    return err == hipSuccess ? set(exec, in_exec, node, &t) : err;
}

HW_EXPORT hipError_t hipGraphMemcpyNodeSetParamsToSymbol(hipGraphNode_t node, const void *symbol,
                                                         const void *src, size_t count,
                                                         size_t offset, hipMemcpyKind kind)
{
    return hw_ret(symbol_set(NULL, 0, node, NULL, src, symbol, 1, count, offset, kind));
}

HW_EXPORT hipError_t hipGraphMemcpyNodeSetParamsFromSymbol(hipGraphNode_t node, void *dst,
                                                           const void *symbol, size_t count,
                                                           size_t offset, hipMemcpyKind kind)
{
    return hw_ret(symbol_set(NULL, 0, node, dst, NULL, symbol, 0, count, offset, kind));
}

HW_EXPORT hipError_t hipGraphExecMemcpyNodeSetParamsToSymbol(hipGraphExec_t hGraphExec,
                                                             hipGraphNode_t node,
                                                             const void *symbol, const void *src,
                                                             size_t count, size_t offset,
                                                             hipMemcpyKind kind)
{
    return hw_ret(symbol_set(hGraphExec, 1, node, NULL, src, symbol, 1, count, offset, kind));
}

HW_EXPORT hipError_t hipGraphExecMemcpyNodeSetParamsFromSymbol(hipGraphExec_t hGraphExec,
                                                               hipGraphNode_t node, void *dst,
                                                               const void *symbol, size_t count,
                                                               size_t offset, hipMemcpyKind kind)
{
    return hw_ret(symbol_set(hGraphExec, 1, node, dst, NULL, symbol, 0, count, offset, kind));
}

/* memset */

HW_EXPORT hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t node, hipMemsetParams *pNodeParams)
{
    struct hipGraphNode *n = target(NULL, 0, node, HW_NODE_MEMSET_2D);
    if (!n || !pNodeParams)
        return hw_ret(hipErrorInvalidValue);
    memset(pNodeParams, 0, sizeof *pNodeParams);
    if (n->kind == HW_NODE_MEMSET) { /* captured: one row */
        pNodeParams->dst = n->u.memset.dst;
        pNodeParams->elementSize = n->u.memset.elem;
        pNodeParams->width = n->u.memset.count;
        pNodeParams->height = 1;
        pNodeParams->value = n->u.memset.value;
    } else {
        pNodeParams->dst = n->u.memset2d.dst;
        pNodeParams->elementSize = n->u.memset2d.elem;
        pNodeParams->width = n->u.memset2d.width;
        pNodeParams->height = n->u.memset2d.height;
        pNodeParams->pitch = n->u.memset2d.pitch;
        pNodeParams->value = n->u.memset2d.value;
    }
    return hipSuccess;
}

static hipError_t memset_set(hipGraphExec_t exec, int in_exec, hipGraphNode_t node,
                             const hipMemsetParams *p)
{
    struct hipGraphNode t;
    hipError_t err = hw_memset_payload(p, &t);
    return err == hipSuccess ? set(exec, in_exec, node, &t) : err;
}

HW_EXPORT hipError_t hipGraphMemsetNodeSetParams(hipGraphNode_t node,
                                                 const hipMemsetParams *pNodeParams)
{
    return hw_ret(memset_set(NULL, 0, node, pNodeParams));
}

HW_EXPORT hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                     const hipMemsetParams *pNodeParams)
{
    return hw_ret(memset_set(hGraphExec, 1, node, pNodeParams));
}

/* host */

HW_EXPORT hipError_t hipGraphHostNodeGetParams(hipGraphNode_t node, hipHostNodeParams *pNodeParams)
{
    struct hipGraphNode *n = target(NULL, 0, node, HW_NODE_HOST);
    if (!n || !pNodeParams)
        return hw_ret(hipErrorInvalidValue);
    *pNodeParams = n->u.host;
    return hipSuccess;
}

static hipError_t host_set(hipGraphExec_t exec, int in_exec, hipGraphNode_t node,
                           const hipHostNodeParams *p)
{
    if (!p || !p->fn)
        return hipErrorInvalidValue;
    struct hipGraphNode t = { .kind = HW_NODE_HOST, .u.host = *p };
    return set(exec, in_exec, node, &t);
}

HW_EXPORT hipError_t hipGraphHostNodeSetParams(hipGraphNode_t node,
                                               const hipHostNodeParams *pNodeParams)
{
    return hw_ret(host_set(NULL, 0, node, pNodeParams));
}

HW_EXPORT hipError_t hipGraphExecHostNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                   const hipHostNodeParams *pNodeParams)
{
    return hw_ret(host_set(hGraphExec, 1, node, pNodeParams));
}

/* events */

static hipError_t event_get(hipGraphNode_t node, enum hw_node_kind kind, hipEvent_t *out)
{
    struct hipGraphNode *n = target(NULL, 0, node, kind);
    if (!n || !out)
        return hipErrorInvalidValue;
    *out = n->u.event.event;
    return hipSuccess;
}

static hipError_t event_set(hipGraphExec_t exec, int in_exec, hipGraphNode_t node,
                            enum hw_node_kind kind, hipEvent_t event)
{
    if (!event)
        return hipErrorInvalidValue;
    struct hipGraphNode t = { .kind = kind, .u.event = { event, 0 } };
    return set(exec, in_exec, node, &t);
}

HW_EXPORT hipError_t hipGraphEventRecordNodeGetEvent(hipGraphNode_t node, hipEvent_t *event_out)
{
    return hw_ret(event_get(node, HW_NODE_EVENT_RECORD, event_out));
}

HW_EXPORT hipError_t hipGraphEventRecordNodeSetEvent(hipGraphNode_t node, hipEvent_t event)
{
    return hw_ret(event_set(NULL, 0, node, HW_NODE_EVENT_RECORD, event));
}

HW_EXPORT hipError_t hipGraphExecEventRecordNodeSetEvent(hipGraphExec_t hGraphExec,
                                                         hipGraphNode_t hNode, hipEvent_t event)
{
    return hw_ret(event_set(hGraphExec, 1, hNode, HW_NODE_EVENT_RECORD, event));
}

HW_EXPORT hipError_t hipGraphEventWaitNodeGetEvent(hipGraphNode_t node, hipEvent_t *event_out)
{
    return hw_ret(event_get(node, HW_NODE_WAIT_EVENT, event_out));
}

HW_EXPORT hipError_t hipGraphEventWaitNodeSetEvent(hipGraphNode_t node, hipEvent_t event)
{
    return hw_ret(event_set(NULL, 0, node, HW_NODE_WAIT_EVENT, event));
}

HW_EXPORT hipError_t hipGraphExecEventWaitNodeSetEvent(hipGraphExec_t hGraphExec,
                                                       hipGraphNode_t hNode, hipEvent_t event)
{
    return hw_ret(event_set(hGraphExec, 1, hNode, HW_NODE_WAIT_EVENT, event));
}

/* child graphs */

HW_EXPORT hipError_t hipGraphChildGraphNodeGetGraph(hipGraphNode_t node, hipGraph_t *pGraph)
{
    struct hipGraphNode *n = target(NULL, 0, node, HW_NODE_CHILD);
    if (!n || !pGraph)
        return hw_ret(hipErrorInvalidValue);
    *pGraph = n->u.child;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGraphExecChildGraphNodeSetParams(hipGraphExec_t hGraphExec,
                                                         hipGraphNode_t node, hipGraph_t childGraph)
{
    struct hipGraphNode *n = target(hGraphExec, 1, node, HW_NODE_CHILD);
    if (!n || !hw_graph_ok(childGraph))
        return hw_ret(hipErrorInvalidValue);
    /* Only parameters may change in an executable graph, not topology. */
    const struct ihipGraph *old = n->u.child;
    if (old->n != childGraph->n)
        return hw_ret(hipErrorInvalidValue);
    for (size_t i = 0; i < old->n; i++)
        if (old->nodes[i]->kind != childGraph->nodes[i]->kind ||
            old->nodes[i]->ndeps != childGraph->nodes[i]->ndeps)
            return hw_ret(hipErrorInvalidValue);
    struct hipGraphNode t = { .kind = HW_NODE_CHILD, .u.child = childGraph };
    return hw_ret(hw_node_set_payload(n, &t));
}

/* ---- hipGraphExecUpdate ------------------------------------------------------------ */

static size_t position(const struct ihipGraph *g, const struct hipGraphNode *n)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i] == n)
            return i;
    return (size_t)-1;
}

/* Whether node i of a and of b have the same dependencies, by position. */
static int same_edges(const struct ihipGraph *a, const struct ihipGraph *b, size_t i)
{
    const struct hipGraphNode *x = a->nodes[i], *y = b->nodes[i];
    if (x->ndeps != y->ndeps)
        return 0;
    for (size_t d = 0; d < x->ndeps; d++) {
        size_t px = position(a, x->deps[d]);
        int found = 0;
        for (size_t e = 0; e < y->ndeps && !found; e++)
            found = position(b, y->deps[e]) == px;
        if (!found)
            return 0;
    }
    return 1;
}

static int kind_class(const struct hipGraphNode *n)
{
    return is_memcpy(n) ? HW_NODE_MEMCPY : is_memset(n) ? HW_NODE_MEMSET : (int)n->kind;
}

/* The simple case HIP documents: the same topology, node for node in the
 * order they were added; each node's parameters (a kernel's function
 * included, as AMD allows) are taken from hGraph. */
HW_EXPORT hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph,
                                        hipGraphNode_t *hErrorNode_out,
                                        hipGraphExecUpdateResult *updateResult_out)
{
    if (!hw_exec_ok(hGraphExec) || !hw_graph_ok(hGraph) || !hErrorNode_out || !updateResult_out)
        return hw_ret(hipErrorInvalidValue);
    struct ihipGraph *e = &hGraphExec->g;
    *hErrorNode_out = NULL;
    if (e->n != hGraph->n) {
        *updateResult_out = hipGraphExecUpdateErrorTopologyChanged;
        return hw_ret(hipErrorGraphExecUpdateFailure);
    }
    for (size_t i = 0; i < e->n; i++) {
        const struct hipGraphNode *x = e->nodes[i], *y = hGraph->nodes[i];
        hipGraphExecUpdateResult r = hipGraphExecUpdateSuccess;
        if (kind_class(x) != kind_class(y))
            r = hipGraphExecUpdateErrorNodeTypeChanged;
        else if (!same_edges(e, hGraph, i))
            r = hipGraphExecUpdateErrorTopologyChanged;
        if (r != hipGraphExecUpdateSuccess) {
            *hErrorNode_out = hGraph->nodes[i];
            *updateResult_out = r;
            return hw_ret(hipErrorGraphExecUpdateFailure);
        }
    }
    for (size_t i = 0; i < e->n; i++) {
        hipError_t err = hw_node_set_payload(e->nodes[i], hGraph->nodes[i]);
        if (err != hipSuccess) {
            *hErrorNode_out = hGraph->nodes[i];
            *updateResult_out = hipGraphExecUpdateError;
            return hw_ret(err);
        }
        /* The exec's nodes are still named by the original graph's nodes. */
    }
    *updateResult_out = hipGraphExecUpdateSuccess;
    return hipSuccess;
}
