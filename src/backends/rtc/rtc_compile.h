/*
 * rtc_compile.h - run-time compilation on the worker, for backends whose
 * runtime has no compiler of its own: HIP source for the CPU device with the
 * host compiler, or an AMDGPU code object with hipcc (docs/hiprtc.md).
 */
#ifndef HW_RTC_COMPILE_H
#define HW_RTC_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* The AMD target of a hipcc compile when the options name none. */
#define RTC_DEFAULT_TARGET "gfx90a"

/* The target name of the CPU device (its arch_name): options may name it. */
#define RTC_CPU_TARGET "hipwire-cpu"

/* Prefix of the device variables that record name expressions. */
#define RTC_NAME_PROBE "__hipwire_name_expr_"

/* Compiles in->source with hipcc (--genco, one target, no bundle) in a
 * private directory under in->work_dir, contained by rtc_exec. HW_OK with
 * *out filled (out->result says how it went, out->log says why), or an
 * hw_status when nothing could be tried. */
int rtc_hipcc_compile(const struct hw_rtc_input *in, const char *target, struct hw_rtc_output *out);

/* For name expression i (< count), the symbol its probe variable points to
 * in the ELF code object `image`; out[] must be all NULL on entry and gets
 * strdup'ed names where found. 0, or -1 when image is no ELF64 object. */
int rtc_lowered_names(const uint8_t *image, size_t len, uint32_t count, char **out);

/* The global functions an ELF relocatable object defines in sections named
 * section_name (the CPU prelude puts kernels there): *names_out gets n
 * strdup'ed names (free each and the array). 0, or -1. */
int rtc_kernel_symbols(const uint8_t *image, size_t len, const char *section_name,
                       char ***names_out, uint32_t *count_out);

/* Compiles in->source for the CPU device with the host C++ compiler and
 * the prelude (rtc_host.c), contained like rtc_hipcc_compile. */
int rtc_host_compile(const struct hw_rtc_input *in, struct hw_rtc_output *out);

#endif
