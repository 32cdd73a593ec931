/*
 * Application misuse of stream, event, module and function handles: double
 * destroys, destroyed and made-up handles, handles of the wrong kind, and
 * invalid flags and arguments. Each gets AMD's error code (hip-tests'
 * expectations) and none may crash or touch freed memory (the ASan pass
 * runs this too).
 */
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* What hip-tests pass as an uninitialised stream. */
#define BOGUS_STREAM   ((hipStream_t)(uintptr_t)0xFFFF)
#define BOGUS_EVENT    ((hipEvent_t)(uintptr_t)0xFFFF)
#define BOGUS_MODULE   ((hipModule_t)(uintptr_t)0xFFFF)
#define BOGUS_FUNCTION ((hipFunction_t)(uintptr_t)0xFFFF)

/* AMD's HIP 6 folds hipStreamWaitEvent's stream check into the event's. */
#if HIP_VERSION_MAJOR >= 6
#define WAIT_BAD_STREAM hipErrorInvalidHandle
#else
#define WAIT_BAD_STREAM hipErrorContextIsDestroyed
#endif

/* Declared only by newer headers; the proxy exports them whatever it was built against. */
hipError_t hipStreamQuery_spt(hipStream_t stream);
hipError_t hipStreamGetFlags_spt(hipStream_t stream, unsigned int *flags);

/* A destroyed handle. Use it before creating another of its kind: the
 * allocator may hand its memory to the next one, which then is that
 * handle (AMD's runtime is no different). */
static hipStream_t dead_stream(void)
{
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipStreamDestroy(s));
    return s;
}

static hipEvent_t dead_event(void)
{
    hipEvent_t e;
    HIP_CHECK(hipEventCreate(&e));
    HIP_CHECK(hipEventDestroy(e));
    return e;
}

