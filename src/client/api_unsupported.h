/* Fallback for HIP API the proxy does not forward yet. */
#ifndef HIPWIRE_CLIENT_API_UNSUPPORTED_H
#define HIPWIRE_CLIENT_API_UNSUPPORTED_H

#include <hip/hip_runtime_api.h>

/* Returns hipErrorNotSupported, and reports each distinct name once on
 * stderr unless TF_QUIET=1 (TF_DEBUG=1 reports even then). */
hipError_t hw_api_unsupported(const char *name);

#endif
