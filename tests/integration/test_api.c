/* The proxy's API, call by call, against a real worker on the CPU device. */
#include <hip/hip_runtime_api.h>
#if HIP_VERSION_MAJOR >= 6
#include <hip/hip_deprecated.h> /* hipDeviceProp_tR0000 */
#endif
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static void test_device_queries(void)
{
    int n = 0, dev = -1, v = 0;
    HIP_CHECK(hipInit(0));
    HIP_CHECK(hipGetDeviceCount(&n));
    CHECK_EQ(n, 2); /* the test runs the worker with --cpu-devices 2 */
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 0);
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 1);
    HIP_EXPECT(hipSetDevice(2), hipErrorInvalidDevice);
    CHECK_EQ(hipGetLastError(), hipErrorInvalidDevice);
    CHECK_EQ(hipGetLastError(), hipSuccess); /* reset by the read */
    HIP_CHECK(hipSetDevice(0));

    hipDeviceProp_t p;
    HIP_CHECK(hipGetDeviceProperties(&p, 1));
    CHECK(strcmp(p.name, "hipwire CPU device") == 0);
    CHECK_EQ(p.totalGlobalMem, 256ull << 20); /* = --mem-limit 256M */
    CHECK(p.maxThreadsPerBlock == 1024);
    HIP_EXPECT(hipGetDeviceProperties(&p, 5), hipErrorInvalidDevice);
#if HIP_VERSION_MAJOR >= 6
    /* The pre-6 layout the library keeps: same values at its own offsets. */
    hipDeviceProp_tR0000 old;
    HIP_CHECK(hipGetDevicePropertiesR0000(&old, 1));
    CHECK(strcmp(old.name, p.name) == 0);
    CHECK_EQ(old.totalGlobalMem, p.totalGlobalMem);
    CHECK_EQ(old.maxThreadsPerBlock, p.maxThreadsPerBlock);
    CHECK_EQ(old.multiProcessorCount, p.multiProcessorCount);
    CHECK(strcmp(old.gcnArchName, p.gcnArchName) == 0);
#endif
    HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxThreadsPerBlock, 0));
    CHECK_EQ(v, p.maxThreadsPerBlock);
    HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0));
    CHECK_EQ(v, p.warpSize);
    HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, 0));
    CHECK_EQ(v, p.multiProcessorCount);
    HIP_EXPECT(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)-5, 0), hipErrorInvalidValue);

    char name[64];
    HIP_CHECK(hipDeviceGetName(name, sizeof name, 0));
    CHECK(strcmp(name, p.name) == 0);
    int rv = 0, dv = 0;
    HIP_CHECK(hipRuntimeGetVersion(&rv));
    CHECK_EQ(rv, HIP_VERSION);
    HIP_CHECK(hipDriverGetVersion(&dv));
    CHECK(dv > 0);
    int can = -1;
    HIP_CHECK(hipDeviceCanAccessPeer(&can, 0, 1));
    CHECK_EQ(can, 0);
    int lo = 1, hi = 1;
    HIP_CHECK(hipDeviceGetStreamPriorityRange(&lo, &hi));
    CHECK(lo >= hi);
    size_t fr = 0, tot = 0;
    HIP_CHECK(hipMemGetInfo(&fr, &tot));
    CHECK_EQ(tot, 256ull << 20);
    CHECK(fr <= tot);

    CHECK(strcmp(hipGetErrorName(hipErrorOutOfMemory), "hipErrorOutOfMemory") == 0);
    CHECK(strlen(hipGetErrorString(hipErrorInvalidValue)) > 0);
}

