/*
 * Kernel node attributes (hipGraphKernelNode{Get,Set}Attribute) against a
 * real worker: values kept on the node, across SetParams and into
 * instantiated copies; Cooperative taking effect at replay (the CPU device
 * refuses cooperative launches, as it does hipLaunchCooperativeKernel);
 * the access policy window kept as a hint; AMD's codes for bad arguments.
 */
#include <hip/hip_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define N 256

static hipFunction_t vadd;
static float ha[N], hb[N], hc[N];
static float *da, *db, *dc;
static int nn = N;
static void *args[] = { &da, &db, &dc, &nn };

static hipKernelNodeParams vadd_params(void)
{
    hipKernelNodeParams p;
    memset(&p, 0, sizeof p);
    p.func = (void *)vadd;
    p.gridDim = (dim3){ N / 64, 1, 1 };
    p.blockDim = (dim3){ 64, 1, 1 };
    p.kernelParams = args;
    return p;
}

/* Instantiates g, launches it once; the first error of launch and sync. */
static hipError_t run_graph(hipGraph_t g, hipStream_t s)
{
    hipGraphExec_t ge;
    HIP_CHECK(hipGraphInstantiate(&ge, g, NULL, NULL, 0));
    HIP_CHECK(hipMemset(dc, 0, sizeof hc));
    hipError_t e = hipGraphLaunch(ge, s);
    hipError_t e2 = hipStreamSynchronize(s);
    (void)hipGetLastError();
    HIP_CHECK(hipGraphExecDestroy(ge));
    return e != hipSuccess ? e : e2;
}

