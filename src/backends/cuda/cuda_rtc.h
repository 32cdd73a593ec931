/* cuda_rtc.h - the cuda backend's run-time compiles: HIP source through NVRTC to PTX. */
#ifndef HW_CUDA_RTC_H
#define HW_CUDA_RTC_H

#include "backend.h"

/* The in-memory headers a program compiled by NVRTC sees (cuda_rtc_prelude.c). */
extern const char *const hw_cuda_rtc_prelude_names[];
extern const char *const hw_cuda_rtc_prelude_texts[];
extern const int hw_cuda_rtc_prelude_count;

/* Compiles in->source, HIP device C++, to PTX for compute capability
 * major.minor with NVRTC (libnvrtc, loaded on first use). HW_OK with *out
 * filled (out->result an hw_rtc_result, out->log why, out->lowered the
 * name expressions' lowered names), or HW_ENOMEM with nothing allocated.
 * Needs no GPU. */
int hw_cuda_rtc_compile(int major, int minor, const struct hw_rtc_input *in,
                        struct hw_rtc_output *out);

#endif
