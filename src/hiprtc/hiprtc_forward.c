/*
 * hiprtc_forward.c - libhiprtc.so.<major>: the hiprtc API as ROCm 5.3+
 * ships it, in a library of its own (docs/hiprtc.md).
 *
 * Every function the hiprtc.h built against declares is defined here and
 * calls the proxy libamdhip64's implementation, which the proxy hands out by
 * name (hipwire_hiprtc_function), so a process that loads both libraries has
 * one program representation and one worker connection. Calling the proxy's
 * function by its name instead (or dlsym) could bind back to this library's
 * own definition and recurse.
 */
#include <string.h>

#include <hip/hip_version.h>
#include <hip/hiprtc.h>

#include "abi_spelling.h"

#ifdef _WIN32
#define HWRTC_EXPORT __declspec(dllexport)
#else
#define HWRTC_EXPORT __attribute__((visibility("default")))
#endif

void *hipwire_hiprtc_function(const char *name);

/* The proxy's function `name` (resolved once; a race resolves it twice). */
static void *proxy_fn(void **cache, const char *name)
{
    void *p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!p) {
        p = hipwire_hiprtc_function(name);
        __atomic_store_n(cache, p, __ATOMIC_RELEASE);
    }
    return p;
}

/* ISO C has no object-to-function pointer cast; POSIX guarantees the
 * representations match (dlsym), so the bits are copied. */
#define FORWARD(name, params, args)             \
    HWRTC_EXPORT hiprtcResult name params       \
    {                                           \
        static void *cache;                     \
        hiprtcResult(*fn) params;               \
        void *p = proxy_fn(&cache, #name);      \
        if (!p)                                 \
            return HIPRTC_ERROR_INTERNAL_ERROR; \
        memcpy(&fn, &p, sizeof fn);             \
        return fn args;                         \
    }

FORWARD(hiprtcVersion, (int *major, int *minor), (major, minor))
FORWARD(hiprtcAddNameExpression, (hiprtcProgram prog, const char *name_expression),
        (prog, name_expression))
FORWARD(hiprtcCompileProgram, (hiprtcProgram prog, int numOptions, HW_RTC_STRINGS options),
        (prog, numOptions, options))
FORWARD(hiprtcCreateProgram,
        (hiprtcProgram * prog, const char *src, const char *name, int numHeaders,
         HW_RTC_STRINGS headers, HW_RTC_STRINGS includeNames),
        (prog, src, name, numHeaders, headers, includeNames))
FORWARD(hiprtcDestroyProgram, (hiprtcProgram * prog), (prog))
FORWARD(hiprtcGetLoweredName,
        (hiprtcProgram prog, const char *name_expression, const char **lowered_name),
        (prog, name_expression, lowered_name))
FORWARD(hiprtcGetProgramLog, (hiprtcProgram prog, char *log), (prog, log))
FORWARD(hiprtcGetProgramLogSize, (hiprtcProgram prog, size_t *logSizeRet), (prog, logSizeRet))
FORWARD(hiprtcGetCode, (hiprtcProgram prog, char *code), (prog, code))
FORWARD(hiprtcGetCodeSize, (hiprtcProgram prog, size_t *codeSizeRet), (prog, codeSizeRet))
#if HIP_VERSION_MAJOR >= 6
FORWARD(hiprtcGetBitcode, (hiprtcProgram prog, char *bitcode), (prog, bitcode))
FORWARD(hiprtcGetBitcodeSize, (hiprtcProgram prog, size_t *bitcode_size), (prog, bitcode_size))
FORWARD(hiprtcLinkCreate,
        (unsigned int num_options, hiprtcJIT_option *option_ptr, void **option_vals_pptr,
         hiprtcLinkState *hip_link_state_ptr),
        (num_options, option_ptr, option_vals_pptr, hip_link_state_ptr))
FORWARD(hiprtcLinkAddFile,
        (hiprtcLinkState hip_link_state, hiprtcJITInputType input_type, const char *file_path,
         unsigned int num_options, hiprtcJIT_option *options_ptr, void **option_values),
        (hip_link_state, input_type, file_path, num_options, options_ptr, option_values))
FORWARD(hiprtcLinkAddData,
        (hiprtcLinkState hip_link_state, hiprtcJITInputType input_type, void *image,
         size_t image_size, const char *name, unsigned int num_options,
         hiprtcJIT_option *options_ptr, void **option_values),
        (hip_link_state, input_type, image, image_size, name, num_options, options_ptr,
         option_values))
FORWARD(hiprtcLinkComplete, (hiprtcLinkState hip_link_state, void **bin_out, size_t *size_out),
        (hip_link_state, bin_out, size_out))
FORWARD(hiprtcLinkDestroy, (hiprtcLinkState hip_link_state), (hip_link_state))
#endif

HWRTC_EXPORT const char *hiprtcGetErrorString(hiprtcResult result)
{
    static void *cache;
    const char *(*fn)(hiprtcResult);
    void *p = proxy_fn(&cache, "hiprtcGetErrorString");
    if (!p)
        return "hipwire: the proxy libamdhip64 has no hiprtcGetErrorString";
    memcpy(&fn, &p, sizeof fn);
    return fn(result);
}
