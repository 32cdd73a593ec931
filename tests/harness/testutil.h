/*
 * testutil.h - checks for hipwire's C tests. A failed CHECK prints where and
 * why and exits non-zero: a test never passes by asserting nothing.
 */
#ifndef HIPWIRE_TESTUTIL_H
#define HIPWIRE_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#define CHECK_EQ(a, b)                                                                    \
    do {                                                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);                               \
        if (a_ != b_) {                                                                   \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n", __FILE__, \
                    __LINE__, #a, a_, #b, b_);                                            \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* For HIP calls: prints the error's name on failure. */
#define HIP_CHECK(call)                                                               \
    do {                                                                              \
        hipError_t e_ = (call);                                                       \
        if (e_ != hipSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, #call, \
                    hipGetErrorName(e_), (int)e_);                                    \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define HIP_EXPECT(call, expected)                                                           \
    do {                                                                                     \
        hipError_t e_ = (call);                                                              \
        if (e_ != (expected)) {                                                              \
            fprintf(stderr, "%s:%d: %s returned %s (%d), expected %s\n", __FILE__, __LINE__, \
                    #call, hipGetErrorName(e_), (int)e_, #expected);                         \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#endif