static void check_sum(void)
{
    HIP_CHECK(hipMemcpy(hc, dc, sizeof hc, hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hc[i] == ha[i] + hb[i]);
}

int main(void)
{
    hipModule_t mod;
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    HIP_CHECK(hipModuleLoad(&mod, kernels));
    HIP_CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = (float)(3 * i + 1);
    }
    HIP_CHECK(hipMalloc((void **)&da, sizeof ha));
    HIP_CHECK(hipMalloc((void **)&db, sizeof hb));
    HIP_CHECK(hipMalloc((void **)&dc, sizeof hc));
    HIP_CHECK(hipMemcpy(da, ha, sizeof ha, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(db, hb, sizeof hb, hipMemcpyHostToDevice));
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));

    hipGraph_t g;
    HIP_CHECK(hipGraphCreate(&g, 0));
    hipKernelNodeParams kp = vadd_params();
    hipGraphNode_t k, empty;
    HIP_CHECK(hipGraphAddKernelNode(&k, g, NULL, 0, &kp));
    HIP_CHECK(hipGraphAddEmptyNode(&empty, g, NULL, 0));

    /* Defaults: not cooperative, no window. */
    hipKernelNodeAttrValue v;
    memset(&v, 0x5a, sizeof v);
    HIP_CHECK(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeCooperative, &v));
    CHECK_EQ(v.cooperative, 0);
    HIP_CHECK(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &v));
    CHECK(v.accessPolicyWindow.base_ptr == NULL && v.accessPolicyWindow.num_bytes == 0);
    HIP_CHECK(run_graph(g, s));
    check_sum();

    /* Cooperative is kept as given, survives SetParams, and takes effect:
     * a device without cooperative launch refuses the replay. */
    int coop = -1;
    HIP_CHECK(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0));
    hipGraphExec_t before;
    HIP_CHECK(hipGraphInstantiate(&before, g, NULL, NULL, 0));
    v.cooperative = 2;
    HIP_CHECK(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeCooperative, &v));
    HIP_CHECK(hipGraphKernelNodeSetParams(k, &kp));
    memset(&v, 0, sizeof v);
    HIP_CHECK(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeCooperative, &v));
    CHECK_EQ(v.cooperative, 2);
    HIP_EXPECT(run_graph(g, s), coop ? hipSuccess : hipErrorNotSupported);
    /* An executable graph made before keeps the node as it was. */
    HIP_CHECK(hipMemset(dc, 0, sizeof hc));
    HIP_CHECK(hipGraphLaunch(before, s));
    HIP_CHECK(hipStreamSynchronize(s));
    check_sum();
    HIP_CHECK(hipGraphExecDestroy(before));
    /* A clone carries the attribute. */
    hipGraph_t clone;
    hipGraphNode_t kc;
    HIP_CHECK(hipGraphClone(&clone, g));
    HIP_CHECK(hipGraphNodeFindInClone(&kc, k, clone));
    HIP_CHECK(hipGraphKernelNodeGetAttribute(kc, hipKernelNodeAttributeCooperative, &v));
    CHECK_EQ(v.cooperative, 2);
    HIP_CHECK(hipGraphDestroy(clone));
    v.cooperative = 0;
    HIP_CHECK(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeCooperative, &v));
    HIP_CHECK(run_graph(g, s));
    check_sum();

    /* The access policy window: kept and reported, within the device's
     * maximum; a hint that changes no result. */
    int max_window = -1;
    HIP_CHECK(hipDeviceGetAttribute(&max_window, hipDeviceAttributeAccessPolicyMaxWindowSize, 0));
    CHECK(max_window >= 0);
    hipKernelNodeAttrValue w;
    memset(&w, 0, sizeof w);
    w.accessPolicyWindow.base_ptr = da;
    w.accessPolicyWindow.num_bytes =
        (size_t)max_window < sizeof ha ? (size_t)max_window : sizeof ha;
    w.accessPolicyWindow.hitRatio = 0.6f;
    w.accessPolicyWindow.hitProp = hipAccessPropertyPersisting;
    w.accessPolicyWindow.missProp = hipAccessPropertyStreaming;
    HIP_CHECK(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &w));
    memset(&v, 0, sizeof v);
    HIP_CHECK(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &v));
    CHECK(v.accessPolicyWindow.base_ptr == (void *)da);
    CHECK_EQ(v.accessPolicyWindow.num_bytes, w.accessPolicyWindow.num_bytes);
    CHECK(v.accessPolicyWindow.hitRatio == 0.6f);
    CHECK(v.accessPolicyWindow.hitProp == hipAccessPropertyPersisting);
    CHECK(v.accessPolicyWindow.missProp == hipAccessPropertyStreaming);
    HIP_CHECK(run_graph(g, s));
    check_sum();

    /* Bad arguments: all hipErrorInvalidValue, the node unchanged. */
    hipKernelNodeAttrValue bad = w;
    bad.accessPolicyWindow.num_bytes = (size_t)max_window + 1;
    HIP_EXPECT(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &bad),
               hipErrorInvalidValue);
    bad = w;
    bad.accessPolicyWindow.hitRatio = -0.6f;
    HIP_EXPECT(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &bad),
               hipErrorInvalidValue);
    bad.accessPolicyWindow.hitRatio = 1.1f;
    HIP_EXPECT(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &bad),
               hipErrorInvalidValue);
    bad = w;
    bad.accessPolicyWindow.missProp = hipAccessPropertyPersisting;
    HIP_EXPECT(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &bad),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphKernelNodeSetAttribute(NULL, hipKernelNodeAttributeAccessPolicyWindow, &w),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphKernelNodeSetAttribute(empty, hipKernelNodeAttributeAccessPolicyWindow, &w),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphKernelNodeSetAttribute(k, (hipKernelNodeAttrID)-1, &w),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, NULL),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphKernelNodeGetAttribute(NULL, hipKernelNodeAttributeCooperative, &v),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphKernelNodeGetAttribute(empty, hipKernelNodeAttributeCooperative, &v),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphKernelNodeGetAttribute(k, (hipKernelNodeAttrID)-1, &v),
               hipErrorInvalidValue);
    HIP_EXPECT(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeCooperative, NULL),
               hipErrorInvalidValue);
    memset(&v, 0, sizeof v);
    HIP_CHECK(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &v));
    CHECK(v.accessPolicyWindow.hitRatio == 0.6f);

    HIP_CHECK(hipGraphDestroy(g));
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
    HIP_CHECK(hipModuleUnload(mod));
    printf("graph_attr: ok (cooperative launch %d, max window %d)\n", coop, max_window);
    return 0;
}
