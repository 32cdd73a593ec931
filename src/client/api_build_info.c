/* The debugger's questions about the installed runtime library
 * (amd_hip_runtime.h): this proxy answers for itself, the library actually
 * installed, with hipwire's version, the HIP headers it was built against
 * and the commit it was built from. Usable before any connection. */
#include <stddef.h>

#include "client.h"

#ifndef HIPWIRE_GIT_HASH
#define HIPWIRE_GIT_HASH "unknown"
#endif

#define HW_STR_(x) #x
#define HW_STR(x)  HW_STR_(x)

HW_EXPORT const char *amd_dbgapi_get_build_name(void)
{
    return "hipwire " HIPWIRE_VERSION " (proxy libamdhip64 for HIP " HW_STR(
        HIP_VERSION_MAJOR) "." HW_STR(HIP_VERSION_MINOR) "." HW_STR(HIP_VERSION_PATCH) ")";
}

HW_EXPORT const char *amd_dbgapi_get_git_hash(void)
{
    return HIPWIRE_GIT_HASH;
}

/* The headers' build id (0 for a build outside AMD's CI), as AMD reports it. */
HW_EXPORT size_t amd_dbgapi_get_build_id(void)
{
    return (size_t)HIP_VERSION_BUILD_ID;
}
