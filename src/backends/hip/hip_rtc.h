/* hip_rtc.h - the hip backend's run-time compiles through the real hiprtc. */
#ifndef HW_HIP_RTC_H
#define HW_HIP_RTC_H

#include "backend.h"
#include "hip_api.h"

/* The rtc_compile slot: compiles with the hiprtc of the loaded runtime
 * (libamdhip64 itself up to ROCm 5.2, libhiprtc.so.<major> after), for
 * device dev unless the options name a target. */
int hw_hip_rtc_compile(struct hw_hip_api *api, int dev, const struct hw_rtc_input *in,
                       struct hw_rtc_output *out);

#endif
