/* Fallback for HIP API the proxy does not forward yet. */
#ifndef HIPWIRE_CLIENT_API_UNSUPPORTED_H
#define HIPWIRE_CLIENT_API_UNSUPPORTED_H

#include <hip/hip_runtime_api.h>

/* Returns hipErrorNotSupported, and reports each distinct name once on
 * stderr unless TF_QUIET=1 (TF_DEBUG=1 reports even then). */
hipError_t hw_api_unsupported(const char *name);
/* Says line on stderr the first time key is seen, unless TF_QUIET=1: for
 * what a call does less fully than AMD's runtime (key: a name unlike any
 * function's, which share the table). */
void hw_api_note_once(const char *key, const char *line);

#endif
