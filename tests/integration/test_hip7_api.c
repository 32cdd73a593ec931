/*
 * The HIP 7.1/7.2 calls that map onto existing operations, against a real
 * worker: 2-D fills of 8/16/32-bit elements (the padding past each row's
 * width must stay untouched), batched copies (in order, failIdx naming the
 * copy that failed), stream attributes (AMD's codes: only the
 * synchronization policy can be set, priority is read from the stream),
 * stream ids, and libraries loaded as modules, whose kernels launch.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip7_decls.h"
#include "testutil.h"

enum { W = 10, H = 4 };

/* Fills W elements of each of H rows of a pitched buffer whose bytes were
 * 0xee, then checks every byte: the fill inside, 0xee past each row. */
static void check_fill(unsigned elem, int async)
{
    uint8_t *buf;
    size_t pitch;
    HIP_CHECK(hipMallocPitch((void **)&buf, &pitch, W * 4 + 8, H));
    CHECK(pitch >= W * elem + 8);
    HIP_CHECK(hipMemset(buf, 0xee, pitch * H));
    hipStream_t s = NULL;
    if (async)
        HIP_CHECK(hipStreamCreate(&s));
    const uint32_t v = 0x81828384u;
    if (elem == 1)
        HIP_CHECK(async ? hipMemsetD2D8Async(buf, pitch, (unsigned char)v, W, H, s)
                        : hipMemsetD2D8(buf, pitch, (unsigned char)v, W, H));
    else if (elem == 2)
        HIP_CHECK(async ? hipMemsetD2D16Async(buf, pitch, (unsigned short)v, W, H, s)
                        : hipMemsetD2D16(buf, pitch, (unsigned short)v, W, H));
    else
        HIP_CHECK(async ? hipMemsetD2D32Async(buf, pitch, v, W, H, s)
                        : hipMemsetD2D32(buf, pitch, v, W, H));
    if (async) {
        HIP_CHECK(hipStreamSynchronize(s));
        HIP_CHECK(hipStreamDestroy(s));
    }
    uint8_t *h = malloc(pitch * H);
    CHECK(h != NULL);
    HIP_CHECK(hipMemcpy(h, buf, pitch * H, hipMemcpyDeviceToHost));
    for (size_t r = 0; r < H; r++)
        for (size_t b = 0; b < pitch; b++) {
            uint8_t want = b < W * elem ? (uint8_t)(v >> (8 * (b % elem))) : 0xee;
            CHECK(h[r * pitch + b] == want);
        }
    /* A row narrower than its width in bytes. */
    HIP_EXPECT(hipMemsetD2D32(buf, W * 4 - 1, v, W, H), hipErrorInvalidValue);
    HIP_EXPECT(hipMemsetD2D16(NULL, pitch, 1, W, H), hipErrorInvalidValue);
    free(h);
    HIP_CHECK(hipFree(buf));
}

static void check_batch(void)
{
    enum { N = 4096 };
    int *host_in = malloc(N * sizeof(int)), *host_out = calloc(N, sizeof(int));
    CHECK(host_in && host_out);
    for (int i = 0; i < N; i++)
        host_in[i] = i * 3 + 1;
    int *d1, *d2;
    HIP_CHECK(hipMalloc((void **)&d1, N * sizeof(int)));
    HIP_CHECK(hipMalloc((void **)&d2, N * sizeof(int)));
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    /* Host to device, device to device, device to host: each depends on the
     * one before, so a batch run out of order reads stale data. */
    void *dsts[] = { d1, d2, host_out };
    void *srcs[] = { host_in, d1, d2 };
    size_t sizes[] = { N * sizeof(int), N * sizeof(int), N * sizeof(int) };
    size_t fail = 7;
    HIP_CHECK(hipMemcpyBatchAsync(dsts, srcs, sizes, 3, NULL, NULL, 0, &fail, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(memcmp(host_in, host_out, N * sizeof(int)) == 0);

    fail = 7;
    HIP_EXPECT(hipMemcpyBatchAsync(NULL, srcs, sizes, 3, NULL, NULL, 0, &fail, s),
               hipErrorInvalidValue);
    CHECK(fail == SIZE_MAX);
    HIP_EXPECT(hipMemcpyBatchAsync(dsts, NULL, sizes, 3, NULL, NULL, 0, &fail, s),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyBatchAsync(dsts, srcs, NULL, 3, NULL, NULL, 0, &fail, s),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyBatchAsync(dsts, srcs, sizes, 0, NULL, NULL, 0, &fail, s),
               hipErrorInvalidValue);
    (void)hipGetLastError();

    /* The second copy is refused: the first still ran, failIdx says 1. */
    memset(host_out, 0, N * sizeof(int));
    HIP_CHECK(hipMemset(d1, 0, N * sizeof(int)));
    void *bad_dsts[] = { d1, NULL };
    void *bad_srcs[] = { host_in, d2 };
    fail = 7;
    HIP_EXPECT(hipMemcpyBatchAsync(bad_dsts, bad_srcs, sizes, 2, NULL, NULL, 0, &fail, s),
               hipErrorInvalidValue);
    CHECK(fail == 1);
    (void)hipGetLastError();
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipMemcpy(host_out, d1, N * sizeof(int), hipMemcpyDeviceToHost));
    CHECK(memcmp(host_in, host_out, N * sizeof(int)) == 0);

    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFree(d1));
    HIP_CHECK(hipFree(d2));
    free(host_in);
    free(host_out);
}

