/*
 * hipStreamWriteValue32/64 and hipStreamWaitValue32/64 against a real
 * worker: stream operations executed there, in stream order.
 *
 * No timing is involved anywhere. A wait whose word does not satisfy it
 * cannot have let the work behind it run, so "still blocked" is checked by
 * querying the stream and by reading (on another stream) the word that the
 * blocked work would have set; then a write on the other stream releases it
 * and synchronizing the waiting stream must return. A broken wait fails the
 * "blocked" checks, a wait that ignores the write hangs the test (ctest's
 * timeout), a wrong comparison fails one or the other.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

static hipStream_t waiter, other;
static uint32_t *marker; /* set by the work queued behind each wait */

static uint32_t read_marker(void)
{
    uint32_t v = 0xdeadbeef;
    HIP_CHECK(hipMemcpyAsync(&v, marker, sizeof v, hipMemcpyDeviceToHost, other));
    HIP_CHECK(hipStreamSynchronize(other));
    return v;
}

/* Sets the marker (and whatever else is queued on other) before anything
 * is queued on waiter: fills on the null stream or on waiter would not be
 * ordered with the reads on other. */
static void reset_marker(void)
{
    HIP_CHECK(hipMemsetAsync(marker, 0, 4, other));
    HIP_CHECK(hipStreamSynchronize(other));
}

/* Queues the marker's fill behind whatever is on waiter. */
static void queue_marker(uint32_t v)
{
    HIP_CHECK(hipMemsetD32Async(marker, (int)v, 1, waiter));
}

static void expect_blocked(uint32_t old_marker)
{
    HIP_EXPECT(hipStreamQuery(waiter), hipErrorNotReady);
    CHECK_EQ(read_marker(), old_marker);
}

static void expect_released(uint32_t new_marker)
{
    HIP_CHECK(hipStreamSynchronize(waiter));
    HIP_CHECK(hipStreamQuery(waiter));
    CHECK_EQ(read_marker(), new_marker);
}

/* The basic handshake: waiter waits for a flag, other raises it. */
static void two_streams(void)
{
    void *sig;
    HIP_CHECK(hipMalloc(&sig, 8));
    HIP_CHECK(hipMemsetAsync(sig, 0, 8, other));
    reset_marker();

    HIP_CHECK(hipStreamWaitValue32(waiter, sig, 1, hipStreamWaitValueGte, 0xFFFFFFFFu));
    queue_marker(1);
    hipEvent_t done;
    HIP_CHECK(hipEventCreate(&done));
    HIP_CHECK(hipEventRecord(done, waiter));
    expect_blocked(0);
    HIP_EXPECT(hipEventQuery(done), hipErrorNotReady);
    /* Other streams run past the blocked one: read_marker itself ran on one. */
    HIP_CHECK(hipStreamWriteValue32(other, sig, 1, 0));
    HIP_CHECK(hipEventSynchronize(done));
    expect_released(1);
    HIP_CHECK(hipEventDestroy(done));

    /* A write is in stream order: the value lands after earlier work. */
    uint32_t word = 0;
    HIP_CHECK(hipMemsetD32Async(sig, 5, 1, other));
    HIP_CHECK(hipStreamWriteValue32(other, sig, 9, 0));
    HIP_CHECK(hipMemcpyAsync(&word, sig, 4, hipMemcpyDeviceToHost, other));
    HIP_CHECK(hipStreamSynchronize(other));
    CHECK_EQ(word, 9);
    HIP_CHECK(hipFree(sig));
}

struct case32 {
    unsigned flags;
    uint32_t value, mask;
    uint32_t wrong, right; /* a word that must not release the wait, one that must */
};

/* HIP's definitions (hip_runtime_api.h), to check the table itself. */
static int met32(const struct case32 *c, uint32_t word)
{
    uint32_t v = word & c->mask;
    switch (c->flags) {
    case hipStreamWaitValueGte: return v >= c->value;
    case hipStreamWaitValueEq: return v == c->value;
    case hipStreamWaitValueAnd: return (v & c->value) != 0;
    default: return (uint32_t) ~(v | (c->value & c->mask)) != 0;
    }
}

static void comparisons32(void)
{
    static const struct case32 cases[] = {
        { hipStreamWaitValueGte, 10, 0xFFFFFFFFu, 9, 11 },
        { hipStreamWaitValueGte, 0x10, 0xF0, 0x10F, 0x210 },
        { hipStreamWaitValueEq, 0x1234, 0xFFFFFFFFu, 0x1235, 0x1234 },
        { hipStreamWaitValueEq, 0x34, 0xFF, 0x1235, 0xAB34 },
        { hipStreamWaitValueAnd, 0x6, 0xFFFFFFFFu, 0x9, 0x4 },
        { hipStreamWaitValueAnd, 0xF0, 0x30, 0xC0, 0x10 },
        { hipStreamWaitValueNor, 0x0F0F0F0Fu, 0xFFFFFFFFu, 0xF0F0F0F0u, 0xF0F0F0E0u },
    };
    void *w;
    HIP_CHECK(hipMalloc(&w, 4));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct case32 *c = &cases[i];
        CHECK(!met32(c, c->wrong) && met32(c, c->right));
        HIP_CHECK(hipMemsetD32Async(w, (int)c->wrong, 1, other));
        HIP_CHECK(hipStreamSynchronize(other));
        reset_marker();
        HIP_CHECK(hipStreamWaitValue32(waiter, w, c->value, c->flags, c->mask));
        queue_marker((uint32_t)i + 100);
        expect_blocked(0);
        HIP_CHECK(hipStreamWriteValue32(other, w, c->right, 0));
        expect_released((uint32_t)i + 100);
    }
    HIP_CHECK(hipFree(w));
}

