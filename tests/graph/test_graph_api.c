/*
 * test_graph_api - the explicit graph API and cross-stream capture against
 * a real worker (CPU device, kernels from tests/kernels):
 *  - a DAG of every node type (memcpy 1D and pitched, memset, kernel, host,
 *    empty, event record, child graph), added in reverse order and wired
 *    with hipGraphAddDependencies: launches run it in dependency order
 *    (insertion order would run the host check before its data existed);
 *  - graph queries (nodes, roots, edges, dependencies, types), clone and
 *    find-in-clone, node removal;
 *  - parameter updates on graph nodes and on executable graphs, and
 *    hipGraphExecUpdate, each checked through the data a launch produces;
 *  - cross-stream capture: fork and join through events, the dependencies
 *    it records, hipStreamUpdateCaptureDependencies, unjoined and unmatched
 *    ends;
 *  - host functions in stream order (hipLaunchHostFunc, hipStreamAddCallback);
 *  - AMD's error codes: double destroys, stale and foreign handles, wrong
 *    node types for Get/SetParams, cycles, bad copies.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

enum { N = 1024, ROW = 256 };

static hipModule_t mod;
static hipFunction_t vadd, count_once, sleep_kernel;
static float *ha, *hb, *hc;
static float *da, *db, *dc;
static hipStream_t s;

static int host_ok, host_runs;

/* The host node: runs after the D2H node, so hc must hold a + b. */
static void check_hc(void *arg)
{
    int n = *(int *)arg;
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= hc[i] == ha[i] + hb[i];
    host_ok = ok;
    host_runs++;
}

static void other_host_fn(void *arg)
{
    (*(int *)arg) += 100;
}

static void fill_inputs(float scale)
{
    for (int i = 0; i < N; i++) {
        ha[i] = scale * (float)i;
        hb[i] = (float)(2 * i + 1);
        hc[i] = -1.0f;
    }
}

static hipKernelNodeParams vadd_params(void **args)
{
    hipKernelNodeParams p;
    memset(&p, 0, sizeof p);
    p.func = (void *)vadd;
    p.gridDim = (dim3){ N / ROW, 1, 1 };
    p.blockDim = (dim3){ ROW, 1, 1 };
    p.kernelParams = args;
    return p;
}

static hipMemsetParams memset_params(void *dst, unsigned value, size_t width)
{
    hipMemsetParams p;
    memset(&p, 0, sizeof p);
    p.dst = dst;
    p.value = value;
    p.elementSize = 1;
    p.width = width;
    p.height = 1;
    return p;
}

static size_t count_nodes(hipGraph_t g)
{
    size_t n = 0;
    HIP_CHECK(hipGraphGetNodes(g, NULL, &n));
    return n;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

struct dag {
    hipGraph_t g;
    hipGraphNode_t a, b, z, k, d, h, e, r;
    int n;
    void *args[4];
    hipEvent_t ev;
};

static void build_dag(struct dag *x)
{
    x->n = N;
    x->args[0] = &da;
    x->args[1] = &db;
    x->args[2] = &dc;
    x->args[3] = &x->n;
    HIP_CHECK(hipEventCreate(&x->ev));
    HIP_CHECK(hipGraphCreate(&x->g, 0));
    /* Reverse order, no dependencies yet. */
    HIP_CHECK(hipGraphAddEventRecordNode(&x->r, x->g, NULL, 0, x->ev));
    HIP_CHECK(hipGraphAddEmptyNode(&x->e, x->g, NULL, 0));
    hipHostNodeParams hp = { check_hc, &x->n };
    HIP_CHECK(hipGraphAddHostNode(&x->h, x->g, NULL, 0, &hp));
    /* D2H as a pitched copy: N/ROW rows of ROW floats. */
    hipMemcpy3DParms cp;
    memset(&cp, 0, sizeof cp);
    cp.srcPtr = (hipPitchedPtr){ dc, ROW * sizeof(float), ROW * sizeof(float), N / ROW };
    cp.dstPtr = (hipPitchedPtr){ hc, ROW * sizeof(float), ROW * sizeof(float), N / ROW };
    cp.extent = (hipExtent){ ROW * sizeof(float), N / ROW, 1 };
    cp.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipGraphAddMemcpyNode(&x->d, x->g, NULL, 0, &cp));
    hipKernelNodeParams kp = vadd_params(x->args);
    HIP_CHECK(hipGraphAddKernelNode(&x->k, x->g, NULL, 0, &kp));
    hipMemsetParams mp = memset_params(dc, 0xff, N * sizeof(float));
    HIP_CHECK(hipGraphAddMemsetNode(&x->z, x->g, NULL, 0, &mp));
    HIP_CHECK(hipGraphAddMemcpyNode1D(&x->b, x->g, NULL, 0, db, hb, N * sizeof(float),
                                      hipMemcpyHostToDevice));
    HIP_CHECK(hipGraphAddMemcpyNode1D(&x->a, x->g, NULL, 0, da, ha, N * sizeof(float),
                                      hipMemcpyHostToDevice));
    hipGraphNode_t from[] = { x->a, x->b, x->z, x->k, x->d, x->h, x->e };
    hipGraphNode_t to[] = { x->k, x->k, x->k, x->d, x->h, x->e, x->r };
    HIP_CHECK(hipGraphAddDependencies(x->g, from, to, 7));
}

static void check_dag_run(hipGraphExec_t exec, hipEvent_t ev, float scale)
{
    fill_inputs(scale);
    host_ok = 0;
    int runs = host_runs;
    HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK_EQ(host_runs, runs + 1);
    CHECK(host_ok);
    for (int i = 0; i < N; i++)
        CHECK(hc[i] == ha[i] + hb[i]);
    HIP_CHECK(hipEventQuery(ev));
}

