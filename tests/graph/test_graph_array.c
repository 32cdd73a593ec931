/*
 * test_graph_array - graph memcpy nodes whose hipMemcpy3DParms name arrays
 * (srcArray/dstArray), against a real worker (CPU device):
 *  - host -> 3-D array -> 3-D array -> host as three dependent nodes; a
 *    launch brings the host data back intact;
 *  - hipGraphMemcpyNodeGetParams returns the parameters as given;
 *  - hipGraphMemcpyNodeSetParams with an array sub-region (positions and
 *    width in elements) and hipGraphExecMemcpyNodeSetParams to another host
 *    buffer, each checked through the data a launch produces; 1-D arrays;
 *  - AMD's hipErrorInvalidValue for a missing operand, an array and a
 *    pointer on one side, arrays of different element sizes, a region past
 *    an array, a destroyed array, an empty parameter block.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { W = 10, H = 6, D = 4, COUNT = W * H * D };

static int src[COUNT], out[COUNT], out2[COUNT];
static hipStream_t s;

static hipMemcpy3DParms to_array(hipArray_t a, void *host)
{
    hipMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_hipPitchedPtr(host, W * sizeof(int), W, H);
    p.dstArray = a;
    p.extent = make_hipExtent(W, H, D);
    p.kind = hipMemcpyHostToDevice;
    return p;
}

static hipMemcpy3DParms from_array(hipArray_t a, void *host)
{
    hipMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.dstPtr = make_hipPitchedPtr(host, W * sizeof(int), W, H);
    p.extent = make_hipExtent(W, H, D);
    p.kind = hipMemcpyDeviceToHost;
    return p;
}

static void run(hipGraphExec_t exec)
{
    HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipStreamSynchronize(s));
}

static void check_same(const int *got, const char *what)
{
    for (int i = 0; i < COUNT; i++)
        if (got[i] != src[i]) {
            fprintf(stderr, "%s: element %d is %d, expected %d\n", what, i, got[i], src[i]);
            exit(1);
        }
}

int main(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindSigned);
    hipChannelFormatDesc desc16 = hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindSigned);
    hipArray_t a1, a2, a16, a1d;
    hipGraph_t g;
    hipGraphNode_t up, across, down, n;
    hipGraphExec_t exec;
    hipMemcpy3DParms p, got;

    for (int i = 0; i < COUNT; i++)
        src[i] = 1000 + 7 * i;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipMalloc3DArray(&a1, &desc, make_hipExtent(W, H, D), hipArrayDefault));
    HIP_CHECK(hipMalloc3DArray(&a2, &desc, make_hipExtent(W, H, D), hipArrayDefault));
    HIP_CHECK(hipMalloc3DArray(&a16, &desc16, make_hipExtent(W, H, D), hipArrayDefault));

    /* host -> a1 -> a2 -> host. */
    HIP_CHECK(hipGraphCreate(&g, 0));
    p = to_array(a1, src);
    HIP_CHECK(hipGraphAddMemcpyNode(&up, g, NULL, 0, &p));
    memset(&p, 0, sizeof p);
    p.srcArray = a1;
    p.dstArray = a2;
    p.extent = make_hipExtent(W, H, D);
    p.kind = hipMemcpyDeviceToDevice;
    HIP_CHECK(hipGraphAddMemcpyNode(&across, g, &up, 1, &p));
    p = from_array(a2, out);
    HIP_CHECK(hipGraphAddMemcpyNode(&down, g, &across, 1, &p));
    memset(&got, 0x5a, sizeof got);
    HIP_CHECK(hipGraphMemcpyNodeGetParams(down, &got));
    CHECK(got.srcArray == a2 && got.dstPtr.ptr == out && got.srcPtr.ptr == NULL);
    CHECK(got.extent.width == W && got.extent.height == H && got.extent.depth == D);
    CHECK_EQ(got.kind, hipMemcpyDeviceToHost);
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    run(exec);
    check_same(out, "host -> array -> array -> host");
    printf("array nodes: host -> 3-D array -> 3-D array -> host round trip, GetParams as given\n");

    /* SetParams on the graph: columns 3..9 of a2 into columns 3..9 of out2
     * (x in elements on the array side, in bytes on the pointer side). */
    memset(out2, 0, sizeof out2);
    p = from_array(a2, out2);
    p.srcPos = make_hipPos(3, 0, 0);
    p.dstPos = make_hipPos(3 * sizeof(int), 0, 0);
    p.extent = make_hipExtent(W - 3, H, D);
    HIP_CHECK(hipGraphMemcpyNodeSetParams(down, &p));
    HIP_CHECK(hipGraphMemcpyNodeGetParams(down, &got));
    CHECK(got.dstPtr.ptr == out2 && got.srcPos.x == 3 && got.extent.width == W - 3);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphInstantiate(&exec, g, NULL, NULL, 0));
    run(exec);
    for (int i = 0; i < COUNT; i++)
        CHECK_EQ(out2[i], i % W < 3 ? 0 : src[i]);

    /* SetParams on the executable graph: the whole of a2 into out. */
    memset(out, 0, sizeof out);
    p = from_array(a2, out);
    HIP_CHECK(hipGraphExecMemcpyNodeSetParams(exec, down, &p));
    run(exec);
    check_same(out, "exec set params");
    HIP_CHECK(hipGraphMemcpyNodeGetParams(down, &got));
    CHECK(got.dstPtr.ptr == out2); /* the graph's node kept its own */
    printf(
        "array nodes: SetParams with an array sub-region, exec SetParams: launched data right\n");

    /* A 1-D array (height 0), as AMD's functional test builds it. */
    HIP_CHECK(hipMalloc3DArray(&a1d, &desc, make_hipExtent(W, 0, 0), hipArrayDefault));
    hipGraph_t g1;
    hipGraphExec_t e1;
    hipGraphNode_t n1;
    HIP_CHECK(hipGraphCreate(&g1, 0));
    p = to_array(a1d, src);
    p.srcPtr = make_hipPitchedPtr(src, W * sizeof(int), W, 1);
    p.extent = make_hipExtent(W, 1, 1);
    HIP_CHECK(hipGraphAddMemcpyNode(&n1, g1, NULL, 0, &p));
    memset(out, 0, sizeof out);
    p = from_array(a1d, out);
    p.dstPtr = make_hipPitchedPtr(out, W * sizeof(int), W, 1);
    p.extent = make_hipExtent(W, 1, 1);
    HIP_CHECK(hipGraphAddMemcpyNode(&n, g1, &n1, 1, &p));
    HIP_CHECK(hipGraphInstantiate(&e1, g1, NULL, NULL, 0));
    run(e1);
    for (int i = 0; i < COUNT; i++)
        CHECK_EQ(out[i], i < W ? src[i] : 0);
    HIP_CHECK(hipGraphExecDestroy(e1));
    HIP_CHECK(hipGraphDestroy(g1));
    printf("array nodes: 1-D array round trip\n");

    /* AMD's codes. */
    p = to_array(a1, src);
    p.srcPtr.ptr = NULL;
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &p), hipErrorInvalidValue); /* no source */
    p = to_array(a1, src);
    p.dstArray = NULL;
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &p), hipErrorInvalidValue); /* no dest */
    p = to_array(a2, src);
    p.srcArray = a1; /* and srcPtr too */
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &p), hipErrorInvalidValue);
    memset(&p, 0, sizeof p);
    p.srcArray = a16;
    p.dstArray = a2;
    p.extent = make_hipExtent(W, H, D);
    p.kind = hipMemcpyDeviceToDevice;
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &p), hipErrorInvalidValue);
    p.srcArray = a1; /* same element size: fine */
    HIP_CHECK(hipGraphAddMemcpyNode(&n, g, NULL, 0, &p));
    HIP_CHECK(hipGraphDestroyNode(n));
    p.extent = make_hipExtent(W + 1, H, D); /* past the arrays' rows */
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &p), hipErrorInvalidValue);
    p.extent = make_hipExtent(W, H, D);
    p.dstPos = make_hipPos(0, 0, 1); /* past the last slice */
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &p), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphMemcpyNodeSetParams(across, &p), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphExecMemcpyNodeSetParams(exec, across, &p), hipErrorInvalidValue);
    hipMemcpy3DParms empty;
    memset(&empty, 0, sizeof empty);
    HIP_EXPECT(hipGraphExecMemcpyNodeSetParams(exec, down, &empty), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphMemcpyNodeSetParams(down, &empty), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphMemcpyNodeGetParams(down, NULL), hipErrorInvalidValue);
    hipArray_t gone;
    HIP_CHECK(hipMalloc3DArray(&gone, &desc, make_hipExtent(W, H, D), hipArrayDefault));
    HIP_CHECK(hipFreeArray(gone));
    p = to_array(gone, src);
    HIP_EXPECT(hipGraphAddMemcpyNode(&n, g, NULL, 0, &p), hipErrorInvalidValue);
    printf("array nodes: missing operand, array and pointer on one side, element sizes, "
           "region past an array, destroyed array, empty parameters: hipErrorInvalidValue\n");

    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(g));
    HIP_CHECK(hipFreeArray(a1));
    HIP_CHECK(hipFreeArray(a2));
    HIP_CHECK(hipFreeArray(a16));
    HIP_CHECK(hipFreeArray(a1d));
    HIP_CHECK(hipStreamDestroy(s));
    printf("graph array: ok\n");
    return 0;
}