/* 64-bit words: values above 32 bits matter. */
static void comparisons64(void)
{
    uint64_t *w;
    HIP_CHECK(hipMalloc((void **)&w, 16));
    HIP_CHECK(hipMemsetAsync(w, 0, 16, other));
    reset_marker();
    const uint64_t big = 0x100000000ull;
    HIP_CHECK(
        hipStreamWaitValue64(waiter, w + 1, big, hipStreamWaitValueGte, 0xFFFFFFFFFFFFFFFFull));
    queue_marker(64);
    HIP_CHECK(hipStreamWriteValue64(other, w + 1, 0xFFFFFFFFull, 0)); /* below by one */
    HIP_CHECK(hipStreamSynchronize(other));
    expect_blocked(0);
    HIP_CHECK(hipStreamWriteValue64(other, w + 1, big, 0));
    expect_released(64);

    reset_marker();
    HIP_CHECK(
        hipStreamWaitValue64(waiter, w, 0xAB00000000ull, hipStreamWaitValueEq, 0xFF00000000ull));
    queue_marker(65);
    HIP_CHECK(hipStreamWriteValue64(other, w, 0xAC000000FFull, 0));
    HIP_CHECK(hipStreamSynchronize(other));
    expect_blocked(0);
    HIP_CHECK(hipStreamWriteValue64(other, w, 0x12AB12345678ull, 0));
    expect_released(65);

    uint64_t both[2] = { 0, 0 };
    HIP_CHECK(hipMemcpy(both, w, 16, hipMemcpyDeviceToHost));
    CHECK(both[0] == 0x12AB12345678ull && both[1] == big);
    HIP_CHECK(hipFree(w));
}

static void invalid(void)
{
    uint32_t *d;
    HIP_CHECK(hipMalloc((void **)&d, 64));
    HIP_EXPECT(hipStreamWriteValue32(waiter, NULL, 0, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamWriteValue64(waiter, NULL, 0, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamWaitValue32(waiter, NULL, 0, hipStreamWaitValueGte, 0xFFFFFFFFu),
               hipErrorInvalidValue);
    HIP_EXPECT(hipStreamWaitValue64(waiter, NULL, 0, hipStreamWaitValueGte, ~0ull),
               hipErrorInvalidValue);
    HIP_EXPECT(hipStreamWaitValue32(waiter, d, 0, (unsigned)-1, 0xFFFFFFFFu), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamWaitValue64(waiter, d, 0, 4, ~0ull), hipErrorInvalidValue);
    /* Not memory hipwire handed out. */
    uint64_t local = 0;
    HIP_EXPECT(hipStreamWriteValue64(waiter, &local, 1, 0), hipErrorInvalidValue);
    /* Misaligned, and a word running past the allocation's end. */
    HIP_EXPECT(hipStreamWriteValue32(waiter, (char *)d + 2, 1, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamWriteValue64(waiter, d + 1, 1, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipStreamWriteValue64(waiter, (char *)d + 64, 1, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipGetLastError(), hipErrorInvalidValue);
    /* Host memory lives in this process: the worker cannot watch it. */
    void *h;
    HIP_CHECK(hipHostMalloc(&h, 64, 0));
    HIP_EXPECT(hipStreamWriteValue32(waiter, h, 1, 0), hipErrorNotSupported);
    HIP_EXPECT(hipStreamWaitValue32(waiter, h, 1, hipStreamWaitValueEq, 0xFFFFFFFFu),
               hipErrorNotSupported);
    HIP_CHECK(hipHostFree(h));
    /* A destroyed or made-up stream is refused, never read. */
    hipStream_t dead;
    HIP_CHECK(hipStreamCreate(&dead));
    HIP_CHECK(hipStreamDestroy(dead));
    HIP_EXPECT(hipStreamWriteValue32(dead, d, 1, 0), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipStreamWaitValue64(dead, d, 1, hipStreamWaitValueEq, ~0ull),
               hipErrorContextIsDestroyed);
    HIP_EXPECT(hipStreamWriteValue64(dead, d, 1, 0), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipStreamWaitValue32((hipStream_t)0xFFFF, d, 1, hipStreamWaitValueEq, 1),
               hipErrorContextIsDestroyed);
    (void)hipGetLastError();
    /* Nothing above queued anything. */
    HIP_CHECK(hipStreamSynchronize(waiter));
    HIP_CHECK(hipFree(d));
}

int main(void)
{
    HIP_CHECK(hipStreamCreateWithFlags(&waiter, hipStreamNonBlocking));
    HIP_CHECK(hipStreamCreateWithFlags(&other, hipStreamNonBlocking));
    HIP_CHECK(hipMalloc((void **)&marker, 4));
    two_streams();
    comparisons32();
    comparisons64();
    invalid();
    HIP_CHECK(hipFree(marker));
    HIP_CHECK(hipStreamDestroy(waiter));
    HIP_CHECK(hipStreamDestroy(other));
    HIP_CHECK(hipDeviceSynchronize());
    CHECK_EQ(hipGetLastError(), hipSuccess);
    puts("stream value: ok");
    return 0;
}