static void check_dag(void)
{
    struct dag x;
    build_dag(&x);

    /* Queries. */
    CHECK_EQ(count_nodes(x.g), 8);
    size_t n = 0;
    HIP_CHECK(hipGraphGetRootNodes(x.g, NULL, &n));
    CHECK_EQ(n, 3);
    hipGraphNode_t roots[4] = { 0 };
    n = 4;
    HIP_CHECK(hipGraphGetRootNodes(x.g, roots, &n));
    CHECK_EQ(n, 3);
    CHECK(roots[3] == NULL);
    HIP_CHECK(hipGraphGetEdges(x.g, NULL, NULL, &n));
    CHECK_EQ(n, 7);
    hipGraphNode_t from[7], to[7];
    HIP_CHECK(hipGraphGetEdges(x.g, from, to, &n));
    int k_in = 0;
    for (int i = 0; i < 7; i++)
        k_in += to[i] == x.k;
    CHECK_EQ(k_in, 3);
    hipGraphNode_t deps[3];
    n = 3;
    HIP_CHECK(hipGraphNodeGetDependencies(x.k, deps, &n));
    CHECK_EQ(n, 3);
    HIP_CHECK(hipGraphNodeGetDependentNodes(x.k, deps, &n));
    CHECK(n == 1 && deps[0] == x.d);
    hipGraphNodeType t;
    HIP_CHECK(hipGraphNodeGetType(x.k, &t));
    CHECK_EQ(t, hipGraphNodeTypeKernel);
    HIP_CHECK(hipGraphNodeGetType(x.d, &t));
    CHECK_EQ(t, hipGraphNodeTypeMemcpy);
    HIP_CHECK(hipGraphNodeGetType(x.z, &t));
    CHECK_EQ(t, hipGraphNodeTypeMemset);
    HIP_CHECK(hipGraphNodeGetType(x.h, &t));
    CHECK_EQ(t, hipGraphNodeTypeHost);
    HIP_CHECK(hipGraphNodeGetType(x.e, &t));
    CHECK_EQ(t, hipGraphNodeTypeEmpty);
    HIP_CHECK(hipGraphNodeGetType(x.r, &t));
    CHECK_EQ(t, hipGraphNodeTypeEventRecord);
    printf("DAG: 8 nodes, 3 roots, 7 edges, dependencies and types as built\n");

    /* Launch: dependency order, not insertion order. */
    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, x.g, NULL, NULL, 0));
    for (int i = 1; i <= 3; i++)
        check_dag_run(exec, x.ev, (float)i);
    printf("DAG launched 3 times: dependency order (host node saw the copied result), "
           "bit-exact\n");

    /* Get/Set on graph nodes: the kernel keeps its arguments as given. */
    hipKernelNodeParams kp;
    HIP_CHECK(hipGraphKernelNodeGetParams(x.k, &kp));
    CHECK(kp.func == (void *)vadd && kp.gridDim.x == N / ROW && kp.blockDim.x == ROW);
    CHECK_EQ(*(int *)kp.kernelParams[3], N);
    CHECK(*(float **)kp.kernelParams[2] == dc);
    hipMemsetParams mp;
    HIP_CHECK(hipGraphMemsetNodeGetParams(x.z, &mp));
    CHECK(mp.dst == dc && mp.value == 0xff && mp.elementSize == 1 && mp.height == 1 &&
          mp.width == N * sizeof(float));
    hipMemcpy3DParms cp;
    HIP_CHECK(hipGraphMemcpyNodeGetParams(x.a, &cp));
    CHECK(cp.dstPtr.ptr == da && cp.srcPtr.ptr == ha && cp.extent.width == N * sizeof(float) &&
          cp.kind == hipMemcpyHostToDevice);
    hipHostNodeParams hp;
    HIP_CHECK(hipGraphHostNodeGetParams(x.h, &hp));
    CHECK(hp.fn == check_hc && hp.userData == &x.n);
    hipEvent_t got;
    HIP_CHECK(hipGraphEventRecordNodeGetEvent(x.r, &got));
    CHECK(got == x.ev);

    /* Executable-graph updates: half the kernel, the memset value. The
     * graph itself is untouched, as a second instance shows. */
    int half = N / 2;
    void *args2[] = { &da, &db, &dc, &half };
    kp = vadd_params(args2);
    HIP_CHECK(hipGraphExecKernelNodeSetParams(exec, x.k, &kp));
    hipMemsetParams mp2 = memset_params(dc, 0x00, N * sizeof(float));
    HIP_CHECK(hipGraphExecMemsetNodeSetParams(exec, x.z, &mp2));
    int extra = 0;
    hipHostNodeParams hp2 = { other_host_fn, &extra };
    HIP_CHECK(hipGraphExecHostNodeSetParams(exec, x.h, &hp2));
    fill_inputs(5.0f);
    HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        CHECK(i < half ? hc[i] == ha[i] + hb[i] : bits(hc[i]) == 0);
    CHECK_EQ(extra, 100);
    /* 1D copy of an executable graph: another host input. */
    float *alt = malloc(N * sizeof(float));
    CHECK(alt);
    for (int i = 0; i < N; i++)
        alt[i] = 1000.0f + (float)i;
    HIP_CHECK(hipGraphExecMemcpyNodeSetParams1D(exec, x.a, da, alt, N * sizeof(float),
                                                hipMemcpyHostToDevice));
    HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < half; i++)
        CHECK(hc[i] == alt[i] + hb[i]);
    hipGraphExec_t exec2;
    HIP_CHECK(hipGraphInstantiate(&exec2, x.g, NULL, NULL, 0));
    check_dag_run(exec2, x.ev, 7.0f);
    printf("exec kernel/memset/host/memcpy1D SetParams: the next launch uses them, the graph "
           "unchanged\n");

    /* Graph-node SetParams reach instances made afterwards. */
    HIP_CHECK(hipGraphMemsetNodeSetParams(x.z, &mp2));
    HIP_CHECK(hipGraphKernelNodeSetParams(x.k, &kp));
    hipGraphExec_t exec3;
    HIP_CHECK(hipGraphInstantiate(&exec3, x.g, NULL, NULL, 0));
    fill_inputs(3.0f);
    HIP_CHECK(hipGraphLaunch(exec3, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        CHECK(i < half ? hc[i] == ha[i] + hb[i] : bits(hc[i]) == 0);
    HIP_CHECK(hipGraphExecDestroy(exec3));

    /* Clone, find in clone, hipGraphExecUpdate. */
    hipGraph_t g2;
    HIP_CHECK(hipGraphClone(&g2, x.g));
    CHECK_EQ(count_nodes(g2), 8);
    hipGraphNode_t k2;
    HIP_CHECK(hipGraphNodeFindInClone(&k2, x.k, g2));
    CHECK(k2 != x.k);
    HIP_CHECK(hipGraphNodeGetType(k2, &t));
    CHECK_EQ(t, hipGraphNodeTypeKernel);
    kp = vadd_params(x.args); /* the full N again */
    HIP_CHECK(hipGraphKernelNodeSetParams(k2, &kp));
    hipGraphNode_t z2;
    HIP_CHECK(hipGraphNodeFindInClone(&z2, x.z, g2));
    hipMemsetParams mp3 = memset_params(dc, 0xff, N * sizeof(float));
    HIP_CHECK(hipGraphMemsetNodeSetParams(z2, &mp3));
    hipGraphNode_t errnode = (hipGraphNode_t)1;
    hipGraphExecUpdateResult res = hipGraphExecUpdateError;
    HIP_CHECK(hipGraphExecUpdate(exec2, g2, &errnode, &res));
    CHECK(res == hipGraphExecUpdateSuccess && errnode == NULL);
    check_dag_run(exec2, x.ev, 9.0f); /* full N again */
    hipGraphNode_t extra_node;
    HIP_CHECK(hipGraphAddEmptyNode(&extra_node, g2, NULL, 0));
    HIP_EXPECT(hipGraphExecUpdate(exec2, g2, &errnode, &res), hipErrorGraphExecUpdateFailure);
    CHECK_EQ(res, hipGraphExecUpdateErrorTopologyChanged);
    HIP_CHECK(hipGraphDestroyNode(extra_node));
    /* The same count, another type in one place. */
    hipGraphNode_t e2;
    HIP_CHECK(hipGraphNodeFindInClone(&e2, x.e, g2));
    HIP_CHECK(hipGraphNodeFindInClone(&k2, x.k, g2)); /* still there */
    HIP_EXPECT(hipGraphNodeFindInClone(&k2, extra_node, g2), hipErrorInvalidValue);
    printf("clone, find in clone, exec update (same topology: taken; a node more: "
           "topology changed)\n");

    /* Edges removed and nodes destroyed. */
    HIP_CHECK(hipGraphRemoveDependencies(x.g, &x.e, &x.r, 1));
    HIP_EXPECT(hipGraphRemoveDependencies(x.g, &x.e, &x.r, 1), hipErrorInvalidValue);
    HIP_CHECK(hipGraphGetRootNodes(x.g, NULL, &n));
    CHECK_EQ(n, 4);
    HIP_CHECK(hipGraphDestroyNode(x.h));
    CHECK_EQ(count_nodes(x.g), 7);
    HIP_CHECK(hipGraphGetEdges(x.g, NULL, NULL, &n));
    CHECK_EQ(n, 4); /* a,b,z->k, k->d */
    HIP_EXPECT(hipGraphNodeGetType(x.h, &t), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphDestroyNode(x.h), hipErrorInvalidValue);
    printf("remove dependencies, destroy node: edges go with it, its handle is stale\n");

    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphExecDestroy(exec2));
    HIP_CHECK(hipGraphDestroy(g2));
    HIP_CHECK(hipGraphDestroy(x.g));
    HIP_CHECK(hipEventDestroy(x.ev));
    free(alt);
}

