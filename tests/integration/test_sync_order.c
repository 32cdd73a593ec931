/*
 * A synchronous copy or fill is complete when it returns, whatever the
 * current device: with device 0 current, each synchronous call writes memory
 * on device 1, then an asynchronous read on a device-1 stream (a blocking
 * and a non-blocking one) must see every byte of it. With one device (a
 * single GPU) "device 1" is device 0: the non-blocking stream still checks
 * that the call waited. Each variant runs 120
 * round trips with a fresh pattern; one stale byte fails the test.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define N      (256u * 1024)
#define ROUNDS 120

static uint8_t want[N], got[N], host[N];

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 7;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static void expect_fill(uint8_t *p, size_t n, uint32_t value, size_t elem)
{
    for (size_t i = 0; i < n; i += elem)
        memcpy(p + i, &value, elem);
}

/* Reads dev1 back through a device-1 stream and compares. */
static void read_back(const uint8_t *dev1, hipStream_t s1, const char *what, int round)
{
    memset(got, 0xcd, N);
    HIP_CHECK(hipMemcpyDtoHAsync(got, (hipDeviceptr_t)dev1, N, s1));
    HIP_CHECK(hipStreamSynchronize(s1));
    if (memcmp(got, want, N) != 0) {
        size_t i = 0;
        while (got[i] == want[i])
            i++;
        fprintf(stderr, "%s: round %d: stale byte %zu (0x%02x, expected 0x%02x)\n", what, round, i,
                got[i], want[i]);
        exit(1);
    }
}

/* Overwrites dev1 on s1 first. A synchronous call comes after a blocking
 * stream's earlier work (the null stream's rule); nothing orders it after a
 * non-blocking stream's, so that one is waited for. */
static void dirty(uint8_t *dev1, hipStream_t s1, int blocking)
{
    HIP_CHECK(hipMemsetAsync(dev1, 0x5a, N, s1));
    if (!blocking)
        HIP_CHECK(hipStreamSynchronize(s1));
}

static void run(hipStream_t s1, int blocking, uint8_t *a1, uint8_t *b1, uint8_t *a0,
                const char *label)
{
    char what[96];
    for (int r = 0; r < ROUNDS; r++) {
        uint32_t seed = (uint32_t)r * 31 + 1;

        snprintf(what, sizeof what, "%s hipMemcpy H2D", label);
        pattern(want, N, seed);
        HIP_CHECK(hipMemcpy(a1, want, N, hipMemcpyHostToDevice));
        read_back(a1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemcpyHtoD", label);
        pattern(want, N, seed + 1);
        HIP_CHECK(hipMemcpyHtoD((hipDeviceptr_t)b1, want, N));
        read_back(b1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemcpy D2D", label);
        dirty(a1, s1, blocking);
        HIP_CHECK(hipMemcpy(a1, b1, N, hipMemcpyDeviceToDevice));
        read_back(a1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemcpy D2D from device 0", label);
        pattern(want, N, seed + 2);
        HIP_CHECK(hipMemcpy(a0, want, N, hipMemcpyHostToDevice));
        HIP_CHECK(hipMemcpy(b1, a0, N, hipMemcpyDefault));
        read_back(b1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemcpy2D H2D", label);
        pattern(want, N, seed + 3);
        HIP_CHECK(hipMemcpy2D(a1, 1024, want, 1024, 1024, N / 1024, hipMemcpyHostToDevice));
        read_back(a1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemcpy2D D2D", label);
        dirty(b1, s1, blocking);
        HIP_CHECK(hipMemcpy2D(b1, 512, a1, 512, 512, N / 512, hipMemcpyDeviceToDevice));
        read_back(b1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemset", label);
        expect_fill(want, N, (uint8_t)(r + 1), 1);
        HIP_CHECK(hipMemset(a1, r + 1, N));
        read_back(a1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemsetD8", label);
        expect_fill(want, N, (uint8_t)(r + 2), 1);
        HIP_CHECK(hipMemsetD8((hipDeviceptr_t)a1, (unsigned char)(r + 2), N));
        read_back(a1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemsetD16", label);
        expect_fill(want, N, (uint16_t)(0x1234 + r), 2);
        HIP_CHECK(hipMemsetD16((hipDeviceptr_t)a1, (unsigned short)(0x1234 + r), N / 2));
        read_back(a1, s1, what, r);

        snprintf(what, sizeof what, "%s hipMemsetD32", label);
        expect_fill(want, N, 0x89abcdefu + (uint32_t)r, 4);
        HIP_CHECK(hipMemsetD32((hipDeviceptr_t)a1, (int)(0x89abcdefu + (uint32_t)r), N / 4));
        read_back(a1, s1, what, r);

        /* D2H with device 0 current reads after device 1's blocking streams
         * (the copy runs on device 1's null stream, as in HIP); nothing
         * orders it after a non-blocking stream. */
        if (!blocking)
            continue;
        snprintf(what, sizeof what, "%s hipMemcpy D2H", label);
        pattern(want, N, seed + 4);
        memcpy(host, want, N);
        HIP_CHECK(hipMemcpyHtoDAsync((hipDeviceptr_t)b1, host, N, s1));
        memset(got, 0xcd, N);
        HIP_CHECK(hipMemcpy(got, b1, N, hipMemcpyDeviceToHost));
        if (memcmp(got, want, N) != 0) {
            fprintf(stderr, "%s: round %d: stale data\n", what, r);
            exit(1);
        }
        HIP_CHECK(hipStreamSynchronize(s1));
    }
}

int main(void)
{
    int n = 0;
    HIP_CHECK(hipGetDeviceCount(&n));
    CHECK(n >= 1);
    uint8_t *a1, *b1, *a0;
    hipStream_t blocking, nonblocking;
    HIP_CHECK(hipSetDevice(n > 1 ? 1 : 0));
    HIP_CHECK(hipMalloc((void **)&a1, N));
    HIP_CHECK(hipMalloc((void **)&b1, N));
    HIP_CHECK(hipStreamCreate(&blocking));
    HIP_CHECK(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipMalloc((void **)&a0, N));

    run(blocking, 1, a1, b1, a0, "blocking stream");
    run(nonblocking, 0, a1, b1, a0, "non-blocking stream");

    HIP_CHECK(hipStreamDestroy(blocking));
    HIP_CHECK(hipStreamDestroy(nonblocking));
    HIP_CHECK(hipFree(a1));
    HIP_CHECK(hipFree(b1));
    HIP_CHECK(hipFree(a0));
    printf("sync order: ok\n");
    return 0;
}
