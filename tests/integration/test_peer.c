/*
 * Peer access, answered honestly: no pair of devices can access each other
 * (hipDeviceCanAccessPeer 0), so enabling it fails with
 * hipErrorPeerAccessUnsupported, while hipMemcpyPeer(Async) copies between
 * devices (or within one, with a single device) bit-exact. Bad devices and
 * pointers on the wrong device are refused; nothing is lost after them.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

int main(void)
{
    int n = 0, can = -1;
    HIP_CHECK(hipGetDeviceCount(&n));
    CHECK(n >= 1);
    int other = n > 1 ? 1 : 0; /* the peer: another device when there is one */

    HIP_CHECK(hipDeviceCanAccessPeer(&can, 0, other));
    CHECK_EQ(can, 0);
    HIP_EXPECT(hipDeviceCanAccessPeer(&can, 0, n), hipErrorInvalidDevice);
    HIP_EXPECT(hipDeviceCanAccessPeer(NULL, 0, 0), hipErrorInvalidValue);

    HIP_CHECK(hipSetDevice(0));
    HIP_EXPECT(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice); /* itself */
    HIP_EXPECT(hipDeviceEnablePeerAccess(n, 0), hipErrorInvalidDevice);
    HIP_EXPECT(hipDeviceEnablePeerAccess(-1, 0), hipErrorInvalidDevice);
    /* bad flags win over the device being its own peer (AMD's order) */
    HIP_EXPECT(hipDeviceEnablePeerAccess(0, (unsigned)-1), hipErrorInvalidValue);
    if (n > 1) {
        HIP_EXPECT(hipDeviceEnablePeerAccess(1, 7), hipErrorInvalidValue);
        HIP_EXPECT(hipDeviceEnablePeerAccess(1, 0), hipErrorPeerAccessUnsupported);
        HIP_EXPECT(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
    }
    HIP_EXPECT(hipDeviceDisablePeerAccess(n), hipErrorInvalidDevice);
    (void)hipGetLastError();

    enum { SIZE = (3 << 20) + 5 };
    uint8_t *h = malloc(SIZE), *back = malloc(SIZE);
    CHECK(h && back);
    for (size_t i = 0; i < SIZE; i++)
        h[i] = (uint8_t)(i * 31 + 7);
    uint8_t *a, *b;
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipMalloc((void **)&a, SIZE));
    HIP_CHECK(hipMemcpy(a, h, SIZE, hipMemcpyHostToDevice));
    HIP_CHECK(hipSetDevice(other));
    HIP_CHECK(hipMalloc((void **)&b, SIZE));

    /* device 0 -> peer, synchronous, then back through a stream of the peer. */
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipMemcpyPeer(b, other, a, 0, SIZE));
    HIP_CHECK(hipMemcpy(back, b, SIZE, hipMemcpyDeviceToHost));
    CHECK(memcmp(h, back, SIZE) == 0);
    HIP_CHECK(hipMemset(a, 0, SIZE));
    /* Nothing orders device 0's null stream before a stream of the peer:
     * the memset must be done before the peer's copy writes the same bytes. */
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipSetDevice(other));
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipMemcpyPeerAsync(a + 1, 0, b, other, SIZE - 1, s));
    HIP_CHECK(hipStreamSynchronize(s));
    memset(back, 0, SIZE);
    HIP_CHECK(hipMemcpy(back, a, SIZE, hipMemcpyDeviceToHost));
    CHECK_EQ(back[0], 0);
    CHECK(memcmp(h, back + 1, SIZE - 1) == 0);

    /* Refused: a bad device, a pointer that is not on the device named. */
    HIP_EXPECT(hipMemcpyPeer(b, n, a, 0, 16), hipErrorInvalidDevice);
    if (n > 1)
        HIP_EXPECT(hipMemcpyPeer(b, 0, a, 0, 16), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyPeer(h, other, a, 0, 16), hipErrorInvalidValue);
    HIP_CHECK(hipMemcpyPeer(b, other, a, 0, 0)); /* nothing to copy */
    HIP_CHECK(hipMemcpy(back, b, 64, hipMemcpyDeviceToHost));
    CHECK(memcmp(h, back, 64) == 0);

    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    free(h);
    free(back);
    printf("peer (%d device%s): ok\n", n, n > 1 ? "s" : "");
    return 0;
}
