/* hip_rtc_soname.h - which libhiprtc goes with the loaded HIP runtime. */
#ifndef HW_HIP_RTC_SONAME_H
#define HW_HIP_RTC_SONAME_H

#include <stddef.h>

#define HW_HIPRTC_NAMES   3
#define HW_HIPRTC_NAME_SZ 24

/* The libhiprtc names to try, in order, for a runtime whose
 * hipRuntimeGetVersion gave runtime_version (HIP_VERSION's encoding,
 * major * 10000000 + minor * 100000 + patch; <= 0 when unknown) and a
 * backend built against headers of major built_major: the runtime's own
 * major first (ROCm 7 dropped hiprtc from libamdhip64, and a worker built
 * against older headers must still find libhiprtc.so.7), then the headers'
 * major, then the unversioned development name. Returns how many it wrote. */
size_t hw_hiprtc_sonames(int runtime_version, int built_major,
                         char names[HW_HIPRTC_NAMES][HW_HIPRTC_NAME_SZ]);

#endif
