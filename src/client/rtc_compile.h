/* rtc_compile.h - hiprtc's compile for a given device, for the client's own
 * use (fatbin_source.c); hiprtcCompileProgram is it on the current device. */
#ifndef HW_RTC_COMPILE_H
#define HW_RTC_COMPILE_H

#include <hip/hiprtc.h>

hiprtcResult hw_rtc_compile(hiprtcProgram prog, int device, int numOptions, const char **options);

#endif
