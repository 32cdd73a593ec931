/*
 * api_proc_address.c - hipGetProcAddress: the export table seen through the
 * HIP API, so a caller gets exactly the address the dynamic linker would.
 *
 * Semantics follow the headers the proxy is built against:
 *  - HIP 6.1/6.2 declare the call without flag constants; the real library
 *    ignores flags, maps hipGetDeviceProperties/hipChooseDevice to their
 *    R0600 symbols when hipVersion >= 600 and fails unknown names with
 *    hipErrorInvalidValue and HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND.
 *  - Headers that define HIP_GET_PROC_ADDRESS_DEFAULT/_LEGACY_STREAM/
 *    _PER_THREAD_DEFAULT_STREAM (HIP 7) also reject any other flag value,
 *    and the per-thread flag picks a name's `_spt` variant when one exists.
 *    hipGetProcAddress_spt treats the default flag as the per-thread one.
 * Headers older than 6.1 declare none of it; the proxy still exports both
 * calls (at its newest version node) with the HIP 7 behaviour, defined here.
 */
#include <stdint.h>
#include <string.h>

#include "client.h"
#include "generated/exports.h"

#if HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR < 601
typedef enum hipDriverProcAddressQueryResult {
    HIP_GET_PROC_ADDRESS_SUCCESS = 0,
    HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
} hipDriverProcAddressQueryResult;
hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                             hipDriverProcAddressQueryResult *symbolStatus);
#endif
#ifndef HIP_GET_PROC_ADDRESS_DEFAULT
#if HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR < 601
#define HW_PROC_FLAGS_CHECKED 1
#else
#define HW_PROC_FLAGS_CHECKED 0 /* HIP 6.1/6.2: flags are ignored */
#endif
#define HIP_GET_PROC_ADDRESS_DEFAULT                   0
#define HIP_GET_PROC_ADDRESS_LEGACY_STREAM             1
#define HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM 2
#else
#define HW_PROC_FLAGS_CHECKED 1
#endif
hipError_t hipGetProcAddress_spt(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                                 hipDriverProcAddressQueryResult *symbolStatus);

/* The table entry for name, or for name "_spt" first when per_thread. */
static const struct hw_export *find(const char *name, int per_thread)
{
    if (per_thread) {
        char spt[256];
        size_t n = strlen(name);
        if (n + sizeof "_spt" <= sizeof spt) {
            memcpy(spt, name, n);
            memcpy(spt + n, "_spt", sizeof "_spt");
            const struct hw_export *e = hw_export_find(spt);
            if (e)
                return e;
        }
    }
    return hw_export_find(name);
}

static hipError_t get_proc_address(const char *symbol, void **pfn, int hip_version, uint64_t flags,
                                   hipDriverProcAddressQueryResult *status)
{
    if (symbol == NULL || *symbol == '\0' || pfn == NULL)
        return hipErrorInvalidValue;
    int per_thread = 0;
    if (HW_PROC_FLAGS_CHECKED) {
        if (flags != HIP_GET_PROC_ADDRESS_DEFAULT && flags != HIP_GET_PROC_ADDRESS_LEGACY_STREAM &&
            flags != HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
            return hipErrorInvalidValue;
        per_thread = flags == HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    }
    /* A caller that says it was built against HIP >= 6.0 means the R0600
     * ABI of the two calls whose structure changed; they have no _spt. */
    if (strcmp(symbol, "hipGetDeviceProperties") == 0) {
        if (hip_version >= 600)
            symbol = "hipGetDevicePropertiesR0600";
        per_thread = 0;
    } else if (strcmp(symbol, "hipChooseDevice") == 0) {
        if (hip_version >= 600)
            symbol = "hipChooseDeviceR0600";
        per_thread = 0;
    }
    const struct hw_export *e = find(symbol, per_thread);
    if (e == NULL) {
        *pfn = NULL;
        if (status)
            *status = HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return hipErrorInvalidValue;
    }
    /* POSIX guarantees function and object pointers share a representation. */
    _Static_assert(sizeof(*pfn) == sizeof(e->fn), "function pointer size");
    memcpy(pfn, &e->fn, sizeof(*pfn));
    if (status)
        *status = HIP_GET_PROC_ADDRESS_SUCCESS;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion,
                                       uint64_t flags,
                                       hipDriverProcAddressQueryResult *symbolStatus)
{
    return hw_ret(get_proc_address(symbol, pfn, hipVersion, flags, symbolStatus));
}

HW_EXPORT hipError_t hipGetProcAddress_spt(const char *symbol, void **pfn, int hipVersion,
                                           uint64_t flags,
                                           hipDriverProcAddressQueryResult *symbolStatus)
{
    if (HW_PROC_FLAGS_CHECKED && flags == HIP_GET_PROC_ADDRESS_DEFAULT)
        flags = HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    return hw_ret(get_proc_address(symbol, pfn, hipVersion, flags, symbolStatus));
}
