/*
 * cuda_api.c - finds libcuda.so.1 at run time and fills struct hwcu_api.
 */
#include <dlfcn.h>
#include <string.h>

#include "cuda_api.h"
#include "hw_status.h"

/* cuGetProcAddress_v2 (CUDA >= 12.0): maps an API name plus the header
 * version a caller was built against to the matching versioned entry point,
 * so "cuMemAlloc" at 12000 gives cuMemAlloc_v2 without guessing suffixes. */
typedef CUresult (*get_proc_v2_fn)(const char *symbol, void **pfn, int version,
                                   unsigned long long flags, int *symbol_status);
#define HWCU_GET_PROC_LEGACY_STREAM 1ull /* null-stream calls use the legacy stream */

int hwcu_api_load(struct hwcu_api *api, const char **why)
{
    struct hwcu_api t;
    memset(&t, 0, sizeof t);
    /* RTLD_LOCAL: the driver's symbols must not satisfy anything else in the
     * worker. The library stays loaded for the life of the process: the
     * driver keeps threads that would run unmapped code after a dlclose. */
    t.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!t.lib) {
        *why = "libcuda.so.1 not found (no NVIDIA driver)";
        return HW_ENODEV;
    }
    get_proc_v2_fn gpa = (get_proc_v2_fn)dlsym(t.lib, "cuGetProcAddress_v2");
    void *p;
#define HWCU_RESOLVE_(name, ret, params, ver, sym, req)                             \
    p = NULL;                                                                       \
    if (gpa) {                                                                      \
        int st_ = 0;                                                                \
        if (gpa(#name, &p, ver, HWCU_GET_PROC_LEGACY_STREAM, &st_) != HWCU_SUCCESS) \
            p = NULL;                                                               \
    }                                                                               \
    if (!p)                                                                         \
        p = dlsym(t.lib, sym);                                                      \
    if (!p && req) {                                                                \
        *why = "libcuda.so.1 lacks " #name " (driver too old)";                     \
        return HW_ENODEV;                                                           \
    }                                                                               \
    /* POSIX guarantees function pointers round-trip through void *. */             \
    memcpy(&t.name, &p, sizeof p);
    HWCU_FUNCS(HWCU_RESOLVE_)
#undef HWCU_RESOLVE_
    if (!t.cuStreamAddCallback && !t.cuLaunchHostFunc) {
        *why = "libcuda.so.1 has neither cuStreamAddCallback nor cuLaunchHostFunc";
        return HW_ENODEV;
    }
    CUresult r = t.cuInit(0);
    if (r != HWCU_SUCCESS) {
        *why = r == HWCU_ERROR_NO_DEVICE      ? "cuInit: no CUDA-capable device"
               : r == HWCU_ERROR_STUB_LIBRARY ? "cuInit: libcuda.so.1 is the toolkit's stub"
               : r == HWCU_ERROR_CALL_REQUIRES_NEWER_DRIVER ? "cuInit: driver too old"
                                                            : "cuInit failed";
        return HW_ENODEV;
    }
    int n = 0;
    if (t.cuDeviceGetCount(&n) != HWCU_SUCCESS || n <= 0) {
        *why = "no CUDA device";
        return HW_ENODEV;
    }
    *api = t;
    return HW_OK;
}

int hwcu_is_sticky(CUresult r)
{
    switch (r) {
    case HWCU_ERROR_ECC_UNCORRECTABLE:
    case HWCU_ERROR_ILLEGAL_ADDRESS:
    case HWCU_ERROR_LAUNCH_TIMEOUT:
    case HWCU_ERROR_CONTEXT_IS_DESTROYED:
    case HWCU_ERROR_ASSERT:
    case HWCU_ERROR_HARDWARE_STACK_ERROR:
    case HWCU_ERROR_ILLEGAL_INSTRUCTION:
    case HWCU_ERROR_MISALIGNED_ADDRESS:
    case HWCU_ERROR_INVALID_ADDRESS_SPACE:
    case HWCU_ERROR_INVALID_PC:
    case HWCU_ERROR_LAUNCH_FAILED: return 1;
    default: return 0;
    }
}

int hwcu_status(CUresult r)
{
    switch (r) {
    case HWCU_SUCCESS: return HW_OK;
    case HWCU_ERROR_INVALID_VALUE: return HW_EINVAL;
    case HWCU_ERROR_OUT_OF_MEMORY: return HW_ENOMEM;
    case HWCU_ERROR_NOT_INITIALIZED:
    case HWCU_ERROR_DEINITIALIZED: return HW_ENOTINIT;
    case HWCU_ERROR_STUB_LIBRARY:
    case HWCU_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case HWCU_ERROR_NO_DEVICE:
    case HWCU_ERROR_SYSTEM_DRIVER_MISMATCH:
    case HWCU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return HW_ENODEV;
    case HWCU_ERROR_INVALID_DEVICE: return HW_EDEVICE;
    case HWCU_ERROR_INVALID_IMAGE:
    case HWCU_ERROR_UNSUPPORTED_PTX_VERSION: return HW_EIMAGE;
    case HWCU_ERROR_NO_BINARY_FOR_GPU: return HW_ENOBINARY;
    case HWCU_ERROR_INVALID_PTX: return HW_EKERNELFILE;
    case HWCU_ERROR_SHARED_OBJECT_INIT_FAILED: return HW_ESHAREDOBJ;
    case HWCU_ERROR_OPERATING_SYSTEM: return HW_EOS;
    case HWCU_ERROR_INVALID_CONTEXT:
    case HWCU_ERROR_INVALID_HANDLE: return HW_EHANDLE;
    case HWCU_ERROR_NOT_FOUND: return HW_ENOTFOUND;
    case HWCU_ERROR_NOT_READY: return HW_ENOTREADY;
    case HWCU_ERROR_ILLEGAL_ADDRESS: return HW_EILLEGAL;
    case HWCU_ERROR_LAUNCH_OUT_OF_RESOURCES: return HW_ERESOURCES;
    case HWCU_ERROR_CONTEXT_IS_DESTROYED: return HW_EDESTROYED;
    case HWCU_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return HW_ECONFIG;
    case HWCU_ERROR_NOT_SUPPORTED: return HW_ENOTSUP;
    default:
        /* The remaining execution faults (timeout, trap, misaligned access,
         * ECC, ...) have no closer hipError_t than a failed launch. */
        return hwcu_is_sticky(r) ? HW_ELAUNCH : HW_EUNKNOWN;
    }
}
