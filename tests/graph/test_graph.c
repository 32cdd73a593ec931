/*
 * test_graph - stream capture and graphs against a real worker (CPU device,
 * kernels from tests/kernels):
 *  - a capture of H2D copies, a memset, a kernel launch and a D2D copy
 *    records five nodes and runs nothing; the instantiated graph launched
 *    N times gives bit-exact results, reading the host input anew each time
 *    and using the kernel arguments as they were at capture;
 *  - a D2H copy in a graph lands before hipGraphLaunch returns;
 *  - the graph launched on another stream, and captured into another
 *    capture by launching it there;
 *  - capture status queries, ids, the _v2 graph and dependency;
 *  - HIP's errors for what is illegal during capture, each invalidating
 *    the capture where HIP does, and the stream usable afterwards.
 */
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { N = 4096 };

static hipModule_t mod;
static hipFunction_t vadd, count_once;

static hipError_t launch_count(unsigned long long *counter, hipStream_t s)
{
    void *args[] = { &counter };
    return hipModuleLaunchKernel(count_once, 1, 1, 1, 1, 1, 1, 0, s, args, NULL);
}

static void expect_status(hipStream_t s, hipStreamCaptureStatus want)
{
    hipStreamCaptureStatus st = (hipStreamCaptureStatus)-1;
    HIP_CHECK(hipStreamIsCapturing(s, &st));
    CHECK_EQ(st, want);
}

