// cc_check.h - checks for the hipwire-cc-built test programs. A host helper
// lives here on purpose: hipwire-cc ships this header to the worker with its
// host code blanked, and the device compile must not see it.
#ifndef CC_CHECK_H
#define CC_CHECK_H

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(x)                                                               \
    do {                                                                           \
        hipError_t e_ = (x);                                                       \
        if (e_ != hipSuccess) {                                                    \
            std::fprintf(stderr, "FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #x, \
                         hipGetErrorName(e_));                                     \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

static inline int cc_report(const char *what, int bad)
{
    hipDeviceProp_t p;
    if (hipGetDeviceProperties(&p, 0) != hipSuccess)
        return 1;
    if (bad)
        std::printf("%s: %d wrong results on '%s'\n", what, bad, p.name);
    else
        std::printf("%s: ok on '%s'\n", what, p.name);
    return bad != 0;
}

#endif