static void check_stream_attributes(void)
{
    int least, greatest;
    HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
    hipStream_t a, b;
    HIP_CHECK(hipStreamCreateWithPriority(&a, hipStreamDefault, greatest));
    HIP_CHECK(hipStreamCreate(&b));
    hipStreamAttrValue v;

    memset(&v, 0x55, sizeof v);
    HIP_CHECK(hipStreamGetAttribute(a, hipStreamAttributePriority, &v));
    CHECK(v.priority == greatest);
    HIP_CHECK(hipStreamGetAttribute(a, hipStreamAttributeSynchronizationPolicy, &v));
    CHECK(v.syncPolicy == hipSyncPolicyAuto);

    v.syncPolicy = hipSyncPolicyYield;
    HIP_CHECK(hipStreamSetAttribute(a, hipStreamAttributeSynchronizationPolicy, &v));
    v.syncPolicy = hipSyncPolicyAuto;
    HIP_CHECK(hipStreamGetAttribute(a, hipStreamAttributeSynchronizationPolicy, &v));
    CHECK(v.syncPolicy == hipSyncPolicyYield);
    /* Another stream's policy is its own until copied. */
    HIP_CHECK(hipStreamGetAttribute(b, hipStreamAttributeSynchronizationPolicy, &v));
    CHECK(v.syncPolicy == hipSyncPolicyAuto);
    HIP_CHECK(hipStreamCopyAttributes(b, a));
    HIP_CHECK(hipStreamGetAttribute(b, hipStreamAttributeSynchronizationPolicy, &v));
    CHECK(v.syncPolicy == hipSyncPolicyYield);

    /* The null stream has a policy of its own too. */
    v.syncPolicy = hipSyncPolicyBlockingSync;
    HIP_CHECK(hipStreamSetAttribute(NULL, hipStreamAttributeSynchronizationPolicy, &v));
    HIP_CHECK(hipStreamGetAttribute(NULL, hipStreamAttributeSynchronizationPolicy, &v));
    CHECK(v.syncPolicy == hipSyncPolicyBlockingSync);
    HIP_CHECK(hipStreamGetAttribute(a, hipStreamAttributeSynchronizationPolicy, &v));
    CHECK(v.syncPolicy == hipSyncPolicyYield);

    /* AMD's refusals. */
    v.syncPolicy = (hipSynchronizationPolicy)0;
    HIP_EXPECT(hipStreamSetAttribute(a, hipStreamAttributeSynchronizationPolicy, &v),
               hipErrorInvalidValue);
    v.syncPolicy = (hipSynchronizationPolicy)5;
    HIP_EXPECT(hipStreamSetAttribute(a, hipStreamAttributeSynchronizationPolicy, &v),
               hipErrorInvalidValue);
    v.priority = least;
    HIP_EXPECT(hipStreamSetAttribute(a, hipStreamAttributePriority, &v), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamGetAttribute(a, (hipStreamAttrID)2 /* cooperative: launches only */, &v),
               hipErrorInvalidValue);
    HIP_EXPECT(hipStreamGetAttribute(a, hipStreamAttributePriority, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamSetAttribute(a, hipStreamAttributeSynchronizationPolicy, NULL),
               hipErrorInvalidValue);

    /* No attribute changes while the stream captures. */
    hipGraph_t g;
    HIP_CHECK(hipStreamBeginCapture(b, hipStreamCaptureModeRelaxed));
    v.syncPolicy = hipSyncPolicySpin;
    HIP_EXPECT(hipStreamSetAttribute(b, hipStreamAttributeSynchronizationPolicy, &v),
               hipErrorStreamCaptureUnsupported);
    /* The null stream's policy is still settable, and no error is left
     * behind for hipGetLastError (b captures in relaxed mode). */
    (void)hipGetLastError();
    v.syncPolicy = hipSyncPolicyAuto;
    HIP_CHECK(hipStreamSetAttribute(NULL, hipStreamAttributeSynchronizationPolicy, &v));
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipStreamEndCapture(b, &g));
    HIP_CHECK(hipGraphDestroy(g));

    HIP_CHECK(hipStreamDestroy(b));
    HIP_EXPECT(hipStreamGetAttribute(b, hipStreamAttributePriority, &v),
               hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipStreamCopyAttributes(b, a), hipErrorInvalidResourceHandle);
    (void)hipGetLastError();
    HIP_CHECK(hipStreamDestroy(a));
}

