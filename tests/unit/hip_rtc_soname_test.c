/* The hip backend's choice of libhiprtc for the runtime it loaded: a ROCm 7
 * runtime (no hiprtc in libamdhip64) must get libhiprtc.so.7 first even in a
 * worker built against HIP 5 headers. */
#include <string.h>

#include "hip_rtc_soname.h"
#include "testutil.h"

int main(void)
{
    char n[HW_HIPRTC_NAMES][HW_HIPRTC_NAME_SZ];
    /* ROCm 7.1.1 (hipRuntimeGetVersion 70151831) under HIP 5 headers. */
    CHECK_EQ(hw_hiprtc_sonames(70151831, 5, n), 3);
    CHECK(strcmp(n[0], "libhiprtc.so.7") == 0);
    CHECK(strcmp(n[1], "libhiprtc.so.5") == 0);
    CHECK(strcmp(n[2], "libhiprtc.so") == 0);
    /* ROCm 6.2.2 with matching headers: the major once. */
    CHECK_EQ(hw_hiprtc_sonames(60241134, 6, n), 2);
    CHECK(strcmp(n[0], "libhiprtc.so.6") == 0);
    CHECK(strcmp(n[1], "libhiprtc.so") == 0);
    /* A runtime that could not tell its version: the headers' major. */
    CHECK_EQ(hw_hiprtc_sonames(0, 5, n), 2);
    CHECK(strcmp(n[0], "libhiprtc.so.5") == 0);
    CHECK(strcmp(n[1], "libhiprtc.so") == 0);
    return 0;
}
