/* Fallback for HIP API the proxy does not forward yet. */
#ifndef HIPWIRE_CLIENT_API_UNSUPPORTED_H
#define HIPWIRE_CLIENT_API_UNSUPPORTED_H

#include <hip/hip_runtime_api.h>

/* Returns hipErrorNotSupported.  With TF_DEBUG=1 in the environment it
 * also reports each distinct name once on stderr. */
hipError_t hw_api_unsupported(const char *name);

#endif