/* Ids are stable per stream and distinct between streams, the null
 * stream's and the thread's per-thread stream's included. */
static void check_stream_ids(void)
{
    hipStream_t a, b;
    HIP_CHECK(hipStreamCreate(&a));
    HIP_CHECK(hipStreamCreate(&b));
    unsigned long long ia = 0, ia2 = 0, ib = 0, in = 0, in2 = 0, ip = 0;
    HIP_CHECK(hipStreamGetId(a, &ia));
    HIP_CHECK(hipStreamGetId(a, &ia2));
    HIP_CHECK(hipStreamGetId(b, &ib));
    HIP_CHECK(hipStreamGetId(NULL, &in));
    HIP_CHECK(hipStreamGetId(NULL, &in2));
    HIP_CHECK(hipStreamGetId(hipStreamPerThread, &ip));
    CHECK(ia == ia2 && in == in2);
    CHECK(ia != ib && ia != in && ib != in && ip != in && ip != ia && ip != ib);
    HIP_EXPECT(hipStreamGetId(a, NULL), hipErrorInvalidValue);
    HIP_CHECK(hipStreamDestroy(b));
    HIP_EXPECT(hipStreamGetId(b, &ib), hipErrorInvalidResourceHandle);
    (void)hipGetLastError();
    HIP_CHECK(hipStreamDestroy(a));
}

/* A library's kernel is a function that hipModuleLaunchKernel runs. */
static void run_vadd(hipKernel_t k)
{
    enum { N = 1000 };
    float ha[N], hb[N], hc[N];
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = (float)(2 * i);
    }
    float *a, *b, *c;
    HIP_CHECK(hipMalloc((void **)&a, sizeof ha));
    HIP_CHECK(hipMalloc((void **)&b, sizeof hb));
    HIP_CHECK(hipMalloc((void **)&c, sizeof hc));
    HIP_CHECK(hipMemcpy(a, ha, sizeof ha, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(b, hb, sizeof hb, hipMemcpyHostToDevice));
    int n = N;
    void *args[] = { &a, &b, &c, &n };
    HIP_CHECK(hipModuleLaunchKernel((hipFunction_t)k, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL,
                                    args, NULL));
    HIP_CHECK(hipMemcpy(hc, c, sizeof hc, hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hc[i] == ha[i] + hb[i]);
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(c));
}

static void check_library(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    hipLibrary_t lib = NULL;
    hipKernel_t k = NULL;
    HIP_CHECK(hipLibraryLoadFromFile(&lib, kernels, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(lib != NULL);
    HIP_CHECK(hipLibraryGetKernel(&k, lib, "vadd"));
    run_vadd(k);
    HIP_EXPECT(hipLibraryGetKernel(&k, lib, "no_such_kernel"), hipErrorNotFound);
    HIP_CHECK(hipLibraryUnload(lib));

    /* From memory: the same image, read here. */
    FILE *f = fopen(kernels, "rb");
    CHECK(f != NULL);
    CHECK(fseek(f, 0, SEEK_END) == 0);
    long size = ftell(f);
    CHECK(size > 0 && fseek(f, 0, SEEK_SET) == 0);
    void *image = malloc((size_t)size);
    CHECK(image && fread(image, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    HIP_CHECK(hipLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
    free(image);
    HIP_CHECK(hipLibraryGetKernel(&k, lib, "vadd"));
    run_vadd(k);
    HIP_CHECK(hipLibraryUnload(lib));

    HIP_EXPECT(hipLibraryLoadData(NULL, kernels, NULL, NULL, 0, NULL, NULL, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipLibraryLoadData(&lib, NULL, NULL, NULL, 0, NULL, NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(
        hipLibraryLoadFromFile(&lib, "/nonexistent/hipwire.co", NULL, NULL, 0, NULL, NULL, 0),
        hipErrorFileNotFound);
    HIP_EXPECT(hipLibraryGetKernel(NULL, lib, "vadd"), hipErrorInvalidValue);
    (void)hipGetLastError();
}

int main(void)
{
    for (unsigned elem = 1; elem <= 4; elem *= 2) {
        check_fill(elem, 0);
        check_fill(elem, 1);
    }
    check_batch();
    check_stream_attributes();
    check_stream_ids();
    check_library();
    printf("hip7 api: ok\n");
    return 0;
}