static void check_child_and_events(void)
{
    /* child: memset dc to 0x01 bytes; parent: child -> D2H copy. */
    hipGraph_t child, g;
    hipGraphNode_t m, c, d;
    HIP_CHECK(hipGraphCreate(&child, 0));
    hipMemsetParams mp = memset_params(dc, 0x01, N * sizeof(float));
    HIP_CHECK(hipGraphAddMemsetNode(&m, child, NULL, 0, &mp));
    HIP_CHECK(hipGraphCreate(&g, 0));
    HIP_CHECK(hipGraphAddChildGraphNode(&c, g, NULL, 0, child));
    HIP_CHECK(
        hipGraphAddMemcpyNode1D(&d, g, &c, 1, hc, dc, N * sizeof(float), hipMemcpyDeviceToHost));
    /* The node holds a copy: destroying the original changes nothing. */
    HIP_CHECK(hipGraphDestroy(child));
    hipGraph_t inner;
    HIP_CHECK(hipGraphChildGraphNodeGetGraph(c, &inner));
    CHECK_EQ(count_nodes(inner), 1);
    hipGraphNodeType t;
    HIP_CHECK(hipGraphNodeGetType(c, &t));
    CHECK_EQ(t, hipGraphNodeTypeGraph);
    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    memset(hc, 0, N * sizeof(float));
    HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        CHECK_EQ(bits(hc[i]), 0x01010101u);
    /* Another child graph of the same shape into the executable graph. */
    hipGraph_t child2;
    hipGraphNode_t m2;
    HIP_CHECK(hipGraphCreate(&child2, 0));
    hipMemsetParams mp2 = memset_params(dc, 0x03, N * sizeof(float));
    HIP_CHECK(hipGraphAddMemsetNode(&m2, child2, NULL, 0, &mp2));
    HIP_CHECK(hipGraphExecChildGraphNodeSetParams(exec, c, child2));
    HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        CHECK_EQ(bits(hc[i]), 0x03030303u);
    HIP_CHECK(hipGraphAddEmptyNode(&m2, child2, NULL, 0));
    HIP_EXPECT(hipGraphExecChildGraphNodeSetParams(exec, c, child2), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphExecChildGraphNodeSetParams(exec, c, NULL), hipErrorInvalidValue);
    HIP_CHECK(hipGraphDestroy(child2));
    printf("child graph node: its graph ran before its dependent, bit-exact; replaced in the "
           "executable graph by one of the same shape\n");

    /* Event wait node: a graph on s2 waits for an event recorded on s by
     * a graph with a record node. */
    hipStream_t s2;
    hipEvent_t ev;
    HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
    HIP_CHECK(hipEventCreate(&ev));
    hipGraph_t gw;
    hipGraphNode_t w, wn, sl, r;
    HIP_CHECK(hipGraphCreate(&gw, 0));
    HIP_CHECK(hipGraphAddEventWaitNode(&w, gw, NULL, 0, ev));
    hipMemsetParams mz = memset_params(dc, 0x02, N * sizeof(float));
    HIP_CHECK(hipGraphAddMemsetNode(&wn, gw, &w, 1, &mz));
    hipEvent_t got;
    HIP_CHECK(hipGraphEventWaitNodeGetEvent(w, &got));
    CHECK(got == ev);
    hipGraph_t gr;
    HIP_CHECK(hipGraphCreate(&gr, 0));
    int ms = 300;
    void *sargs[] = { &ms };
    hipKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)sleep_kernel;
    kp.gridDim = (dim3){ 1, 1, 1 };
    kp.blockDim = (dim3){ 1, 1, 1 };
    kp.kernelParams = sargs;
    HIP_CHECK(hipGraphAddKernelNode(&sl, gr, NULL, 0, &kp));
    hipMemsetParams m1 = memset_params(dc, 0x01, N * sizeof(float));
    hipGraphNode_t m1n;
    HIP_CHECK(hipGraphAddMemsetNode(&m1n, gr, &sl, 1, &m1));
    HIP_CHECK(hipGraphAddEventRecordNode(&r, gr, &m1n, 1, ev));
    hipGraphExec_t er, ew;
    HIP_CHECK(hipGraphInstantiate(&er, gr, NULL, NULL, 0));
    HIP_CHECK(hipGraphInstantiate(&ew, gw, NULL, NULL, 0));
    HIP_CHECK(hipGraphLaunch(er, s));  /* sleeps, then 0x01, then records */
    HIP_CHECK(hipGraphLaunch(ew, s2)); /* waits, then 0x02 */
    HIP_CHECK(hipStreamSynchronize(s2));
    HIP_CHECK(hipMemcpy(hc, dc, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK_EQ(bits(hc[i]), 0x02020202u);
    printf("event record node and event wait node: the waiting graph's memset ran last\n");

    HIP_CHECK(hipGraphExecDestroy(er));
    HIP_CHECK(hipGraphExecDestroy(ew));
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(gr));
    HIP_CHECK(hipGraphDestroy(gw));
    HIP_CHECK(hipGraphDestroy(g));
    HIP_CHECK(hipEventDestroy(ev));
    HIP_CHECK(hipStreamDestroy(s2));
}

