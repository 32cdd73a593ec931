/*
 * provider.h - the base of libaccelerator_amd.so (internal): the export
 * marker, logging through the hypervisor's callback, fixed-field copies.
 * Each module above has its own header; layers, bottom up:
 *   provider.h (log.c) -> discovery.h -> partition.h -> devices.h,
 *   metrics.c, mounts.h -> lifecycle.h -> upstream.c (the newer ABI).
 */
#ifndef HIPWIRE_PROVIDER_H
#define HIPWIRE_PROVIDER_H

#include <stddef.h>

#include "accelerator.h"

#define PROVIDER_API __attribute__((visibility("default")))

/* Logging through the registered callback; never "FATAL". */
void provider_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void provider_set_log_callback(LogCallbackFunc cb);

/* snprintf into a fixed field, truncating silently. */
void provider_copy(char *dst, size_t dstlen, const char *src);

#endif /* HIPWIRE_PROVIDER_H */