static void test_memory(void)
{
    char *d = NULL, *d2 = NULL;
    size_t before = 0, after = 0, tot;
    HIP_CHECK(hipMemGetInfo(&before, &tot));
    HIP_CHECK(hipMalloc((void **)&d, 1 << 20));
    HIP_CHECK(hipMemGetInfo(&after, &tot));
    CHECK(before - after >= (1 << 20));
    HIP_CHECK(hipMalloc((void **)&d2, 1 << 20));
    /* Over the 256 MiB session limit: the worker refuses, the client reports it. */
    void *huge = NULL;
    HIP_EXPECT(hipMalloc(&huge, 300u << 20), hipErrorOutOfMemory);
    CHECK(huge == NULL);
    HIP_CHECK(hipMalloc(&huge, 0));
    CHECK(huge == NULL);

    char h[4096], back[4096];
    for (int i = 0; i < 4096; i++)
        h[i] = (char)(i * 31);
    /* Every direction, plus hipMemcpyDefault classified by the client's table. */
    HIP_CHECK(hipMemcpy(d, h, sizeof h, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(d2, d, sizeof h, hipMemcpyDeviceToDevice));
    HIP_CHECK(hipMemcpy(back, d2, sizeof back, hipMemcpyDeviceToHost));
    CHECK(memcmp(h, back, sizeof h) == 0);
    memset(back, 0, sizeof back);
    HIP_CHECK(hipMemcpy(d + 100, h, 1000, hipMemcpyDefault));
    HIP_CHECK(hipMemcpy(back, d + 100, 1000, hipMemcpyDefault));
    CHECK(memcmp(h, back, 1000) == 0);
    HIP_CHECK(hipMemcpy(back, h, 10, hipMemcpyHostToHost));
    HIP_CHECK(hipMemcpyHtoD(d, h, 64));
    HIP_CHECK(hipMemcpyDtoD(d2, d, 64));
    HIP_CHECK(hipMemcpyDtoH(back, d2, 64));
    CHECK(memcmp(h, back, 64) == 0);
    /* Past the end of the allocation: refused before anything is sent. */
    HIP_EXPECT(hipMemcpy(d + (1 << 20) - 10, h, 11, hipMemcpyHostToDevice), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpy(h, (void *)0x1234, 4, hipMemcpyDeviceToHost), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpy(d, h, 4, (hipMemcpyKind)77), hipErrorInvalidMemcpyDirection);

    /* Fills of every width. */
    HIP_CHECK(hipMemset(d, 0xab, 256));
    HIP_CHECK(hipMemsetD32(d + 256, 0x01020304, 16));
    HIP_CHECK(hipMemsetD16(d + 320, 0x0506, 8));
    HIP_CHECK(hipMemsetD8(d + 336, 0x07, 4));
    HIP_CHECK(hipMemcpy(back, d, 340, hipMemcpyDeviceToHost));
    for (int i = 0; i < 256; i++)
        CHECK_EQ((unsigned char)back[i], 0xab);
    uint32_t w;
    memcpy(&w, back + 256 + 4 * 15, 4);
    CHECK_EQ(w, 0x01020304);
    uint16_t hw;
    memcpy(&hw, back + 320 + 14, 2);
    CHECK_EQ(hw, 0x0506);
    CHECK_EQ(back[339], 7);

    /* 2D copies: a 64x32 window at pitch 256 on the device, 100 on the host. */
    enum { W = 64, H = 32, DP = 256, HP = 100 };
    static char src2d[HP * H], dst2d[HP * H];
    for (int i = 0; i < HP * H; i++)
        src2d[i] = (char)(i ^ 0x5a);
    HIP_CHECK(hipMemset(d2, 0, DP * H));
    HIP_CHECK(hipMemcpy2D(d2, DP, src2d, HP, W, H, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy2D(d, DP, d2, DP, W, H, hipMemcpyDeviceToDevice));
    memset(dst2d, 0, sizeof dst2d);
    HIP_CHECK(hipMemcpy2D(dst2d, HP, d, DP, W, H, hipMemcpyDeviceToHost));
    for (int r = 0; r < H; r++)
        CHECK(memcmp(dst2d + r * HP, src2d + r * HP, W) == 0);
    HIP_CHECK(hipMemcpy(back, d2 + DP, 8, hipMemcpyDeviceToHost)); /* row 1 landed at pitch */
    CHECK(memcmp(back, src2d + HP, 8) == 0);
    HIP_EXPECT(hipMemcpy2D(d2, 10, src2d, HP, W, H, hipMemcpyHostToDevice), hipErrorInvalidValue);

    /* Pointer attributes (HIP 6 renamed memoryType to type). */
#if HIP_VERSION_MAJOR >= 6
#define memoryType type
#endif
    hipPointerAttribute_t a;
    HIP_CHECK(hipPointerGetAttributes(&a, d + 5));
    CHECK_EQ(a.memoryType, hipMemoryTypeDevice);
    CHECK(a.devicePointer == d + 5);
    void *start = NULL;
    size_t range = 0;
    HIP_CHECK(hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 77));
    CHECK(start == d);
    HIP_CHECK(hipPointerGetAttribute(&range, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, d + 77));
    CHECK_EQ(range, 1 << 20);
    HIP_EXPECT(hipPointerGetAttributes(&a, h), hipErrorInvalidValue);

    /* Pinned host memory is client memory: copies from it are H2D copies. */
    char *pinned = NULL;
    HIP_CHECK(hipHostMalloc((void **)&pinned, 8192, 0));
    memset(pinned, 0x3c, 8192);
    HIP_CHECK(hipPointerGetAttributes(&a, pinned));
    CHECK_EQ(a.memoryType, hipMemoryTypeHost);
    HIP_CHECK(hipMemcpy(d, pinned, 8192, hipMemcpyDefault));
    HIP_CHECK(hipMemcpy(back, d + 4000, 96, hipMemcpyDefault));
    CHECK_EQ((unsigned char)back[95], 0x3c);
    HIP_CHECK(hipHostFree(pinned));
    HIP_EXPECT(hipHostFree(h), hipErrorInvalidValue);

    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipFree(d2));
    HIP_EXPECT(hipFree(d), hipErrorInvalidValue); /* double free */
    HIP_CHECK(hipFree(NULL));
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemGetInfo(&after, &tot));
    CHECK_EQ(after, before);
}