static void streams(void)
{
    hipStream_t s = BOGUS_STREAM;
    HIP_EXPECT(hipStreamCreate(NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamCreateWithFlags(NULL, hipStreamDefault), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamCreateWithFlags(&s, 0xFF), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamCreateWithPriority(&s, 0xffffffffu, 0), hipErrorInvalidValue);
    CHECK(s == BOGUS_STREAM); /* out-parameter untouched on failure */

    /* Destroying twice; NULL and the per-thread stream cannot be destroyed. */
    hipStream_t d = dead_stream();
    HIP_EXPECT(hipStreamDestroy(d), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipStreamDestroy(NULL), hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipStreamDestroy(hipStreamPerThread), hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipStreamDestroy(BOGUS_STREAM), hipErrorContextIsDestroyed);

    /* Destroyed, made-up, and an event passed as a stream. */
    hipEvent_t e;
    HIP_CHECK(hipEventCreate(&e));
    hipStream_t bad[] = { d, BOGUS_STREAM, (hipStream_t)e };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned flags;
        int prio;
        HIP_EXPECT(hipStreamQuery(bad[i]), hipErrorContextIsDestroyed);
        HIP_EXPECT(hipStreamSynchronize(bad[i]), hipErrorContextIsDestroyed);
        HIP_EXPECT(hipStreamQuery_spt(bad[i]), hipErrorContextIsDestroyed);
        HIP_EXPECT(hipStreamWaitEvent(bad[i], e, 0), WAIT_BAD_STREAM);
        HIP_EXPECT(hipStreamGetFlags(bad[i], &flags), hipErrorContextIsDestroyed);
        HIP_EXPECT(hipStreamGetPriority(bad[i], &prio), hipErrorContextIsDestroyed);
        HIP_EXPECT(hipEventRecord(e, bad[i]), hipErrorContextIsDestroyed);
        CHECK_EQ(hipGetStreamDeviceId(bad[i]), -1);
    }

    /* hipStreamWaitEvent's own arguments, on every kind of stream. */
    hipStream_t created;
    HIP_CHECK(hipStreamCreate(&created));
    hipStream_t good[] = { NULL, hipStreamPerThread, created };
    for (size_t i = 0; i < 3; i++) {
        HIP_EXPECT(hipStreamWaitEvent(good[i], NULL, 0), hipErrorInvalidResourceHandle);
        HIP_EXPECT(hipStreamWaitEvent(good[i], e, ~0u), hipErrorInvalidValue);
        HIP_EXPECT(hipStreamWaitEvent(good[i], dead_event(), 0), hipErrorInvalidHandle);
        HIP_CHECK(hipStreamWaitEvent(good[i], e, 0));
    }

    /* AMD refuses the null stream in hipStreamGetFlags, not the per-thread one. */
    unsigned flags = 7;
    int prio = 7;
    HIP_EXPECT(hipStreamGetFlags(NULL, &flags), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamGetFlags(created, NULL), hipErrorInvalidValue);
    HIP_CHECK(hipStreamGetFlags(hipStreamPerThread, &flags));
    CHECK_EQ(flags, hipStreamDefault);
    HIP_CHECK(hipStreamGetFlags_spt(NULL, &flags));
    HIP_EXPECT(hipStreamGetPriority(NULL, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamGetPriority(created, NULL), hipErrorInvalidValue);
    HIP_CHECK(hipStreamGetPriority(NULL, &prio));
    CHECK_EQ(prio, 0);

    HIP_CHECK(hipStreamSynchronize(created));
    HIP_CHECK(hipStreamDestroy(created));
    HIP_CHECK(hipEventDestroy(e));
}

/* Capture and graph calls that name a stream or an event never read a
 * destroyed or made-up one. */
static void capture_and_graph_handles(void)
{
    hipGraph_t g = NULL;
    hipStreamCaptureStatus st;
    hipStream_t bad[] = { dead_stream(), BOGUS_STREAM };
    for (int i = 0; i < 2; i++) {
        HIP_EXPECT(hipStreamBeginCapture(bad[i], hipStreamCaptureModeGlobal),
                   hipErrorContextIsDestroyed);
        HIP_EXPECT(hipStreamEndCapture(bad[i], &g), hipErrorContextIsDestroyed);
        HIP_EXPECT(hipStreamIsCapturing(bad[i], &st), hipErrorContextIsDestroyed);
        HIP_EXPECT(
            hipStreamUpdateCaptureDependencies(bad[i], NULL, 0, hipStreamAddCaptureDependencies),
            hipErrorContextIsDestroyed);
    }
    CHECK(g == NULL);
    hipEvent_t dead = dead_event();
    HIP_CHECK(hipGraphCreate(&g, 0));
    hipGraphNode_t n = NULL;
    HIP_EXPECT(hipGraphAddEventRecordNode(&n, g, NULL, 0, dead), hipErrorInvalidValue);
    HIP_EXPECT(hipGraphAddEventWaitNode(&n, g, NULL, 0, (hipEvent_t)0xFFFF), hipErrorInvalidValue);
    CHECK(n == NULL);
    HIP_CHECK(hipGraphDestroy(g));
    (void)hipGetLastError();
}

static void copies_on_bad_streams(void)
{
    enum { N = 256 };
    char host[N] = { 1 }, back[N];
    void *dev;
    HIP_CHECK(hipMalloc(&dev, N));
    hipStream_t bad[] = { dead_stream(), BOGUS_STREAM };
    for (size_t i = 0; i < 2; i++) {
        HIP_EXPECT(hipMemcpyAsync(dev, host, N, hipMemcpyHostToDevice, bad[i]),
                   hipErrorContextIsDestroyed);
        HIP_EXPECT(hipMemcpyAsync(back, dev, N, hipMemcpyDeviceToHost, bad[i]),
                   hipErrorContextIsDestroyed);
        HIP_EXPECT(hipMemsetAsync(dev, 0, N, bad[i]), hipErrorContextIsDestroyed);
        HIP_EXPECT(hipMemcpy2DAsync(dev, 16, host, 16, 16, 4, hipMemcpyHostToDevice, bad[i]),
                   hipErrorContextIsDestroyed);
    }
    /* Nothing went to the worker: the device is clean and still works. */
    HIP_CHECK(hipMemcpy(dev, host, N, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(back, dev, N, hipMemcpyDeviceToHost));
    CHECK_EQ(back[0], 1);
    HIP_CHECK(hipFree(dev));
}

static void events(int ndev)
{
    hipEvent_t e = BOGUS_EVENT;
    HIP_EXPECT(hipEventCreate(NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipEventCreateWithFlags(NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipEventCreateWithFlags(&e, hipEventInterprocess), hipErrorInvalidValue);
    HIP_EXPECT(hipEventCreateWithFlags(&e, hipEventReleaseToDevice | hipEventReleaseToSystem),
               hipErrorInvalidValue);
    HIP_EXPECT(hipEventCreateWithFlags(&e, hipEventReleaseToDevice | hipEventReleaseToSystem |
                                               hipEventBlockingSync | hipEventDisableTiming |
                                               hipEventInterprocess),
               hipErrorInvalidValue);
    HIP_EXPECT(hipEventCreateWithFlags(&e, 0x08000000), hipErrorInvalidValue);
    CHECK(e == BOGUS_EVENT);
    HIP_CHECK(hipEventCreateWithFlags(&e, hipEventInterprocess | hipEventDisableTiming));
    HIP_CHECK(hipEventDestroy(e));
    HIP_CHECK(hipEventCreateWithFlags(&e, hipEventReleaseToSystem | hipEventBlockingSync));
    HIP_CHECK(hipEventDestroy(e));

    /* Destroying twice; NULL. */
    hipEvent_t d = dead_event();
    HIP_EXPECT(hipEventDestroy(d), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipEventDestroy(NULL), hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipEventDestroy(BOGUS_EVENT), hipErrorContextIsDestroyed);

    /* Destroyed, made-up, a stream passed as an event, and NULL. */
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    hipEvent_t bad[] = { d, BOGUS_EVENT, (hipEvent_t)s, NULL };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        HIP_EXPECT(hipEventRecord(bad[i], NULL), hipErrorInvalidResourceHandle);
        HIP_EXPECT(hipEventRecord(bad[i], s), hipErrorInvalidResourceHandle);
        HIP_EXPECT(hipEventQuery(bad[i]), hipErrorInvalidHandle);
        HIP_EXPECT(hipEventSynchronize(bad[i]), hipErrorInvalidHandle);
    }

    /* Elapsed time: NULL arguments, untimed, unrecorded, unfinished. */
    hipEvent_t a, b, ua, ub;
    float ms = -1;
    HIP_CHECK(hipEventCreate(&a));
    HIP_CHECK(hipEventCreate(&b));
    HIP_EXPECT(hipEventElapsedTime(NULL, a, b), hipErrorInvalidValue);
    HIP_EXPECT(hipEventElapsedTime(NULL, NULL, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipEventElapsedTime(&ms, NULL, b), hipErrorInvalidHandle);
    HIP_EXPECT(hipEventElapsedTime(&ms, a, NULL), hipErrorInvalidHandle);
    HIP_EXPECT(hipEventElapsedTime(&ms, dead_event(), b), hipErrorInvalidHandle);
    HIP_EXPECT(hipEventElapsedTime(&ms, a, BOGUS_EVENT), hipErrorInvalidHandle);
    HIP_EXPECT(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle); /* never recorded */
    HIP_CHECK(hipEventCreateWithFlags(&ua, hipEventDisableTiming));
    HIP_CHECK(hipEventCreateWithFlags(&ub, hipEventDisableTiming));
    HIP_CHECK(hipEventRecord(ua, s));
    HIP_CHECK(hipEventRecord(ub, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_EXPECT(hipEventElapsedTime(&ms, ua, ub), hipErrorInvalidHandle);
    HIP_CHECK(hipEventRecord(a, s));
    HIP_EXPECT(hipEventElapsedTime(&ms, a, ua), hipErrorInvalidHandle);
    HIP_CHECK(hipEventRecord(b, s));
    HIP_CHECK(hipEventSynchronize(b));
    CHECK(ms == -1); /* untouched by the failures */
    HIP_CHECK(hipEventElapsedTime(&ms, a, b));
    CHECK(ms >= 0);

    /* Events of two devices: recording on another device's stream, and
     * timing across devices. */
    if (ndev >= 2) {
        hipEvent_t on1;
        hipStream_t s1;
        HIP_CHECK(hipSetDevice(1));
        HIP_EXPECT(hipEventRecord(a, NULL), hipErrorInvalidHandle);
        HIP_CHECK(hipEventCreate(&on1));
        HIP_CHECK(hipStreamCreate(&s1));
        HIP_CHECK(hipEventRecord(on1, NULL));
        HIP_CHECK(hipEventSynchronize(on1));
        HIP_CHECK(hipSetDevice(0));
        HIP_EXPECT(hipEventRecord(on1, s), hipErrorInvalidHandle);
        HIP_EXPECT(hipEventRecord(a, s1), hipErrorInvalidHandle);
        HIP_EXPECT(hipEventElapsedTime(&ms, a, on1), hipErrorInvalidHandle);
        HIP_EXPECT(hipEventElapsedTime(&ms, on1, b), hipErrorInvalidHandle);
        HIP_CHECK(hipStreamDestroy(s1));
        HIP_CHECK(hipEventDestroy(on1));
    }

    hipEvent_t all[] = { a, b, ua, ub };
    for (size_t i = 0; i < 4; i++)
        HIP_CHECK(hipEventDestroy(all[i]));
    HIP_CHECK(hipStreamDestroy(s));
}

static void modules(void)
{
    const char *path = getenv("HIPWIRE_KERNELS");
    CHECK(path != NULL);
    hipModule_t m = BOGUS_MODULE;
    HIP_EXPECT(hipModuleLoad(NULL, path), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleLoad(&m, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleLoad(&m, ""), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleLoad(&m, "non existent file"), hipErrorFileNotFound);
    CHECK(m == BOGUS_MODULE);

    HIP_CHECK(hipModuleLoad(&m, path));
    hipFunction_t f = NULL;
    hipDeviceptr_t g = 0;
    size_t gsize = 0;
    HIP_EXPECT(hipModuleGetFunction(NULL, m, "vadd"), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleGetFunction(&f, m, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleGetFunction(&f, m, ""), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleGetFunction(&f, NULL, "vadd"), hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipModuleGetFunction(&f, BOGUS_MODULE, "vadd"), hipErrorNotFound);
    HIP_EXPECT(hipModuleGetGlobal(NULL, NULL, m, "hw_global_table"), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleGetGlobal(&g, &gsize, m, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleGetGlobal(&g, &gsize, m, ""), hipErrorInvalidValue);
    HIP_EXPECT(hipModuleGetGlobal(&g, &gsize, NULL, "hw_global_table"),
               hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipModuleGetGlobal(&g, &gsize, BOGUS_MODULE, "hw_global_table"), hipErrorNotFound);
    HIP_CHECK(hipModuleGetGlobal(NULL, &gsize, m, "hw_global_table"));
    CHECK(gsize > 0);
    HIP_CHECK(hipModuleGetFunction(&f, m, "vadd"));

    /* Module launches: a zero dimension is hipErrorInvalidValue (AMD). */
    float *a;
    int n = 16;
    HIP_CHECK(hipMalloc((void **)&a, 64));
    void *args[] = { &a, &a, &a, &n };
    for (int i = 0; i < 6; i++) {
        unsigned d[6] = { 1, 1, 1, 16, 1, 1 };
        d[i] = 0;
        HIP_EXPECT(
            hipModuleLaunchKernel(f, d[0], d[1], d[2], d[3], d[4], d[5], 0, NULL, args, NULL),
            hipErrorInvalidValue);
    }
    struct {
        float *a, *b, *c;
        int n;
    } packed = { a, a, a, n };
    size_t size = sizeof packed;
    void *extra[] = { HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      HIP_LAUNCH_PARAM_END };
    HIP_EXPECT(hipModuleLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, args, extra),
               hipErrorInvalidValue);
    HIP_EXPECT(hipModuleLaunchKernel(BOGUS_FUNCTION, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL),
               hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipModuleLaunchKernel((hipFunction_t)m, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL),
               hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipModuleLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, dead_stream(), args, NULL),
               hipErrorContextIsDestroyed);
    HIP_EXPECT(hipModuleLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, BOGUS_STREAM, args, NULL),
               hipErrorContextIsDestroyed);
    extern hipError_t hipExtModuleLaunchKernel(hipFunction_t, uint32_t, uint32_t, uint32_t,
                                               uint32_t, uint32_t, uint32_t, size_t, hipStream_t,
                                               void **, void **, hipEvent_t, hipEvent_t, uint32_t);
    HIP_EXPECT(hipExtModuleLaunchKernel(f, 0, 1, 1, 16, 1, 1, 0, NULL, args, NULL, NULL, NULL, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipExtModuleLaunchKernel(f, 16, 1, 1, 0, 1, 1, 0, NULL, args, NULL, NULL, NULL, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(
        hipExtModuleLaunchKernel(f, 16, 1, 1, 16, 1, 1, 0, NULL, args, NULL, dead_event(), NULL, 0),
        hipErrorInvalidHandle);
    HIP_EXPECT(
        hipExtModuleLaunchKernel(f, 16, 1, 1, 16, 1, 1, 0, NULL, args, NULL, NULL, BOGUS_EVENT, 0),
        hipErrorInvalidHandle);
    int value;
    HIP_EXPECT(hipFuncGetAttribute(&value, HIP_FUNC_ATTRIBUTE_NUM_REGS, BOGUS_FUNCTION),
               hipErrorInvalidResourceHandle);
    HIP_EXPECT(hipFuncGetAttribute(&value, HIP_FUNC_ATTRIBUTE_NUM_REGS, NULL),
               hipErrorInvalidResourceHandle);

    /* The valid launch still runs. */
    HIP_CHECK(hipModuleLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    HIP_CHECK(hipDeviceSynchronize());

    /* Unloading twice; every use of the unloaded module after. */
    HIP_EXPECT(hipModuleUnload(NULL), hipErrorInvalidResourceHandle);
    HIP_CHECK(hipModuleUnload(m));
    HIP_EXPECT(hipModuleUnload(m), hipErrorNotFound);
    HIP_EXPECT(hipModuleUnload(BOGUS_MODULE), hipErrorNotFound);
    HIP_EXPECT(hipModuleGetFunction(&f, m, "vadd"), hipErrorNotFound);
    HIP_EXPECT(hipModuleGetGlobal(&g, &gsize, m, "hw_global_table"), hipErrorNotFound);
    HIP_EXPECT(hipModuleLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL),
               hipErrorInvalidResourceHandle);
    HIP_CHECK(hipFree(a));
}

/* What hipcc's module constructor does, by hand: the CPU device's kernel
 * library registered as a fat binary, its "vadd" behind a host stub. */
void **__hipRegisterFatBinary(const void *data);
void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize);
void __hipUnregisterFatBinary(void **modules);
/* hip_ext.h declares it for C++ only. */
hipError_t hipExtLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                              void **args, size_t sharedMemBytes, hipStream_t stream,
                              hipEvent_t startEvent, hipEvent_t stopEvent, int flags);

static void vadd_stub(void) {}

static void *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    CHECK(fseek(f, 0, SEEK_END) == 0);
    long size = ftell(f);
    CHECK(size > 0 && fseek(f, 0, SEEK_SET) == 0);
    /* NUL-terminated: on a GPU the kernels are PTX text. */
    char *p = calloc(1, (size_t)size + 1);
    CHECK(p != NULL && fread(p, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    return p;
}

static void stub_launches(void)
{
    const char *image = read_file(getenv("HIPWIRE_KERNELS"));
    /* A fat binary wraps an offload bundle; the CPU kernels (an ELF .so)
     * pass as one code object, a GPU's PTX text does not, so on a GPU only
     * the refusals below run (they come before the image is looked at). */
    int runnable = memcmp(image,
                          "\x7f"
                          "ELF",
                          4) == 0;
    struct {
        uint32_t magic, version;
        const void *binary, *unused;
    } wrapper = { 0x48495046u, 1, image, NULL };
    void **fb = __hipRegisterFatBinary(&wrapper);
    CHECK(fb != NULL);
    __hipRegisterFunction(fb, (const void *)vadd_stub, "vadd", "vadd", 0, NULL, NULL, NULL, NULL,
                          NULL);
    const void *k = (const void *)vadd_stub;
    float *a;
    int n = 16;
    HIP_CHECK(hipMalloc((void **)&a, 64));
    void *args[] = { &a, &a, &a, &n };
    dim3 one = { 1, 1, 1 }, block = { 16, 1, 1 }, zero_x = { 0, 1, 1 };
    hipStream_t dead = dead_stream();
    hipEvent_t start, stop;
    HIP_CHECK(hipEventCreate(&start));
    HIP_CHECK(hipEventCreate(&stop));

    HIP_EXPECT(hipLaunchKernel(k, one, block, args, 0, dead), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipLaunchKernel(k, one, block, args, 0, BOGUS_STREAM), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipLaunchCooperativeKernel(k, one, block, args, 0, dead),
               hipErrorContextIsDestroyed);
    HIP_EXPECT(hipLaunchKernel(k, zero_x, block, args, 0, NULL), hipErrorInvalidConfiguration);
    HIP_EXPECT(hipLaunchKernel(k, one, zero_x, args, 0, NULL), hipErrorInvalidConfiguration);

    /* hipExtLaunchKernel: AMD's hipErrorInvalidValue for each of these. */
    HIP_EXPECT(hipExtLaunchKernel(NULL, one, block, args, 0, NULL, NULL, NULL, 0),
               hipErrorInvalidDeviceFunction);
    HIP_EXPECT(hipExtLaunchKernel(k, zero_x, block, args, 0, NULL, NULL, NULL, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipExtLaunchKernel(k, one, zero_x, args, 0, NULL, NULL, NULL, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipExtLaunchKernel(k, one, block, args, 0, dead, NULL, NULL, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipExtLaunchKernel(k, one, block, args, 0, NULL, dead_event(), NULL, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipExtLaunchKernel(k, one, block, args, 0, NULL, NULL, BOGUS_EVENT, 0),
               hipErrorInvalidValue);

    /* The valid forms run, events and all. */
    hipStream_t s;
    float ms = -1;
    if (!runnable) {
        printf("handles: valid stub launches skipped (the kernels are not a code object "
               "a fat binary can carry here)\n");
        HIP_CHECK(hipEventDestroy(start));
        HIP_CHECK(hipEventDestroy(stop));
        HIP_CHECK(hipFree(a));
        __hipUnregisterFatBinary(fb);
        free((void *)wrapper.binary);
        return;
    }
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipLaunchKernel(k, one, block, args, 0, s));
    HIP_CHECK(hipExtLaunchKernel(k, one, block, args, 0, s, start, stop, 0));
    HIP_CHECK(hipEventSynchronize(stop));
    HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0);
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipEventDestroy(start));
    HIP_CHECK(hipEventDestroy(stop));
    HIP_CHECK(hipFree(a));
    __hipUnregisterFatBinary(fb);
    free((void *)wrapper.binary);
}

/* Two threads destroying the same handles at once: exactly one wins each
 * time, the other gets AMD's code, and nothing is freed twice. */
struct race {
    hipStream_t s;
    hipEvent_t e;
    pthread_barrier_t *go;
    int won_s, won_e;
};

static void *racer(void *arg)
{
    struct race *r = arg;
    pthread_barrier_wait(r->go);
    hipError_t es = hipStreamDestroy(r->s);
    hipError_t ee = hipEventDestroy(r->e);
    CHECK(es == hipSuccess || es == hipErrorContextIsDestroyed);
    CHECK(ee == hipSuccess || ee == hipErrorContextIsDestroyed);
    r->won_s = es == hipSuccess;
    r->won_e = ee == hipSuccess;
    return NULL;
}

static void destroy_races(void)
{
    for (int i = 0; i < 100; i++) {
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        hipStream_t s;
        hipEvent_t e;
        HIP_CHECK(hipStreamCreate(&s));
        HIP_CHECK(hipEventCreate(&e));
        struct race r[2] = { { s, e, &go, 0, 0 }, { s, e, &go, 0, 0 } };
        pthread_t t[2];
        for (int k = 0; k < 2; k++)
            CHECK(pthread_create(&t[k], NULL, racer, &r[k]) == 0);
        for (int k = 0; k < 2; k++)
            pthread_join(t[k], NULL);
        pthread_barrier_destroy(&go);
        CHECK_EQ(r[0].won_s + r[1].won_s, 1);
        CHECK_EQ(r[0].won_e + r[1].won_e, 1);
    }
}

/* argv[1]: the devices the worker must have (the cross-device cases need
 * two; the GPU run has one; default 1). */
int main(int argc, char **argv)
{
    int ndev = 0;
    HIP_CHECK(hipGetDeviceCount(&ndev));
    CHECK(ndev >= (argc > 1 ? atoi(argv[1]) : 1));
    streams();
    copies_on_bad_streams();
    capture_and_graph_handles();
    events(ndev);
    modules();
    stub_launches();
    destroy_races();
    /* None of the refused calls reached the worker as work that fails later. */
    HIP_CHECK(hipDeviceSynchronize());
    printf("handles: ok\n");
    return 0;
}
