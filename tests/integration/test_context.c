/*
 * Contexts as AMD's runtime has them: one per device, a per-thread stack,
 * and making a context current makes its device current (work then lands
 * there). The primary-context family, the hip-tests DriverContext pattern
 * (retain, push, work, pop, release), and bad handles getting error codes.
 */
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdint.h>

#include "testutil.h"

static int device_of_new_allocation(void)
{
    void *p = NULL;
    hipPointerAttribute_t a;
    HIP_CHECK(hipMalloc(&p, 4096));
    HIP_CHECK(hipPointerGetAttributes(&a, p));
    HIP_CHECK(hipFree(p));
    return a.device;
}

static void *other_thread(void *arg)
{
    hipCtx_t ctx = NULL, *ctx1 = arg;
    int dev = -1;
    /* The stack is per thread: this one's is empty. */
    HIP_EXPECT(hipCtxPopCurrent(&ctx), hipErrorInvalidContext);
    HIP_CHECK(hipCtxGetDevice(&dev));
    CHECK_EQ(dev, 0);
    HIP_CHECK(hipCtxPushCurrent(*ctx1));
    CHECK_EQ(device_of_new_allocation(), 1);
    HIP_CHECK(hipCtxPopCurrent(&ctx));
    CHECK(ctx == *ctx1);
    return NULL;
}