/* A memset of dc to byte v, then a D2H copy into hc. */
static hipGraph_t memset_graph(unsigned v, hipGraphNode_t *m)
{
    hipGraph_t g;
    hipGraphNode_t d;
    HIP_CHECK(hipGraphCreate(&g, 0));
    hipMemsetParams mp = memset_params(dc, v, N * sizeof(float));
    HIP_CHECK(hipGraphAddMemsetNode(m, g, NULL, 0, &mp));
    HIP_CHECK(
        hipGraphAddMemcpyNode1D(&d, g, m, 1, hc, dc, N * sizeof(float), hipMemcpyDeviceToHost));
    return g;
}

static void expect_hc_bytes(unsigned v)
{
    const unsigned char *b = (const unsigned char *)hc;
    for (size_t i = 0; i < N * sizeof(float); i++)
        CHECK_EQ(b[i], v);
}

static void check_exec_update(void)
{
    hipGraphNode_t ma, mb;
    hipGraph_t ga = memset_graph(1, &ma), gb = memset_graph(2, &mb);
    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, ga, NULL, NULL, 0));
    HIP_CHECK(hipGraphLaunch(exec, s));
    expect_hc_bytes(1);
    hipGraphNode_t errnode;
    hipGraphExecUpdateResult res;
    HIP_CHECK(hipGraphExecUpdate(exec, gb, &errnode, &res));
    CHECK_EQ(res, hipGraphExecUpdateSuccess);
    HIP_CHECK(hipGraphLaunch(exec, s));
    expect_hc_bytes(2);
    /* Its nodes are still named by the graph it was made from. */
    hipMemsetParams mp = memset_params(dc, 3, N * sizeof(float));
    HIP_CHECK(hipGraphExecMemsetNodeSetParams(exec, ma, &mp));
    HIP_EXPECT(hipGraphExecMemsetNodeSetParams(exec, mb, &mp), hipErrorInvalidValue);
    HIP_CHECK(hipGraphLaunch(exec, s));
    expect_hc_bytes(3);
    /* Another node type in the same place. */
    hipGraph_t gc;
    hipGraphNode_t e, d;
    HIP_CHECK(hipGraphCreate(&gc, 0));
    HIP_CHECK(hipGraphAddEmptyNode(&e, gc, NULL, 0));
    HIP_CHECK(
        hipGraphAddMemcpyNode1D(&d, gc, &e, 1, hc, dc, N * sizeof(float), hipMemcpyDeviceToHost));
    HIP_EXPECT(hipGraphExecUpdate(exec, gc, &errnode, &res), hipErrorGraphExecUpdateFailure);
    CHECK(res == hipGraphExecUpdateErrorNodeTypeChanged && errnode == e);
    /* A 2D memset node: 8 rows of 64 bytes, 128 bytes apart. */
    hipMemsetParams m2 = memset_params(dc, 7, 64);
    m2.pitch = 128;
    m2.height = 8;
    HIP_CHECK(hipGraphExecMemsetNodeSetParams(exec, ma, &m2));
    HIP_CHECK(hipMemset(dc, 0, N * sizeof(float)));
    HIP_CHECK(hipGraphLaunch(exec, s));
    const unsigned char *b = (const unsigned char *)hc;
    for (size_t i = 0; i < N * sizeof(float); i++)
        CHECK_EQ(b[i], i < 8 * 128 && i % 128 < 64 ? 7 : 0);
    hipMemsetParams back;
    HIP_CHECK(hipGraphMemsetNodeGetParams(ma, &back)); /* the graph's node: unchanged */
    CHECK(back.height == 1 && back.value == 1);
    m2.pitch = 32; /* rows overlap */
    HIP_EXPECT(hipGraphExecMemsetNodeSetParams(exec, ma, &m2), hipErrorInvalidValue);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(ga));
    HIP_CHECK(hipGraphDestroy(gb));
    HIP_CHECK(hipGraphDestroy(gc));
    printf("exec update from a graph built apart: taken, the exec still named by its own "
           "graph's nodes; a changed node type: refused with the node; a 2D memset node\n");
}