static void check_capture_and_launch(void)
{
    float *ha = malloc(N * sizeof(float)), *hb = malloc(N * sizeof(float));
    float *hd = malloc(N * sizeof(float));
    float *a, *b, *c, *d;
    hipStream_t s, other;
    CHECK(ha && hb && hd);
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipStreamCreateWithFlags(&other, hipStreamNonBlocking));
    HIP_CHECK(hipMalloc((void **)&a, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&b, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&c, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&d, N * sizeof(float)));
    HIP_CHECK(hipMemset(d, 0, N * sizeof(float)));
    HIP_CHECK(hipMemset(c, 0x7f, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        hb[i] = (float)(3 * i + 1);

    expect_status(s, hipStreamCaptureStatusNone);
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    expect_status(s, hipStreamCaptureStatusActive);
    unsigned long long id = 0;
    hipStreamCaptureStatus st;
    HIP_CHECK(hipStreamGetCaptureInfo(s, &st, &id));
    CHECK(st == hipStreamCaptureStatusActive && id != 0);
    HIP_CHECK(hipMemcpyAsync(a, ha, N * sizeof(float), hipMemcpyHostToDevice, s));
    HIP_CHECK(hipMemcpyAsync(b, hb, N * sizeof(float), hipMemcpyHostToDevice, s));
    HIP_CHECK(hipMemsetAsync(c, 0, N * sizeof(float), s));
    /* Captured with n = N; changed afterwards: the node keeps N. */
    int n = N;
    void *args[] = { &a, &b, &c, &n };
    HIP_CHECK(hipModuleLaunchKernel(vadd, (N + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
    n = 1;
    HIP_CHECK(hipMemcpyAsync(d, c, N * sizeof(float), hipMemcpyDeviceToDevice, s));

    hipGraph_t in_capture = NULL;
    const hipGraphNode_t *deps = NULL;
    size_t ndeps = 0;
    unsigned long long id2 = 0;
    HIP_CHECK(hipStreamGetCaptureInfo_v2(s, &st, &id2, &in_capture, &deps, &ndeps));
    CHECK(id2 == id && in_capture != NULL && ndeps == 1 && deps && deps[0]);
    hipGraphNodeType last_type;
    HIP_CHECK(hipGraphNodeGetType(deps[0], &last_type));
    CHECK_EQ(last_type, hipGraphNodeTypeMemcpy);
    /* Another stream is not part of the capture. */
    expect_status(other, hipStreamCaptureStatusNone);

    hipGraph_t g = NULL;
    HIP_CHECK(hipStreamEndCapture(s, &g));
    CHECK(g == in_capture);
    expect_status(s, hipStreamCaptureStatusNone);
    size_t nn = 0;
    HIP_CHECK(hipGraphGetNodes(g, NULL, &nn));
    CHECK_EQ(nn, 5);
    hipGraphNode_t nodes[5];
    HIP_CHECK(hipGraphGetNodes(g, nodes, &nn));
    const hipGraphNodeType want[5] = { hipGraphNodeTypeMemcpy, hipGraphNodeTypeMemcpy,
                                       hipGraphNodeTypeMemset, hipGraphNodeTypeKernel,
                                       hipGraphNodeTypeMemcpy };
    for (int i = 0; i < 5; i++) {
        hipGraphNodeType t;
        HIP_CHECK(hipGraphNodeGetType(nodes[i], &t));
        CHECK_EQ(t, want[i]);
    }
    /* Capturing ran nothing: c still holds the pattern, d zeros. */
    HIP_CHECK(hipMemcpy(hd, d, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hd[i] == 0.0f);
    printf("capture: 5 nodes (memcpy, memcpy, memset, kernel, memcpy), nothing ran\n");

    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    HIP_CHECK(hipGraphDestroy(g)); /* the executable graph is a copy */
    for (int k = 0; k < 5; k++) {
        /* The host input is read at each launch, as HIP's memcpy node reads it. */
        for (int i = 0; i < N; i++)
            ha[i] = (float)(i * (k + 1));
        HIP_CHECK(hipGraphLaunch(exec, s));
        HIP_CHECK(hipStreamSynchronize(s));
        HIP_CHECK(hipMemcpy(hd, d, N * sizeof(float), hipMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            if (hd[i] != ha[i] + hb[i]) {
                fprintf(stderr, "launch %d: d[%d] = %g, expected %g\n", k, i, hd[i], ha[i] + hb[i]);
                exit(1);
            }
    }
    printf("graph launched 5 times on its stream: bit-exact, fresh host input each time\n");

    /* On another stream, and on the null stream. `other` is non-blocking:
     * the null stream's memset must be done before the graph starts. */
    HIP_CHECK(hipMemset(d, 0, N * sizeof(float)));
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipGraphLaunch(exec, other));
    HIP_CHECK(hipStreamSynchronize(other));
    HIP_CHECK(hipMemcpy(hd, d, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hd[i] == ha[i] + hb[i]);
    HIP_CHECK(hipMemset(d, 0, N * sizeof(float)));
    HIP_CHECK(hipGraphLaunch(exec, NULL));
    HIP_CHECK(hipMemcpy(hd, d, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hd[i] == ha[i] + hb[i]);
    printf("graph launched on another stream and on the null stream: bit-exact\n");

    /* Launching a graph into a capture captures its nodes. */
    HIP_CHECK(hipStreamBeginCapture(other, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipGraphLaunch(exec, other));
    hipGraph_t g2;
    HIP_CHECK(hipStreamEndCapture(other, &g2));
    HIP_CHECK(hipGraphGetNodes(g2, NULL, &nn));
    CHECK_EQ(nn, 5);
    hipGraphExec_t exec2;
    HIP_CHECK(hipGraphInstantiateWithFlags(&exec2, g2, 0));
    HIP_CHECK(hipMemset(d, 0, N * sizeof(float)));
    HIP_CHECK(hipGraphLaunch(exec2, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipMemcpy(hd, d, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hd[i] == ha[i] + hb[i]);
    HIP_CHECK(hipGraphExecDestroy(exec2));
    HIP_CHECK(hipGraphDestroy(g2));
    printf("graph launched into a capture: its nodes captured, the result bit-exact\n");

    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(c));
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipStreamDestroy(other));
    free(ha);
    free(hb);
    free(hd);
}

/* A D2H copy node: its data is in host memory when hipGraphLaunch returns.
 * An event recorded during the capture is the capture's (for other streams
 * to join it), not a node, as in HIP. */
static void check_d2h_and_events(void)
{
    unsigned long long *counter, host = 0;
    hipStream_t s;
    hipEvent_t done;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipEventCreate(&done));
    HIP_CHECK(hipMalloc((void **)&counter, sizeof *counter));
    HIP_CHECK(hipMemset(counter, 0, sizeof *counter));
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
    HIP_CHECK(launch_count(counter, s));
    HIP_CHECK(launch_count(counter, s));
    HIP_CHECK(hipMemcpyAsync(&host, counter, sizeof host, hipMemcpyDeviceToHost, s));
    HIP_CHECK(hipEventRecord(done, s));
    /* Recorded in a running capture: it has not happened. */
    HIP_EXPECT(hipEventQuery(done), hipErrorCapturedEvent);
    hipGraph_t g;
    HIP_CHECK(hipStreamEndCapture(s, &g));
    CHECK_EQ(host, 0);
    size_t nn = 0;
    HIP_CHECK(hipGraphGetNodes(g, NULL, &nn));
    CHECK_EQ(nn, 3);
    HIP_CHECK(hipEventQuery(done)); /* the capture is over: an ordinary event again */
    hipGraphExec_t exec;
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    for (unsigned long long k = 1; k <= 4; k++) {
        HIP_CHECK(hipGraphLaunch(exec, s));
        CHECK_EQ(host, 2 * k);
    }
    printf("D2H node: the counter (2 launches per graph) is in host memory when "
           "hipGraphLaunch returns, 4 times; the captured event record made no node\n");
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(g));
    HIP_CHECK(hipEventDestroy(done));
    HIP_CHECK(hipFree(counter));
    HIP_CHECK(hipStreamDestroy(s));
}

struct end_args {
    hipStream_t s;
    hipError_t err;
    hipGraph_t g;
};

static void *end_elsewhere(void *p)
{
    struct end_args *a = p;
    a->err = hipStreamEndCapture(a->s, &a->g);
    return NULL;
}

static void check_errors(void)
{
    hipStream_t s, nb;
    hipGraph_t g = (hipGraph_t)1;
    unsigned long long *counter;
    void *p;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipStreamCreateWithFlags(&nb, hipStreamNonBlocking));
    HIP_CHECK(hipMalloc((void **)&counter, sizeof *counter));
    HIP_CHECK(hipMemset(counter, 0, sizeof *counter));

    HIP_EXPECT(hipStreamBeginCapture(NULL, hipStreamCaptureModeGlobal),
               hipErrorStreamCaptureUnsupported);
    HIP_EXPECT(hipStreamBeginCapture(s, (hipStreamCaptureMode)7), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorIllegalState);
    HIP_EXPECT(hipStreamEndCapture(s, NULL), hipErrorInvalidValue);
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_EXPECT(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal), hipErrorIllegalState);

    /* Synchronizing a capturing stream: refused, the capture invalidated,
     * later work on it refused, and the end says so. */
    HIP_CHECK(launch_count(counter, s));
    HIP_EXPECT(hipStreamSynchronize(s), hipErrorStreamCaptureUnsupported);
    expect_status(s, hipStreamCaptureStatusInvalidated);
    HIP_EXPECT(launch_count(counter, s), hipErrorStreamCaptureInvalidated);
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorStreamCaptureInvalidated);
    CHECK(g == NULL);
    expect_status(s, hipStreamCaptureStatusNone);
    printf("stream synchronize during capture: hipErrorStreamCaptureUnsupported, capture "
           "invalidated, end: hipErrorStreamCaptureInvalidated\n");

    /* The same for a query. */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_EXPECT(hipStreamQuery(s), hipErrorStreamCaptureUnsupported);
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorStreamCaptureInvalidated);

    /* Unsafe calls by capture mode. */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_EXPECT(hipMalloc(&p, 64), hipErrorStreamCaptureUnsupported);
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorStreamCaptureInvalidated);
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    hipStreamCaptureMode mode = hipStreamCaptureModeRelaxed;
    HIP_CHECK(hipThreadExchangeStreamCaptureMode(&mode));
    CHECK_EQ(mode, hipStreamCaptureModeGlobal);
    HIP_CHECK(hipMalloc(&p, 64)); /* relaxed: allowed */
    HIP_CHECK(hipFree(p));
    HIP_CHECK(hipThreadExchangeStreamCaptureMode(&mode));
    HIP_CHECK(hipStreamEndCapture(s, &g));
    HIP_CHECK(hipGraphDestroy(g));
    printf("hipMalloc during a global capture: hipErrorStreamCaptureUnsupported; in relaxed "
           "thread mode: allowed\n");

    /* Synchronous calls and the null stream. */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    unsigned long long h;
    HIP_EXPECT(hipMemcpy(&h, counter, sizeof h, hipMemcpyDeviceToHost),
               hipErrorStreamCaptureImplicit);
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorStreamCaptureInvalidated);
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    hipStreamCaptureStatus st;
    HIP_EXPECT(hipStreamIsCapturing(NULL, &st), hipErrorStreamCaptureImplicit);
    HIP_EXPECT(launch_count(counter, NULL), hipErrorStreamCaptureImplicit);
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorStreamCaptureInvalidated);
    /* A non-blocking stream's capture leaves the null stream alone. */
    HIP_CHECK(hipStreamBeginCapture(nb, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipStreamIsCapturing(NULL, &st));
    CHECK_EQ(st, hipStreamCaptureStatusNone);
    HIP_CHECK(launch_count(counter, NULL));
    HIP_EXPECT(hipDeviceSynchronize(), hipErrorStreamCaptureUnsupported);
    HIP_EXPECT(hipStreamEndCapture(nb, &g), hipErrorStreamCaptureInvalidated);
    printf("during capture: hipMemcpy and the null stream: hipErrorStreamCaptureImplicit "
           "(blocking stream), hipDeviceSynchronize: hipErrorStreamCaptureUnsupported\n");

    /* Ending from another thread: refused unless relaxed. */
    struct end_args ea = { s, hipSuccess, NULL };
    pthread_t t;
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    CHECK(pthread_create(&t, NULL, end_elsewhere, &ea) == 0);
    pthread_join(t, NULL);
    HIP_EXPECT(ea.err, hipErrorStreamCaptureWrongThread);
    HIP_CHECK(hipStreamEndCapture(s, &g));
    HIP_CHECK(hipGraphDestroy(g));
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeRelaxed));
    HIP_CHECK(launch_count(counter, s));
    CHECK(pthread_create(&t, NULL, end_elsewhere, &ea) == 0);
    pthread_join(t, NULL);
    HIP_CHECK(ea.err);
    size_t nn = 0;
    HIP_CHECK(hipGraphGetNodes(ea.g, NULL, &nn));
    CHECK_EQ(nn, 1);
    HIP_CHECK(hipGraphDestroy(ea.g));
    printf("end capture from another thread: hipErrorStreamCaptureWrongThread (global), "
           "allowed (relaxed)\n");

    /* A non-capturing stream waiting on an event of a capture joins it
     * (a fork); ending the capture before it rejoins is unjoined. */
    hipEvent_t e;
    HIP_CHECK(hipEventCreate(&e));
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipEventRecord(e, s));
    HIP_CHECK(hipStreamWaitEvent(nb, e, 0));
    expect_status(nb, hipStreamCaptureStatusActive);
    HIP_CHECK(launch_count(counter, nb));
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorStreamCaptureUnjoined);
    CHECK(g == NULL);
    expect_status(nb, hipStreamCaptureStatusNone);
    HIP_CHECK(hipEventDestroy(e));

    HIP_EXPECT(hipGraphLaunch(NULL, s), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphInstantiate(NULL, NULL, NULL, NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphExecDestroy(NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphDestroy(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipGraphCreate(&g, 0));
    hipGraphExec_t exec;
    HIP_EXPECT(hipGraphInstantiateWithFlags(&exec, g, 99), hipErrorInvalidValue);
    HIP_CHECK(hipGraphInstantiateWithFlags(&exec, g, 0));
    HIP_CHECK(hipGraphLaunch(exec, s)); /* empty: nothing to do */
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(g));

    /* After all of it the stream and the session work: the counter saw
     * exactly the launches that ran (one on the null stream). */
    HIP_CHECK(launch_count(counter, s));
    HIP_CHECK(hipStreamSynchronize(s));
    unsigned long long host = 0;
    HIP_CHECK(hipMemcpy(&host, counter, sizeof host, hipMemcpyDeviceToHost));
    CHECK_EQ(host, 2);
    HIP_CHECK(hipFree(counter));
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipStreamDestroy(nb));
    printf("capture errors: as HIP defines them; the stream works afterwards\n");
}

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    HIP_CHECK(hipModuleLoad(&mod, kernels));
    HIP_CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    HIP_CHECK(hipModuleGetFunction(&count_once, mod, "count_once"));
    check_capture_and_launch();
    check_d2h_and_events();
    check_errors();
    HIP_CHECK(hipModuleUnload(mod));
    printf("graph: ok\n");
    return 0;
}
