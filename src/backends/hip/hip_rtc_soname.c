#include "hip_rtc_soname.h"

#include <stdio.h>

size_t hw_hiprtc_sonames(int runtime_version, int built_major,
                         char names[HW_HIPRTC_NAMES][HW_HIPRTC_NAME_SZ])
{
    size_t n = 0;
    int major = runtime_version > 0 ? runtime_version / 10000000 : 0;
    if (major > 0)
        snprintf(names[n++], HW_HIPRTC_NAME_SZ, "libhiprtc.so.%d", major);
    if (built_major > 0 && built_major != major)
        snprintf(names[n++], HW_HIPRTC_NAME_SZ, "libhiprtc.so.%d", built_major);
    snprintf(names[n++], HW_HIPRTC_NAME_SZ, "libhiprtc.so");
    return n;
}