static void check_cross_stream(void)
{
    hipStream_t s2, s3;
    hipEvent_t e1, e2;
    HIP_CHECK(hipStreamCreate(&s2));
    HIP_CHECK(hipStreamCreate(&s3));
    HIP_CHECK(hipEventCreate(&e1));
    HIP_CHECK(hipEventCreate(&e2));
    int n = N;
    void *args[] = { &da, &db, &dc, &n };

    /* s: a -> fork to s2: memset c, b -> join: kernel, D2H. */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipMemcpyAsync(da, ha, N * sizeof(float), hipMemcpyHostToDevice, s));
    HIP_CHECK(hipEventRecord(e1, s));
    HIP_CHECK(hipStreamWaitEvent(s2, e1, 0));
    hipStreamCaptureStatus st;
    unsigned long long id1 = 0, id2 = 0;
    hipGraph_t cg = NULL;
    const hipGraphNode_t *deps = NULL;
    size_t nd = 0;
    HIP_CHECK(hipStreamGetCaptureInfo(s, &st, &id1));
    HIP_CHECK(hipStreamGetCaptureInfo_v2(s2, &st, &id2, &cg, &deps, &nd));
    CHECK(st == hipStreamCaptureStatusActive && id1 == id2 && cg != NULL && nd == 1);
    hipGraphNode_t copy_a = deps[0];
    HIP_CHECK(hipMemsetAsync(dc, 0, N * sizeof(float), s2));
    HIP_CHECK(hipMemcpyAsync(db, hb, N * sizeof(float), hipMemcpyHostToDevice, s2));
    HIP_CHECK(hipEventRecord(e2, s2));
    HIP_CHECK(hipStreamWaitEvent(s, e2, 0));
    HIP_CHECK(hipStreamGetCaptureInfo_v2(s, &st, NULL, NULL, &deps, &nd));
    CHECK_EQ(nd, 2); /* the copy of a, and s2's copy of b */
    HIP_CHECK(hipModuleLaunchKernel(vadd, N / ROW, 1, 1, ROW, 1, 1, 0, s, args, NULL));
    HIP_CHECK(hipMemcpyAsync(hc, dc, N * sizeof(float), hipMemcpyDeviceToHost, s));
    /* s2 is still in the capture until the capture ends. */
    HIP_EXPECT(hipStreamEndCapture(s2, &cg), hipErrorStreamCaptureUnmatched);
    hipGraph_t g;
    HIP_CHECK(hipStreamEndCapture(s, &g));
    HIP_CHECK(hipStreamIsCapturing(s2, &st));
    CHECK_EQ(st, hipStreamCaptureStatusNone);
    CHECK_EQ(count_nodes(g), 5);
    size_t roots = 0;
    HIP_CHECK(hipGraphGetRootNodes(g, NULL, &roots));
    CHECK_EQ(roots, 1);
    hipGraphNode_t all[5];
    size_t cnt = 5;
    HIP_CHECK(hipGraphGetNodes(g, all, &cnt));
    CHECK(all[0] == copy_a);
    size_t kd = 0;
    hipGraphNodeType t;
    for (int i = 0; i < 5; i++) {
        HIP_CHECK(hipGraphNodeGetType(all[i], &t));
        if (t == hipGraphNodeTypeKernel)
            HIP_CHECK(hipGraphNodeGetDependencies(all[i], NULL, &kd));
    }
    CHECK_EQ(kd, 2);
    size_t edges = 0;
    HIP_CHECK(hipGraphGetEdges(g, NULL, NULL, &edges));
    CHECK_EQ(edges, 5); /* a->memset, memset->b, a->k, b->k, k->d2h */
    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    for (int r = 1; r <= 3; r++) {
        fill_inputs((float)r);
        HIP_CHECK(hipGraphLaunch(exec, s3));
        HIP_CHECK(hipStreamSynchronize(s3));
        for (int i = 0; i < N; i++)
            CHECK(hc[i] == ha[i] + hb[i]);
    }
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(g));
    printf("cross-stream capture: fork and join by events, 5 nodes, 1 root, the kernel "
           "after both branches; launched 3 times, bit-exact\n");

    /* Unjoined: s2 still has work the origin does not wait for. */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipMemsetAsync(dc, 0, 16, s));
    HIP_CHECK(hipEventRecord(e1, s));
    HIP_CHECK(hipStreamWaitEvent(s2, e1, 0));
    HIP_CHECK(hipMemsetAsync(dc, 1, 16, s2));
    HIP_CHECK(hipEventRecord(e2, s2));
    HIP_CHECK(hipStreamWaitEvent(s, e2, 0));
    HIP_CHECK(hipMemsetAsync(dc, 2, 16, s2));
    g = (hipGraph_t)1;
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorStreamCaptureUnjoined);
    CHECK(g == NULL);
    HIP_CHECK(hipStreamIsCapturing(s2, &st));
    CHECK_EQ(st, hipStreamCaptureStatusNone);
    /* A joined stream that did nothing after the fork is joined. */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipMemsetAsync(dc, 0, 16, s));
    HIP_CHECK(hipEventRecord(e1, s));
    HIP_CHECK(hipStreamWaitEvent(s2, e1, 0));
    HIP_CHECK(hipStreamEndCapture(s, &g));
    CHECK_EQ(count_nodes(g), 1);
    HIP_CHECK(hipGraphDestroy(g));
    printf("cross-stream capture ended before the fork rejoined: "
           "hipErrorStreamCaptureUnjoined; on the forked stream: hipErrorStreamCaptureUnmatched\n");

    /* 48 forks and joins in a row: each doubles the paths through the
     * graph; ending the capture stays quick (nodes visited once). */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipMemsetAsync(dc, 0, 64, s));
    for (int i = 0; i < 48; i++) {
        HIP_CHECK(hipEventRecord(e1, s));
        HIP_CHECK(hipStreamWaitEvent(s2, e1, 0));
        HIP_CHECK(hipMemsetAsync(dc, i, 16, s2));
        HIP_CHECK(hipMemsetAsync((char *)dc + 16, i + 1, 16, s));
        HIP_CHECK(hipEventRecord(e2, s2));
        HIP_CHECK(hipStreamWaitEvent(s, e2, 0));
    }
    HIP_CHECK(hipMemcpyAsync(hc, dc, 64, hipMemcpyDeviceToHost, s));
    HIP_CHECK(hipStreamEndCapture(s, &g));
    CHECK_EQ(count_nodes(g), 1 + 48 * 2 + 1);
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    memset(hc, 0, 64);
    HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipStreamSynchronize(s));
    const unsigned char *hb8 = (const unsigned char *)hc;
    for (int i = 0; i < 16; i++)
        CHECK(hb8[i] == 47 && hb8[16 + i] == 48 && hb8[32 + i] == 0);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(g));
    printf("48 fork/join rounds in one capture: 98 nodes, the last round's values land\n");

    /* Destroying a joined stream takes it out of the capture; destroying
     * the origin drops the capture for the streams that joined it. */
    hipStream_t s4, s5;
    HIP_CHECK(hipStreamCreate(&s4));
    HIP_CHECK(hipStreamCreate(&s5));
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipMemsetAsync(dc, 0, 16, s));
    HIP_CHECK(hipEventRecord(e1, s));
    HIP_CHECK(hipStreamWaitEvent(s4, e1, 0));
    HIP_CHECK(hipMemsetAsync(dc, 1, 16, s4));
    HIP_CHECK(hipStreamDestroy(s4));
    HIP_CHECK(hipStreamEndCapture(s, &g));
    CHECK_EQ(count_nodes(g), 2);
    HIP_CHECK(hipGraphDestroy(g));
    HIP_CHECK(hipStreamBeginCapture(s5, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipEventRecord(e1, s5));
    HIP_CHECK(hipStreamWaitEvent(s2, e1, 0));
    HIP_CHECK(hipStreamIsCapturing(s2, &st));
    CHECK_EQ(st, hipStreamCaptureStatusActive);
    HIP_CHECK(hipStreamDestroy(s5));
    HIP_CHECK(hipStreamIsCapturing(s2, &st));
    CHECK_EQ(st, hipStreamCaptureStatusNone);
    HIP_CHECK(hipMemsetAsync(dc, 0, 16, s2)); /* runs for real again */
    HIP_CHECK(hipStreamSynchronize(s2));
    printf("destroying a joined stream leaves the capture; destroying its origin ends it\n");

    /* hipStreamUpdateCaptureDependencies. */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipMemsetAsync(dc, 0, 16, s));
    HIP_CHECK(hipStreamGetCaptureInfo_v2(s, &st, NULL, &cg, &deps, &nd));
    hipGraphNode_t first = deps[0];
    HIP_CHECK(hipMemsetAsync(dc, 1, 16, s));
    HIP_CHECK(hipStreamUpdateCaptureDependencies(s, &first, 1, hipStreamSetCaptureDependencies));
    HIP_CHECK(hipStreamGetCaptureInfo_v2(s, &st, NULL, NULL, &deps, &nd));
    CHECK(nd == 1 && deps[0] == first);
    HIP_CHECK(hipMemsetAsync(dc, 2, 16, s));
    HIP_CHECK(hipStreamGetCaptureInfo_v2(s, &st, NULL, NULL, &deps, &nd));
    hipGraphNode_t third = deps[0], d3[2];
    size_t n3 = 2;
    HIP_CHECK(hipGraphNodeGetDependencies(third, d3, &n3));
    CHECK(n3 == 1 && d3[0] == first);
    hipGraph_t other;
    hipGraphNode_t foreign;
    HIP_CHECK(hipGraphCreate(&other, 0));
    HIP_CHECK(hipGraphAddEmptyNode(&foreign, other, NULL, 0));
    HIP_EXPECT(hipStreamUpdateCaptureDependencies(s, &foreign, 1, hipStreamAddCaptureDependencies),
               hipErrorInvalidValue);
    HIP_EXPECT(hipStreamUpdateCaptureDependencies(s, &first, 1, 7), hipErrorInvalidValue);
    HIP_CHECK(hipStreamEndCapture(s, &g));
    HIP_CHECK(hipGraphGetRootNodes(g, NULL, &roots));
    CHECK_EQ(roots, 1);
    HIP_CHECK(hipGraphDestroy(g));
    HIP_CHECK(hipGraphDestroy(other));
    HIP_EXPECT(hipStreamUpdateCaptureDependencies(s, &first, 1, hipStreamAddCaptureDependencies),
               hipErrorIllegalState);
    printf("hipStreamUpdateCaptureDependencies: set replaces the next node's dependencies\n");

    HIP_CHECK(hipEventDestroy(e1));
    HIP_CHECK(hipEventDestroy(e2));
    HIP_CHECK(hipStreamDestroy(s2));
    HIP_CHECK(hipStreamDestroy(s3));
}

