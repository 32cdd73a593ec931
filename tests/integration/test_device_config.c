/*
 * Per-device settings read back as set (flags process-wide per device,
 * limits), AMD's answers for cache and bank-size preferences, PCI bus ids
 * that round-trip, distinct UUIDs, and the peer/link queries, each with
 * AMD's error codes for bad arguments.
 */
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <string.h>

#include "testutil.h"

/* Exported by the proxy; declared by the HIP headers from 5.3 on. */
hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value);

static unsigned seen_flags;

static void *read_flags(void *arg)
{
    (void)arg;
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipGetDeviceFlags(&seen_flags));
    return NULL;
}

int main(void)
{
    int n = 0;
    HIP_CHECK(hipGetDeviceCount(&n));
    CHECK(n >= 2);

    /* Flags: one scheduling mode at most, only defined bits; per device. */
    unsigned f = 99;
    HIP_EXPECT(hipGetDeviceFlags(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipGetDeviceFlags(&f));
    CHECK_EQ(f, hipDeviceScheduleAuto);
    HIP_EXPECT(hipSetDeviceFlags(hipDeviceScheduleSpin | hipDeviceScheduleYield),
               hipErrorInvalidValue);
    HIP_EXPECT(hipSetDeviceFlags(0x20), hipErrorInvalidValue);
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipSetDeviceFlags(hipDeviceScheduleYield | hipDeviceMapHost));
    HIP_CHECK(hipGetDeviceFlags(&f));
    CHECK_EQ(f, hipDeviceScheduleYield); /* AMD keeps the scheduling mode only */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, read_flags, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_EQ(seen_flags, hipDeviceScheduleYield);
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipGetDeviceFlags(&f));
    CHECK_EQ(f, hipDeviceScheduleAuto);

    /* Limits. */
    size_t v = 0;
    HIP_EXPECT(hipDeviceGetLimit(NULL, hipLimitMallocHeapSize), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetLimit(&v, (enum hipLimit_t)0xff), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize), hipErrorUnsupportedLimit);
    HIP_CHECK(hipDeviceGetLimit(&v, hipLimitMallocHeapSize));
    CHECK(v > 0);
    HIP_CHECK(hipDeviceSetLimit(hipLimitMallocHeapSize, 64u << 20));
    HIP_CHECK(hipDeviceGetLimit(&v, hipLimitMallocHeapSize));
    CHECK_EQ(v, 64u << 20);
    enum hipLimit_t stack = (enum hipLimit_t)0; /* hipLimitStackSize in HIP 6 */
    HIP_CHECK(hipDeviceSetLimit(stack, 512));
    HIP_CHECK(hipDeviceGetLimit(&v, stack));
    CHECK_EQ(v, 512);
    HIP_CHECK(hipDeviceSetLimit(stack, 16 * 1024));
    HIP_CHECK(hipDeviceGetLimit(&v, stack));
    CHECK_EQ(v, 16 * 1024);
    HIP_CHECK(hipSetDevice(1)); /* another device keeps its own */
    HIP_CHECK(hipDeviceGetLimit(&v, stack));
    CHECK(v != 16 * 1024);
    HIP_CHECK(hipSetDevice(0));
    HIP_EXPECT(hipDeviceSetLimit((enum hipLimit_t)0xffff, 1), hipErrorInvalidValue);

    /* hipDeviceReset puts the device's flags and limits back (hip-tests
     * hipDeviceReset.cc), and only the current device's. */
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipDeviceSetLimit(stack, 4096));
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipSetDeviceFlags(hipDeviceScheduleSpin));
    HIP_CHECK(hipDeviceReset());
    HIP_CHECK(hipGetDeviceFlags(&f));
    CHECK_EQ(f, hipDeviceScheduleAuto);
    HIP_CHECK(hipDeviceGetLimit(&v, stack));
    CHECK_EQ(v, 1024);
    HIP_CHECK(hipDeviceGetLimit(&v, hipLimitMallocHeapSize));
    CHECK_EQ(v, 8u << 20);
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipDeviceGetLimit(&v, stack));
    CHECK_EQ(v, 4096);
    HIP_CHECK(hipGetDeviceFlags(&f));
    CHECK_EQ(f, hipDeviceScheduleYield);
    HIP_CHECK(hipSetDevice(0));

    /* Cache and shared-memory configuration, as ROCm 5 answers. */
    hipFuncCache_t cc = hipFuncCachePreferL1;
    HIP_EXPECT(hipDeviceGetCacheConfig(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipDeviceGetCacheConfig(&cc));
    CHECK_EQ(cc, hipFuncCachePreferNone);
    HIP_EXPECT(hipDeviceSetCacheConfig(hipFuncCachePreferShared), hipErrorNotSupported);
    hipSharedMemConfig sc = hipSharedMemBankSizeEightByte;
    HIP_EXPECT(hipDeviceGetSharedMemConfig(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipDeviceSetSharedMemConfig(hipSharedMemBankSizeEightByte));
    HIP_CHECK(hipDeviceGetSharedMemConfig(&sc));
    CHECK_EQ(sc, hipSharedMemBankSizeFourByte);

    /* PCI bus ids: AMD's format, consistent with the attributes, unique. */
    char id[2][32];
    for (int d = 0; d < 2; d++) {
        int dom = -1, bus = -1, dv = -1, back = -1;
        HIP_CHECK(hipDeviceGetPCIBusId(id[d], sizeof id[d], d));
        HIP_CHECK(hipDeviceGetAttribute(&dom, hipDeviceAttributePciDomainID, d));
        HIP_CHECK(hipDeviceGetAttribute(&bus, hipDeviceAttributePciBusId, d));
        HIP_CHECK(hipDeviceGetAttribute(&dv, hipDeviceAttributePciDeviceId, d));
        char want[32];
        snprintf(want, sizeof want, "%04x:%02x:%02x.0", dom, bus, dv);
        CHECK(strcmp(id[d], want) == 0);
        HIP_CHECK(hipDeviceGetByPCIBusId(&back, id[d]));
        CHECK_EQ(back, d);
    }
    CHECK(strcmp(id[0], id[1]) != 0);
    char part[8];
    memset(part, 'x', sizeof part);
    HIP_EXPECT(hipDeviceGetPCIBusId(part, 5, 0), hipErrorInvalidValue);
    CHECK(strlen(part) == 4 && strncmp(part, id[0], 4) == 0 && part[5] == 'x');
    HIP_EXPECT(hipDeviceGetPCIBusId(NULL, 32, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetPCIBusId(id[0], 0, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetPCIBusId(id[0], -1, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetPCIBusId(id[0], 32, n), hipErrorInvalidDevice);
    int back = -1;
    HIP_EXPECT(hipDeviceGetByPCIBusId(&back, "not a bus id"), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetByPCIBusId(&back, "ffff:ff:1f.0"), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetByPCIBusId(NULL, id[0]), hipErrorInvalidValue);

    /* UUIDs. */
    hipUUID u0, u1;
    HIP_CHECK(hipDeviceGetUuid(&u0, 0));
    HIP_CHECK(hipDeviceGetUuid(&u1, 1));
    CHECK(u0.bytes[0] != 0);
    CHECK(memcmp(u0.bytes, u1.bytes, sizeof u0.bytes) != 0);
    HIP_EXPECT(hipDeviceGetUuid(NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetUuid(&u0, -1), hipErrorInvalidDevice);
    HIP_EXPECT(hipDeviceGetUuid(&u0, n), hipErrorInvalidDevice);

    /* Peers: no peer path, answered as such. */
    int pv = -1, can = -1;
    HIP_CHECK(hipDeviceCanAccessPeer(&can, 0, 1));
    HIP_CHECK(hipDeviceGetP2PAttribute(&pv, hipDevP2PAttrAccessSupported, 0, 1));
    CHECK_EQ(pv, can);
    HIP_CHECK(hipDeviceGetP2PAttribute(&pv, hipDevP2PAttrNativeAtomicSupported, 1, 0));
    CHECK_EQ(pv, 0);
    HIP_EXPECT(hipDeviceGetP2PAttribute(NULL, hipDevP2PAttrAccessSupported, 0, 1),
               hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetP2PAttribute(&pv, (hipDeviceP2PAttr)99, 0, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetP2PAttribute(&pv, hipDevP2PAttrAccessSupported, 0, 0),
               hipErrorInvalidDevice);
    HIP_EXPECT(hipDeviceGetP2PAttribute(&pv, hipDevP2PAttrAccessSupported, -1, 0),
               hipErrorInvalidDevice);
    HIP_EXPECT(hipDeviceGetP2PAttribute(&pv, hipDevP2PAttrAccessSupported, 0, n),
               hipErrorInvalidDevice);

    uint32_t lt1, hc1, lt2, hc2;
    HIP_CHECK(hipExtGetLinkTypeAndHopCount(0, 1, &lt1, &hc1));
    HIP_CHECK(hipExtGetLinkTypeAndHopCount(1, 0, &lt2, &hc2));
    CHECK(hc1 > 0);
    CHECK_EQ(hc1, hc2);
    CHECK_EQ(lt1, lt2);
    HIP_EXPECT(hipExtGetLinkTypeAndHopCount(0, 0, &lt1, &hc1), hipErrorInvalidValue);
    HIP_EXPECT(hipExtGetLinkTypeAndHopCount(n, 0, &lt1, &hc1), hipErrorInvalidDevice);
    HIP_EXPECT(hipExtGetLinkTypeAndHopCount(0, n, &lt1, &hc1), hipErrorInvalidDevice);
    HIP_EXPECT(hipExtGetLinkTypeAndHopCount(-1, 0, &lt1, &hc1), hipErrorInvalidValue);
    HIP_EXPECT(hipExtGetLinkTypeAndHopCount(0, 1, NULL, &hc1), hipErrorInvalidValue);
    HIP_EXPECT(hipExtGetLinkTypeAndHopCount(0, 1, &lt1, NULL), hipErrorInvalidValue);
    (void)hipGetLastError();
    printf("device config: ok\n");
    return 0;
}
