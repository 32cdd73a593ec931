// fatbin_check.h - checks shared by the hipcc-built fat-binary tests.
//
// These programs are compiled by Debian's hipcc for AMD targets, linked
// against the real libamdhip64.so.5, and run unmodified against hipwire's
// proxy (LD_LIBRARY_PATH) and a CPU-device worker, which cannot run AMD
// code. Everything but a launch must work; every launch must fail with
// exactly hipErrorNoBinaryForGpu, reported the way HIP reports it:
//  - direct (the worker said at upload that the device has no code object
//    for the image): the launch call itself fails and records the error as
//    the thread's last error (what hipGetLastError returns after a <<<>>>
//    launch); synchronising reports nothing;
//  - through a relay (HIPWIRE_RELAY=1: a hip-backend worker in between
//    accepts the launch and the next worker refuses it): the launch is
//    accepted and the error is deferred, reported once by the next
//    synchronising call and then by hipGetLastError.
#ifndef FATBIN_CHECK_H
#define FATBIN_CHECK_H

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

static int g_failures;

#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (!(cond)) {                                                \
            std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            std::fprintf(stderr, __VA_ARGS__);                        \
            std::fprintf(stderr, "\n");                               \
            g_failures++;                                             \
        }                                                             \
    } while (0)

#define CHECK_OK(x)                                                 \
    do {                                                            \
        hipError_t e_ = (x);                                        \
        CHECK(e_ == hipSuccess, "%s: %s", #x, hipGetErrorName(e_)); \
    } while (0)

static inline bool via_relay()
{
    const char *r = std::getenv("HIPWIRE_RELAY");
    return r && std::strcmp(r, "1") == 0;
}

// ret: what the launch returned; for <<<>>>, hipGetLastError(), which then
// has consumed the last error already (consumed = true).
static inline void expect_no_binary_at(hipError_t ret, bool consumed, hipStream_t stream,
                                       const char *what, const char *file, int line)
{
    hipError_t sync = stream ? hipStreamSynchronize(stream) : hipDeviceSynchronize();
    hipError_t last = hipGetLastError();
    hipError_t again = hipGetLastError();
    bool ok;
    if (via_relay())
        ok = ret == hipSuccess && sync == hipErrorNoBinaryForGpu &&
             last == hipErrorNoBinaryForGpu && again == hipSuccess;
    else
        ok = ret == hipErrorNoBinaryForGpu && sync == hipSuccess &&
             last == (consumed ? hipSuccess : hipErrorNoBinaryForGpu) && again == hipSuccess;
    if (!ok) {
        std::fprintf(
            stderr, "FAIL %s:%d: %s: launch %s, synchronize %s, last error %s then %s (%s)\n", file,
            line, what, hipGetErrorName(ret), hipGetErrorName(sync), hipGetErrorName(last),
            hipGetErrorName(again), via_relay() ? "relay" : "direct");
        g_failures++;
    }
}

// A <<<>>> launch statement: its error is in hipGetLastError().
#define EXPECT_NO_BINARY_LAUNCH(stmt, stream)                                            \
    do {                                                                                 \
        stmt;                                                                            \
        expect_no_binary_at(hipGetLastError(), true, stream, #stmt, __FILE__, __LINE__); \
    } while (0)

// A call that returns the launch's error.
#define EXPECT_NO_BINARY_CALL(call, stream) \
    expect_no_binary_at((call), false, stream, #call, __FILE__, __LINE__)

#endif