/* When a host function ran, in ms since t0: it must be at least the
 * 300 ms kernel queued before it (without the wait it runs at once). A
 * time, not a stream query: the stream's own bookkeeping may lag its last
 * completion by a moment. */
static double t0_ms, ran_at_ms;
static int fn_calls;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void timed_fn(void *arg)
{
    (void)arg;
    ran_at_ms = now_ms() - t0_ms;
    fn_calls++;
}

static hipError_t cb_status = hipErrorUnknown;

static void stream_cb(hipStream_t stream, hipError_t status, void *arg)
{
    (void)stream;
    cb_status = status;
    *(double *)arg = now_ms() - t0_ms;
}

static void check_host_functions(void)
{
    int ms = 300;
    void *sargs[] = { &ms };
    t0_ms = now_ms();
    ran_at_ms = 0;
    HIP_CHECK(hipModuleLaunchKernel(sleep_kernel, 1, 1, 1, 1, 1, 1, 0, s, sargs, NULL));
    HIP_CHECK(hipLaunchHostFunc(s, timed_fn, NULL));
    CHECK_EQ(fn_calls, 1);
    CHECK(ran_at_ms >= ms);
    double cb_at = 0;
    t0_ms = now_ms();
    HIP_CHECK(hipModuleLaunchKernel(sleep_kernel, 1, 1, 1, 1, 1, 1, 0, s, sargs, NULL));
    HIP_CHECK(hipStreamAddCallback(s, stream_cb, &cb_at, 0));
    HIP_CHECK(cb_status);
    CHECK(cb_at >= ms);
    HIP_EXPECT(hipStreamAddCallback(s, stream_cb, &cb_at, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipLaunchHostFunc(s, NULL, NULL), hipErrorInvalidValue);

    /* Captured: a host node, run at launch after the kernel before it. */
    hipGraph_t g;
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipModuleLaunchKernel(sleep_kernel, 1, 1, 1, 1, 1, 1, 0, s, sargs, NULL));
    HIP_CHECK(hipLaunchHostFunc(s, timed_fn, NULL));
    HIP_CHECK(hipStreamEndCapture(s, &g));
    CHECK_EQ(fn_calls, 1);
    hipGraphNode_t nodes[2];
    size_t n = 2;
    HIP_CHECK(hipGraphGetNodes(g, nodes, &n));
    hipGraphNodeType t;
    HIP_CHECK(hipGraphNodeGetType(nodes[1], &t));
    CHECK_EQ(t, hipGraphNodeTypeHost);
    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    t0_ms = now_ms();
    ran_at_ms = 0;
    HIP_CHECK(hipGraphLaunch(exec, s));
    CHECK_EQ(fn_calls, 2);
    CHECK(ran_at_ms >= ms);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(g));
    printf("host functions: run after the stream's earlier work (the 300 ms kernel before "
           "them), captured as host nodes\n");
}

