/*
 * hipStreamPerThread and the *_spt variants against a real worker.
 *
 * Each application thread has its own stream behind hipStreamPerThread (not
 * the legacy default stream): a kernel held open by a "gate" on one thread's
 * per-thread stream keeps that stream busy while another thread's stream and
 * the legacy stream are idle. The _spt variants treat the null stream as the
 * calling thread's stream, and move the same bytes as their plain twins.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

static hipFunction_t gate_fn;
static int *d_gate, *d_done; /* device words the gate kernel reads and writes */
static hipStream_t opener;   /* non-blocking: opens the gate past blocked streams */

/* hipGetProcAddress is not declared by every header version. */
typedef hipError_t (*gpa_fn)(const char *, void **, int, uint64_t, int *);

static void *proc(const char *name, uint64_t flags)
{
    void *sym = dlsym(RTLD_DEFAULT, "hipGetProcAddress"), *p = NULL;
    gpa_fn gpa;
    CHECK(sym != NULL);
    memcpy(&gpa, &sym, sizeof sym);
    int status = -1;
    HIP_CHECK(gpa(name, &p, HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR, flags, &status));
    CHECK_EQ(status, 0);
    return p;
}

static void launch_gate(hipStream_t s)
{
    void *args[] = { &d_gate, &d_done };
    HIP_CHECK(hipModuleLaunchKernel(gate_fn, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

static void set_word(int *d, int v)
{
    HIP_CHECK(hipMemcpyAsync(d, &v, sizeof v, hipMemcpyHostToDevice, opener));
    HIP_CHECK(hipStreamSynchronize(opener));
}

static int read_word(int *d)
{
    int v = -1;
    HIP_CHECK(hipMemcpyAsync(&v, d, sizeof v, hipMemcpyDeviceToHost, opener));
    HIP_CHECK(hipStreamSynchronize(opener));
    return v;
}

/* Thread A: holds its per-thread stream busy until main opens the gate. */
static volatile int a_launched, a_may_finish;

static void *thread_a(void *arg)
{
    (void)arg;
    launch_gate(hipStreamPerThread);
    HIP_EXPECT(hipStreamQuery(hipStreamPerThread), hipErrorNotReady);
    __atomic_store_n(&a_launched, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&a_may_finish, __ATOMIC_ACQUIRE))
        ;
    HIP_CHECK(hipStreamSynchronize(hipStreamPerThread));
    CHECK_EQ(read_word(d_done), 1);
    return NULL; /* thread exit destroys its per-thread stream */
}

static void per_thread_streams_are_distinct(void)
{
    set_word(d_gate, 0);
    set_word(d_done, 0);
    pthread_t a;
    CHECK(pthread_create(&a, NULL, thread_a, NULL) == 0);
    while (!__atomic_load_n(&a_launched, __ATOMIC_ACQUIRE))
        ;
    /* A's stream is busy; this thread's own stream and the legacy stream are not. */
    HIP_CHECK(hipStreamQuery(hipStreamPerThread));
    HIP_CHECK(hipStreamQuery(NULL));
    CHECK_EQ(read_word(d_done), 0);
    set_word(d_gate, 1);
    __atomic_store_n(&a_may_finish, 1, __ATOMIC_RELEASE);
    pthread_join(a, NULL);
    unsigned flags = 99;
    int prio = 99;
    HIP_CHECK(hipStreamGetFlags(hipStreamPerThread, &flags));
    HIP_CHECK(hipStreamGetPriority(hipStreamPerThread, &prio));
    CHECK_EQ(flags, hipStreamDefault);
    CHECK_EQ(prio, 0);
    HIP_EXPECT(hipStreamDestroy(hipStreamPerThread), hipErrorInvalidHandle);
    CHECK_EQ(hipGetLastError(), hipErrorInvalidHandle);
}

/* Under the _spt variants the null stream is this thread's stream. */
static void spt_null_is_per_thread(void)
{
    set_word(d_gate, 0);
    set_word(d_done, 0);
    launch_gate(hipStreamPerThread);
    HIP_EXPECT(hipStreamQuery_spt(NULL), hipErrorNotReady);
    HIP_CHECK(hipStreamQuery(NULL)); /* the legacy stream has nothing queued */
    set_word(d_gate, 1);
    HIP_CHECK(hipStreamSynchronize_spt(NULL));
    CHECK_EQ(read_word(d_done), 1);
    HIP_CHECK(hipStreamQuery_spt(NULL));
}

/* The variants move the same bytes as the plain calls. */
static void spt_copies(void)
{
    enum { W = 64, H = 16, N = W * H };
    unsigned char src[N], back[N], *d, *d2;
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    HIP_CHECK(hipMalloc((void **)&d, N));
    HIP_CHECK(hipMalloc((void **)&d2, N));
    HIP_CHECK(hipMemcpy_spt(d, src, N, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset_spt(d2, 0xab, N));
    HIP_CHECK(hipMemcpyAsync_spt(d2, d, N / 2, hipMemcpyDeviceToDevice, NULL));
    HIP_CHECK(hipStreamSynchronize_spt(NULL));
    HIP_CHECK(hipMemcpy_spt(back, d2, N, hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK_EQ(back[i], i < N / 2 ? src[i] : 0xab);
    /* 2D: every other row of src into d, packed rows back out. */
    HIP_CHECK(hipMemcpy2D_spt(d, W, src, 2 * W, W, H / 2, hipMemcpyHostToDevice));
    memset(back, 0, sizeof back);
    HIP_CHECK(hipMemcpy2D_spt(back, W, d, W, W, H / 2, hipMemcpyDeviceToHost));
    for (int r = 0; r < H / 2; r++)
        CHECK(memcmp(back + r * W, src + 2 * r * W, W) == 0);
    /* Variants not declared by every header, through hipGetProcAddress with
     * the per-thread flag: it picks the _spt symbol, except under HIP 6.1/6.2
     * headers, whose hipGetProcAddress ignores flags. */
    hipError_t (*memset_async)(void *, int, size_t, hipStream_t);
    hipError_t (*event_record)(hipEvent_t, hipStream_t);
    void *p = dlsym(RTLD_DEFAULT, "hipMemsetAsync_spt"),
         *q = dlsym(RTLD_DEFAULT, "hipEventRecord_spt");
    int flags_ignored = HIP_VERSION_MAJOR == 6;
    CHECK(proc("hipMemsetAsync", 2) == (flags_ignored ? dlsym(RTLD_DEFAULT, "hipMemsetAsync") : p));
    CHECK(proc("hipEventRecord", 2) == (flags_ignored ? dlsym(RTLD_DEFAULT, "hipEventRecord") : q));
    memcpy(&memset_async, &p, sizeof p);
    memcpy(&event_record, &q, sizeof q);
    hipEvent_t ev;
    HIP_CHECK(hipEventCreate(&ev));
    HIP_CHECK(memset_async(d, 0x5a, N, NULL));
    HIP_CHECK(event_record(ev, NULL));
    HIP_CHECK(hipStreamWaitEvent_spt(opener, ev, 0));
    HIP_CHECK(hipMemcpyAsync(back, d, N, hipMemcpyDeviceToHost, opener));
    HIP_CHECK(hipStreamSynchronize(opener));
    for (int i = 0; i < N; i++)
        CHECK_EQ(back[i], 0x5a);
    HIP_CHECK(hipEventSynchronize(ev));
    HIP_CHECK(hipEventDestroy(ev));
    /* A variant whose plain twin is not implemented fails the same way. */
    struct hipMemcpy3DParms p3;
    memset(&p3, 0, sizeof p3);
    HIP_EXPECT(hipMemcpy3D_spt(&p3), hipMemcpy3D(&p3));
    (void)hipGetLastError();
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipFree(d2));
}

/* Many short-lived threads: each creates and, at exit, destroys its stream. */
static void *short_lived(void *arg)
{
    unsigned char *d = arg, v = 0;
    HIP_CHECK(hipMemsetAsync(d, 7, 1, hipStreamPerThread));
    HIP_CHECK(hipMemcpyAsync(&v, d, 1, hipMemcpyDeviceToHost, hipStreamPerThread));
    HIP_CHECK(hipStreamSynchronize(hipStreamPerThread));
    CHECK_EQ(v, 7);
    return NULL;
}

static void thread_churn(void)
{
    unsigned char *d;
    HIP_CHECK(hipMalloc((void **)&d, 64));
    for (int round = 0; round < 8; round++) {
        pthread_t t[16];
        for (int i = 0; i < 16; i++)
            CHECK(pthread_create(&t[i], NULL, short_lived, d + i) == 0);
        for (int i = 0; i < 16; i++)
            pthread_join(t[i], NULL);
    }
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipFree(d));
}

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels);
    hipModule_t m;
    HIP_CHECK(hipModuleLoad(&m, kernels));
    HIP_CHECK(hipModuleGetFunction(&gate_fn, m, "gate"));
    HIP_CHECK(hipMalloc((void **)&d_gate, sizeof(int)));
    HIP_CHECK(hipMalloc((void **)&d_done, sizeof(int)));
    HIP_CHECK(hipStreamCreateWithFlags(&opener, hipStreamNonBlocking));
    per_thread_streams_are_distinct();
    spt_null_is_per_thread();
    spt_copies();
    thread_churn();
    HIP_CHECK(hipStreamDestroy(opener));
    HIP_CHECK(hipDeviceSynchronize());
    CHECK_EQ(hipGetLastError(), hipSuccess);
    puts("per-thread streams: ok");
    return 0;
}
