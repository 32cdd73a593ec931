/*
 * rtc_compile.h - run-time compilation with hipcc, for backends whose device
 * has no compiler of its own (docs/hiprtc.md).
 */
#ifndef HW_RTC_COMPILE_H
#define HW_RTC_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* The target a compile is for when the options name none and the device is
 * not an AMD GPU. */
#define RTC_DEFAULT_TARGET "gfx90a"

/* Prefix of the device variables that record name expressions. */
#define RTC_NAME_PROBE "__hipwire_name_expr_"

/* Compiles in->source with hipcc (--genco, one target, no bundle) in a
 * private directory under in->work_dir, contained by rtc_exec. HW_OK with
 * *out filled (out->result says how it went, out->log says why), or an
 * hw_status when nothing could be tried. */
int rtc_hipcc_compile(const struct hw_rtc_input *in, const char *target,
                      struct hw_rtc_output *out);

/* For name expression i (< count), the symbol its probe variable points to
 * in the ELF code object `image`; out[] must be all NULL on entry and gets
 * strdup'ed names where found. 0, or -1 when image is no ELF64 object. */
int rtc_lowered_names(const uint8_t *image, size_t len, uint32_t count, char **out);

#endif