static void check_errors(void)
{
    hipGraph_t g, g2;
    hipGraphNode_t n, e, m, k;
    hipGraphExec_t exec;
    hipGraphNodeType t;
    struct {
        char junk[256];
    } fake;
    memset(&fake, 0x5a, sizeof fake);
    hipGraph_t bad_g = (hipGraph_t)&fake;
    hipGraphNode_t bad_n = (hipGraphNode_t)&fake;
    hipGraphExec_t bad_e = (hipGraphExec_t)&fake;

    /* Destroy twice. */
    HIP_CHECK(hipGraphCreate(&g, 0));
    HIP_CHECK(hipGraphDestroy(g));
    HIP_EXPECT(hipGraphDestroy(g), hipErrorIllegalState);
    HIP_EXPECT(hipGraphDestroy(bad_g), hipErrorIllegalState);
    HIP_EXPECT(hipGraphDestroy(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipGraphCreate(&g, 0));
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_EXPECT(hipGraphExecDestroy(exec), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphExecDestroy(bad_e), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphLaunch(exec, s), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphLaunch(bad_e, s), hipErrorInvalidValue);

    /* Garbage and stale handles everywhere. */
    HIP_EXPECT(hipGraphAddEmptyNode(&n, bad_g, NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphNodeGetType(bad_n, &t), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphNodeGetType(NULL, &t), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphGetNodes(bad_g, NULL, &(size_t){ 0 }), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphInstantiate(&exec, bad_g, NULL, NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphDestroyNode(bad_n), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphClone(&g2, bad_g), hipErrorInvalidValue);
    HIP_CHECK(hipGraphAddEmptyNode(&e, g, NULL, 0));
    HIP_EXPECT(hipGraphAddEmptyNode(&n, g, &bad_n, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddEmptyNode(&n, g, NULL, 3), hipErrorInvalidValue);
    hipGraphNode_t twice[] = { e, e };
    HIP_EXPECT(hipGraphAddEmptyNode(&n, g, twice, 2), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddEmptyNode(NULL, g, NULL, 0), hipErrorInvalidValue);
    /* A node of another graph is no dependency. */
    HIP_CHECK(hipGraphCreate(&g2, 0));
    hipGraphNode_t e_other;
    HIP_CHECK(hipGraphAddEmptyNode(&e_other, g2, NULL, 0));
    HIP_EXPECT(hipGraphAddEmptyNode(&n, g, &e_other, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddDependencies(g, &e, &e_other, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddDependencies(g, &e, &e, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddDependencies(g, NULL, &e, 1), hipErrorInvalidValue);
    HIP_CHECK(hipGraphAddDependencies(g, NULL, NULL, 0)); /* nothing to add: AMD's success */
    HIP_EXPECT(hipGraphAddDependencies(NULL, NULL, NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphRemoveDependencies(g, &e, &bad_n, 1), hipErrorInvalidValue);
    HIP_CHECK(hipGraphDestroy(g2));
    HIP_EXPECT(hipGraphNodeGetType(e_other, &t), hipErrorInvalidValue); /* went with g2 */
    printf("errors: double destroy (graph: hipErrorIllegalState, exec: hipErrorInvalidValue), "
           "garbage, stale and foreign handles: hipErrorInvalidValue\n");

    /* Wrong node type for Get/SetParams. */
    hipKernelNodeParams kp;
    hipMemsetParams mp;
    hipMemcpy3DParms cp;
    hipHostNodeParams hp;
    hipEvent_t ev;
    hipGraph_t cgr;
    HIP_EXPECT(hipGraphKernelNodeGetParams(e, &kp), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphMemsetNodeGetParams(e, &mp), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphMemcpyNodeGetParams(e, &cp), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphHostNodeGetParams(e, &hp), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphEventRecordNodeGetEvent(e, &ev), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphEventWaitNodeGetEvent(e, &ev), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphChildGraphNodeGetGraph(e, &cgr), hipErrorInvalidValue);
    hipMemsetParams good = memset_params(dc, 0, 64);
    HIP_CHECK(hipGraphAddMemsetNode(&m, g, NULL, 0, &good));
    HIP_EXPECT(hipGraphMemsetNodeGetParams(m, NULL), hipErrorInvalidValue);
    int nn = N;
    void *args[] = { &da, &db, &dc, &nn };
    kp = vadd_params(args);
    HIP_EXPECT(hipGraphKernelNodeSetParams(m, &kp), hipErrorInvalidValue);
    HIP_CHECK(hipGraphAddKernelNode(&k, g, NULL, 0, &kp));
    HIP_EXPECT(hipGraphMemsetNodeSetParams(k, &good), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphMemcpyNodeSetParams1D(k, da, ha, 16, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
    printf("errors: Get/SetParams on a node of another type: hipErrorInvalidValue\n");

    /* Bad parameters. */
    hipMemsetParams bad = good;
    bad.elementSize = 3;
    HIP_EXPECT(hipGraphAddMemsetNode(&n, g, NULL, 0, &bad), hipErrorInvalidValue);
    bad = good;
    bad.height = 0;
    HIP_EXPECT(hipGraphAddMemsetNode(&n, g, NULL, 0, &bad), hipErrorInvalidValue);
    bad = good;
    bad.width = N * sizeof(float) + 1; /* past the allocation */
    HIP_EXPECT(hipGraphAddMemsetNode(&n, g, NULL, 0, &bad), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddMemcpyNode1D(&n, g, NULL, 0, da, ha, N * sizeof(float) + 10,
                                       hipMemcpyHostToDevice),
               hipErrorInvalidValue);
    /* A static buffer: heap addresses of this process may equal the CPU
     * device's (another process's heap), in sanitizer builds above all. */
    static char host_only[64];
    HIP_EXPECT(hipGraphAddMemcpyNode1D(&n, g, NULL, 0, host_only, da, 16, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddMemcpyNode1D(&n, g, NULL, 0, da, host_only, 16, hipMemcpyDeviceToDevice),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddMemcpyNode1D(&n, g, NULL, 0, NULL, ha, 16, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
    memset(&cp, 0, sizeof cp);
    cp.dstArray = (hipArray_t)&fake;
    cp.srcPtr = (hipPitchedPtr){ ha, 64, 64, 1 };
    cp.extent = (hipExtent){ 64, 1, 1 };
    cp.kind = hipMemcpyHostToDevice;
    /* Not an array this proxy issued (array operands: test_graph_array.c). */
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &cp), hipErrorInvalidValue);
    cp.srcPtr.ptr = NULL; /* no source at all */
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &cp), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddEventRecordNode(&n, g, NULL, 0, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddHostNode(&n, g, NULL, 0, &(hipHostNodeParams){ NULL, NULL }),
               hipErrorInvalidValue);
    /* A graph as its own child: AMD copies it as it is at that moment. */
    size_t before = count_nodes(g);
    HIP_CHECK(hipGraphAddChildGraphNode(&n, g, NULL, 0, g));
    CHECK_EQ(count_nodes(g), before + 1);
    HIP_CHECK(hipGraphChildGraphNodeGetGraph(n, &cgr));
    CHECK_EQ(count_nodes(cgr), before);
    HIP_CHECK(hipGraphDestroyNode(n));
    kp.func = NULL;
    HIP_EXPECT(hipGraphAddKernelNode(&n, g, NULL, 0, &kp), hipErrorInvalidValue);
    kp = vadd_params(NULL);
    HIP_EXPECT(hipGraphAddKernelNode(&n, g, NULL, 0, &kp), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddMemcpyNodeToSymbol(&n, g, NULL, 0, NULL, ha, 4, 0, hipMemcpyHostToDevice),
               hipErrorInvalidSymbol);
    /* SetParams1D, unlike Add, refuses a copy onto itself (AMD). */
    hipGraphNode_t c1;
    HIP_CHECK(hipGraphAddMemcpyNode1D(&c1, g, NULL, 0, da, ha, 16, hipMemcpyHostToDevice));
    HIP_EXPECT(hipGraphMemcpyNodeSetParams1D(c1, da, da, 16, hipMemcpyDeviceToDevice),
               hipErrorInvalidValue);
    HIP_CHECK(hipGraphMemcpyNodeSetParams1D(c1, db, da, 16, hipMemcpyDeviceToDevice));
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    HIP_EXPECT(hipGraphExecMemcpyNodeSetParams1D(exec, c1, da, da, 16, hipMemcpyDeviceToDevice),
               hipErrorInvalidValue);
    HIP_CHECK(hipGraphExecMemcpyNodeSetParams1D(exec, c1, db, da, 16, hipMemcpyDeviceToDevice));
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroyNode(c1));
    printf("errors: bad memset/memcpy/kernel/host/child parameters: AMD's codes; a graph "
           "as its own child: a copy; SetParams1D with src == dst: hipErrorInvalidValue\n");

    /* A node not in the executable graph; a cycle. */
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    hipGraphNode_t late;
    HIP_CHECK(hipGraphAddMemsetNode(&late, g, NULL, 0, &good));
    HIP_EXPECT(hipGraphExecMemsetNodeSetParams(exec, late, &good), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphExecMemsetNodeSetParams(bad_e, m, &good), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphExecKernelNodeSetParams(exec, m, &kp), hipErrorInvalidValue);
    hipGraphNode_t errnode;
    hipGraphExecUpdateResult res;
    HIP_EXPECT(hipGraphExecUpdate(exec, g, &errnode, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphExecUpdate(exec, g, &errnode, &res), hipErrorGraphExecUpdateFailure);
    CHECK_EQ(res, hipGraphExecUpdateErrorTopologyChanged);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphAddDependencies(g, &e, &m, 1));
    HIP_CHECK(hipGraphAddDependencies(g, &m, &late, 1));
    HIP_EXPECT(hipGraphAddDependencies(g, &e, &m, 1), hipErrorInvalidValue); /* exists */
    HIP_CHECK(hipGraphAddDependencies(g, &late, &e, 1));
    HIP_EXPECT(hipGraphInstantiate(&exec, g, NULL, NULL, 0), hipErrorInvalidValue);
    HIP_CHECK(hipGraphRemoveDependencies(g, &late, &e, 1));
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    HIP_CHECK(hipGraphExecDestroy(exec));
    printf("errors: exec SetParams of a node added later, a cycle: hipErrorInvalidValue\n");

    /* A graph being captured belongs to the capture. */
    hipGraph_t cap;
    hipStreamCaptureStatus st;
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipStreamGetCaptureInfo_v2(s, &st, NULL, &cap, NULL, NULL));
    HIP_EXPECT(hipGraphDestroy(cap), hipErrorIllegalState);
    HIP_EXPECT(hipGraphInstantiate(&exec, cap, NULL, NULL, 0), hipErrorIllegalState);
    HIP_CHECK(hipStreamEndCapture(s, &cap));
    HIP_CHECK(hipGraphDestroy(cap));
    HIP_CHECK(hipGraphDestroy(g));
}

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    HIP_CHECK(hipModuleLoad(&mod, kernels));
    HIP_CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    HIP_CHECK(hipModuleGetFunction(&count_once, mod, "count_once"));
    HIP_CHECK(hipModuleGetFunction(&sleep_kernel, mod, "sleep_ms"));
    ha = malloc(N * sizeof(float));
    hb = malloc(N * sizeof(float));
    hc = malloc(N * sizeof(float));
    CHECK(ha && hb && hc);
    HIP_CHECK(hipMalloc((void **)&da, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&db, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&dc, N * sizeof(float)));
    HIP_CHECK(hipStreamCreate(&s));
    check_dag();
    check_child_and_events();
    check_exec_update();
    check_cross_stream();
    check_host_functions();
    check_errors();
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
    HIP_CHECK(hipModuleUnload(mod));
    free(ha);
    free(hb);
    free(hc);
    printf("graph api: ok\n");
    return 0;
}
