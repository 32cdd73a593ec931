/*
 * Eight application threads at once, each on its own current device, each
 * doing synchronous and asynchronous work: per-thread device and error state,
 * and replies matched to the right waiter.
 */
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <string.h>

#include "testutil.h"

enum { THREADS = 8, ROUNDS = 200, SIZE = 64 * 1024 };

static hipFunction_t vadd_on[4];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg, dev = id % 4, got = -1;
    HIP_CHECK(hipSetDevice(dev));
    unsigned char *d, *h = malloc(SIZE), *back = malloc(SIZE);
    HIP_CHECK(hipMalloc((void **)&d, SIZE));
    hipPointerAttribute_t a;
    HIP_CHECK(hipPointerGetAttributes(&a, d));
    CHECK_EQ(a.device, dev); /* allocated on this thread's device */
    for (int r = 0; r < ROUNDS; r++) {
        HIP_CHECK(hipGetDevice(&got));
        CHECK_EQ(got, dev);
        memset(h, (id * 31 + r) & 0xff, SIZE);
        HIP_CHECK(hipMemcpy(d, h, SIZE, hipMemcpyHostToDevice));
        HIP_CHECK(hipMemsetD8(d + r, (unsigned char)id, 1));
        HIP_CHECK(hipMemcpy(back, d, SIZE, hipMemcpyDeviceToHost));
        CHECK_EQ(back[r], id);
        CHECK_EQ(back[(r + 1) % SIZE == r ? 0 : r + 1], (id * 31 + r) & 0xff);
        /* Per-thread last error: only this thread sees its own failure. */
        if (r % 50 == 0) {
            HIP_EXPECT(hipSetDevice(99), hipErrorInvalidDevice);
            CHECK_EQ(hipGetLastError(), hipErrorInvalidDevice);
            CHECK_EQ(hipGetLastError(), hipSuccess);
        }
    }
    /* A kernel on this device, from this thread. */
    float *x, *y, *z, hx[256], hz[256];
    int n = 256;
    for (int i = 0; i < n; i++)
        hx[i] = (float)(i + id);
    HIP_CHECK(hipMalloc((void **)&x, sizeof hx));
    HIP_CHECK(hipMalloc((void **)&y, sizeof hx));
    HIP_CHECK(hipMalloc((void **)&z, sizeof hx));
    HIP_CHECK(hipMemcpy(x, hx, sizeof hx, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(y, hx, sizeof hx, hipMemcpyHostToDevice));
    void *args[] = { &x, &y, &z, &n };
    HIP_CHECK(hipModuleLaunchKernel(vadd_on[dev], 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    HIP_CHECK(hipMemcpy(hz, z, sizeof hz, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(hz[i] == 2 * hx[i]);
    HIP_CHECK(hipFree(x));
    HIP_CHECK(hipFree(y));
    HIP_CHECK(hipFree(z));
    HIP_CHECK(hipFree(d));
    free(h);
    free(back);
    return NULL;
}

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels);
    for (int dev = 0; dev < 4; dev++) {
        hipModule_t m;
        HIP_CHECK(hipSetDevice(dev));
        HIP_CHECK(hipModuleLoad(&m, kernels));
        HIP_CHECK(hipModuleGetFunction(&vadd_on[dev], m, "vadd"));
    }
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    int dev = -1;
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 3); /* main's own setting, untouched by the threads */
    HIP_CHECK(hipDeviceSynchronize());
    printf("%d threads x %d rounds on 4 devices: ok\n", THREADS, ROUNDS);
    return 0;
}
