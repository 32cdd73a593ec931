/* Parameter types whose spelling changed between HIP majors without
 * changing the ABI: each hand-written definition must match the headers it
 * is compiled against exactly, so it spells these through the macros below
 * (ROCm 7.0 made hiprtc's string arrays const and hipCtxGetApiVersion's
 * result unsigned, to match CUDA). */
#ifndef HIPWIRE_CLIENT_ABI_SPELLING_H
#define HIPWIRE_CLIENT_ABI_SPELLING_H

#include <hip/hip_version.h>

#if HIP_VERSION_MAJOR >= 7
#define HW_RTC_STRINGS   const char *const *
#define HW_API_VERSION_T unsigned int
#else
#define HW_RTC_STRINGS   const char **
#define HW_API_VERSION_T int
#endif

#endif