static void test_streams_events(void)
{
    hipStream_t s1, s2;
    hipEvent_t e0, e1, e2;
    char *d;
    int lo, hi, prio = 99;
    unsigned flags = 99;
    HIP_CHECK(hipMalloc((void **)&d, 1 << 20));
    HIP_CHECK(hipStreamCreate(&s1));
    HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
    HIP_CHECK(hipStreamGetFlags(s2, &flags));
    CHECK_EQ(flags, hipStreamNonBlocking);
    HIP_CHECK(hipDeviceGetStreamPriorityRange(&lo, &hi));
    hipStream_t s3;
    HIP_CHECK(hipStreamCreateWithPriority(&s3, 0, hi - 5));
    HIP_CHECK(hipStreamGetPriority(s3, &prio));
    CHECK_EQ(prio, hi); /* clamped into the range */
    CHECK_EQ(hipGetStreamDeviceId(s3), 0);
    HIP_CHECK(hipStreamDestroy(s3));

    HIP_CHECK(hipEventCreate(&e0));
    HIP_CHECK(hipEventCreateWithFlags(&e1, hipEventDefault));
    HIP_CHECK(hipEventCreateWithFlags(&e2, hipEventDisableTiming));
    static char big[4 << 20];
    memset(big, 0x11, sizeof big);
    char *dbig;
    HIP_CHECK(hipMalloc((void **)&dbig, sizeof big));
    HIP_CHECK(hipEventRecord(e0, s1));
    for (int i = 0; i < 8; i++)
        HIP_CHECK(hipMemcpyAsync(dbig, big, sizeof big, hipMemcpyHostToDevice, s1));
    HIP_CHECK(hipEventRecord(e1, s1));
    /* s2 waits for s1's copies before its own fill. */
    HIP_CHECK(hipStreamWaitEvent(s2, e1, 0));
    HIP_CHECK(hipMemsetAsync(dbig, 0x22, 16, s2));
    HIP_CHECK(hipEventRecord(e2, s2));
    HIP_CHECK(hipEventSynchronize(e2));
    HIP_CHECK(hipEventQuery(e1));
    HIP_CHECK(hipStreamQuery(s1));
    char back[32];
    HIP_CHECK(hipMemcpyAsync(back, dbig, 32, hipMemcpyDeviceToHost, s2));
    HIP_CHECK(hipStreamSynchronize(s2));
    CHECK_EQ(back[0], 0x22);
    CHECK_EQ(back[16], 0x11);
    float ms = -1;
    HIP_CHECK(hipEventElapsedTime(&ms, e0, e1));
    CHECK(ms > 0.0f && ms < 10000.0f);
    HIP_EXPECT(hipEventElapsedTime(&ms, e0, e2), hipErrorInvalidHandle); /* timing disabled */
    HIP_CHECK(hipStreamSynchronize(NULL));
    HIP_CHECK(hipEventDestroy(e0));
    HIP_CHECK(hipEventDestroy(e1));
    HIP_CHECK(hipEventDestroy(e2));
    HIP_CHECK(hipStreamDestroy(s1));
    HIP_CHECK(hipStreamDestroy(s2));
    HIP_CHECK(hipFree(dbig));
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipDeviceSynchronize());
}

static void test_reset(void)
{
    void *p;
    size_t fr0, fr1, tot;
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipMemGetInfo(&fr0, &tot));
    HIP_CHECK(hipMalloc(&p, 4 << 20));
    HIP_CHECK(hipDeviceReset());
    HIP_CHECK(hipMemGetInfo(&fr1, &tot));
    CHECK_EQ(fr1, fr0); /* the reset freed it */
    HIP_EXPECT(hipFree(p), hipErrorInvalidValue);
    HIP_CHECK(hipSetDevice(0));
}

int main(void)
{
    test_device_queries();
    test_memory();
    test_streams_events();
    test_reset();
    printf("device, memory, stream, event, reset API: ok\n");
    return 0;
}