int main(void)
{
    int n = 0, dev = -1, active = -1;
    unsigned flags = 99;
    HIP_CHECK(hipGetDeviceCount(&n));
    CHECK(n >= 2);
    hipCtx_t p0 = NULL, p1 = NULL, ctx = NULL, cur = NULL;

    /* Primary contexts. */
    HIP_EXPECT(hipDevicePrimaryCtxRetain(NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipDevicePrimaryCtxRetain(&p0, n), hipErrorInvalidDevice);
    HIP_EXPECT(hipDevicePrimaryCtxRetain(&p0, -1), hipErrorInvalidDevice);
    HIP_CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK_EQ(flags, 0);
    CHECK_EQ(active, 0);
    HIP_CHECK(hipDevicePrimaryCtxRetain(&p0, 0));
    HIP_CHECK(hipDevicePrimaryCtxRetain(&p1, 1));
    CHECK(p0 != NULL && p1 != NULL && p0 != p1);
    HIP_CHECK(hipDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(ctx == p0); /* one context per device */
    HIP_CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK_EQ(active, 1);
    HIP_CHECK(hipDevicePrimaryCtxRelease(0));
    HIP_CHECK(hipDevicePrimaryCtxRelease(0));
    HIP_CHECK(hipDevicePrimaryCtxGetState(0, NULL, &active));
    CHECK_EQ(active, 0);
    HIP_EXPECT(hipDevicePrimaryCtxGetState(n, &flags, &active), hipErrorInvalidDevice);
    HIP_EXPECT(hipDevicePrimaryCtxRelease(n), hipErrorInvalidDevice);
    HIP_EXPECT(hipDevicePrimaryCtxSetFlags(0, hipDeviceScheduleYield), hipErrorContextAlreadyInUse);
    HIP_EXPECT(hipDevicePrimaryCtxSetFlags(n, 0), hipErrorInvalidDevice);
    HIP_CHECK(hipDevicePrimaryCtxReset(1));
    HIP_EXPECT(hipDevicePrimaryCtxReset(n), hipErrorInvalidDevice);

    /* The stack: push makes current, pop returns to what is below. */
    HIP_EXPECT(hipCtxPopCurrent(&ctx), hipErrorInvalidContext);
    HIP_CHECK(hipCtxGetCurrent(&cur));
    CHECK(cur == p0);
    HIP_CHECK(hipCtxPushCurrent(p1));
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 1);
    HIP_CHECK(hipCtxGetCurrent(&cur));
    CHECK(cur == p1);
    CHECK_EQ(device_of_new_allocation(), 1);
    HIP_CHECK(hipCtxPushCurrent(p0));
    HIP_CHECK(hipCtxGetDevice(&dev));
    CHECK_EQ(dev, 0);
    CHECK_EQ(device_of_new_allocation(), 0);
    HIP_CHECK(hipCtxPopCurrent(&ctx));
    CHECK(ctx == p0);
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 1);
    HIP_CHECK(hipCtxPopCurrent(NULL));
    HIP_EXPECT(hipCtxPopCurrent(NULL), hipErrorInvalidContext);

    /* SetCurrent replaces the top; NULL pops it. */
    HIP_CHECK(hipCtxSetCurrent(p1));
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 1);
    HIP_CHECK(hipCtxSetCurrent(p0));
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 0);
    HIP_CHECK(hipCtxSetCurrent(NULL));
    HIP_EXPECT(hipCtxPopCurrent(NULL), hipErrorInvalidContext);

    /* hipCtxCreate pushes the device's context with its flags. */
    hipCtx_t made = NULL;
    HIP_EXPECT(hipCtxCreate(&made, 0, n), hipErrorInvalidValue);
    HIP_EXPECT(hipCtxCreate(NULL, 0, 0), hipErrorInvalidValue);
    HIP_CHECK(hipCtxCreate(&made, hipDeviceScheduleBlockingSync | hipDeviceMapHost, 1));
    CHECK(made == p1);
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 1);
    HIP_CHECK(hipGetDeviceFlags(&flags));
    CHECK_EQ(flags, hipDeviceScheduleBlockingSync | hipDeviceMapHost);
    HIP_CHECK(hipCtxGetFlags(&flags));
    CHECK_EQ(flags, hipDeviceScheduleBlockingSync | hipDeviceMapHost);
    int ver = 0;
    HIP_CHECK(hipCtxGetApiVersion(made, &ver));
    CHECK(ver > 0);
    HIP_CHECK(hipCtxSynchronize());
    hipFuncCache_t cc;
    HIP_CHECK(hipCtxGetCacheConfig(&cc));
    CHECK_EQ(cc, hipFuncCachePreferNone);
    hipSharedMemConfig sc;
    HIP_CHECK(hipCtxGetSharedMemConfig(&sc));
    CHECK_EQ(sc, hipSharedMemBankSizeFourByte);
    HIP_EXPECT(hipCtxEnablePeerAccess(p0, 0), hipErrorPeerAccessUnsupported);
    HIP_EXPECT(hipCtxDisablePeerAccess(p0), hipErrorPeerAccessNotEnabled);

    pthread_t t;
    CHECK(pthread_create(&t, NULL, other_thread, &made) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    HIP_CHECK(hipGetDevice(&dev));
    CHECK_EQ(dev, 1); /* the other thread's pushes did not move this one */

    HIP_CHECK(hipCtxDestroy(made)); /* pops it: it is on top */
    HIP_EXPECT(hipCtxPopCurrent(NULL), hipErrorInvalidContext);

    /* Handles that are not contexts. */
    hipCtx_t bogus = (hipCtx_t)(uintptr_t)0x1234;
    HIP_EXPECT(hipCtxDestroy(NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipCtxDestroy(bogus), hipErrorInvalidContext);
    HIP_EXPECT(hipCtxPushCurrent(bogus), hipErrorInvalidContext);
    HIP_EXPECT(hipCtxPushCurrent(NULL), hipErrorInvalidContext);
    HIP_EXPECT(hipCtxSetCurrent(bogus), hipErrorInvalidContext);
    HIP_EXPECT(hipCtxGetApiVersion(bogus, &ver), hipErrorInvalidContext);
    HIP_EXPECT(hipCtxGetCurrent(NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipCtxGetDevice(NULL), hipErrorInvalidValue);

    /* hip-tests' DriverContext: retain, push, work, pop, release. */
    hipDevice_t d0;
    HIP_CHECK(hipInit(0));
    HIP_CHECK(hipDeviceGet(&d0, 0));
    HIP_CHECK(hipDevicePrimaryCtxRetain(&ctx, d0));
    HIP_CHECK(hipCtxPushCurrent(ctx));
    CHECK_EQ(device_of_new_allocation(), 0);
    HIP_CHECK(hipCtxPopCurrent(&ctx));
    HIP_CHECK(hipDevicePrimaryCtxRelease(d0));
    (void)hipGetLastError();
    printf("contexts: ok\n");
    return 0;
}
