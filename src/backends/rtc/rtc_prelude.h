/*
 * rtc_prelude.h - the headers a HIP program compiled for the CPU device sees
 * as hip/hip_runtime.h, hip/hip_fp16.h, hip/hip_vector_types.h and
 * hipwire/cpu_kernel.h, embedded
 * at build time from src/backends/rtc/prelude and include/hipwire.
 */
#ifndef HW_RTC_PRELUDE_H
#define HW_RTC_PRELUDE_H

#include <stddef.h>

struct rtc_prelude_file {
    const char *path; /* relative, under the prelude directory */
    const unsigned char *data;
    size_t size;
};

extern const struct rtc_prelude_file rtc_prelude_files[];
extern const size_t rtc_prelude_count;
/* hip/hip_vector_types.h alone, NUL-terminated: the cuda backend's NVRTC
 * prelude uses the same file. */
extern const unsigned char rtc_prelude_hip_vector_types_h[];

#endif
