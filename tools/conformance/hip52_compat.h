/* Force-included (-include) into every hip-tests translation unit when it is
 * built with Debian's HIP 5.2 headers: hip-tests rocm-5.5.0/6.2.2 use a few
 * device functions those headers lack.  The kernels never run on hipwire's CPU
 * device, so these only have to compile with the right signatures. */
#ifndef HIPWIRE_HIP52_COMPAT_H
#define HIPWIRE_HIP52_COMPAT_H
#include <hip/hip_runtime.h>

/* HIP 5.2 defines wall_clock64 only in the device pass; hip-tests names it
 * in a __global__ function that the host pass also parses. */
#if HIP_VERSION < 50300000 && !defined(__HIP_DEVICE_COMPILE__)
__device__ long long int wall_clock64(void);
#endif

/* Added after 5.2 as the next AMD-specific attribute (10017 in ROCm 6.x);
 * hip-tests' delay-kernel helper asks for it.  A 5.2 runtime rejects it. */
#if HIP_VERSION < 50300000 && !defined(hipDeviceAttributeWallClockRate)
#define hipDeviceAttributeWallClockRate \
    ((hipDeviceAttribute_t)(hipDeviceAttributeFineGrainSupport + 1))
#endif

#endif
