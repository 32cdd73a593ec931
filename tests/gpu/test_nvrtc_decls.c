/*
 * The cuda backend declares the NVRTC entry points it uses itself
 * (nvrtc_api.h) so that it builds without CUDA. Where nvrtc.h is installed,
 * this checks them against it: each real function is called (unevaluated)
 * through the argument types nvrtc_api.h gives it, and the codes compared.
 * Compile time is the test.
 */
#include <nvrtc.h>
#include <stdio.h>

#include "nvrtc_api.h"

_Static_assert((int)HWNV_SUCCESS == (int)NVRTC_SUCCESS, "NVRTC_SUCCESS");
_Static_assert((int)HWNV_ERROR_OUT_OF_MEMORY == (int)NVRTC_ERROR_OUT_OF_MEMORY, "OUT_OF_MEMORY");
_Static_assert((int)HWNV_ERROR_INVALID_INPUT == (int)NVRTC_ERROR_INVALID_INPUT, "INVALID_INPUT");
_Static_assert((int)HWNV_ERROR_INVALID_OPTION == (int)NVRTC_ERROR_INVALID_OPTION, "INVALID_OPTION");
_Static_assert((int)HWNV_ERROR_COMPILATION == (int)NVRTC_ERROR_COMPILATION, "COMPILATION");
_Static_assert(sizeof(nvrtcResult) == sizeof(int), "nvrtcResult is returned as int");
_Static_assert(__builtin_types_compatible_p(hwnv_program, nvrtcProgram), "nvrtcProgram");

int main(void)
{
    hwnv_program p = NULL;
    const char *const *strs = NULL;
    const char *cstr = NULL;
    char *buf = NULL;
    size_t n = 0;
    /* Each call must type-check with nvrtc_api.h's parameter types. */
#define HWNV_CALLS(X)                                    \
    X(nvrtcCreateProgram(&p, cstr, cstr, 0, strs, strs)) \
    X(nvrtcDestroyProgram(&p))                           \
    X(nvrtcCompileProgram(p, 0, strs))                   \
    X(nvrtcGetPTXSize(p, &n))                            \
    X(nvrtcGetPTX(p, buf))                               \
    X(nvrtcGetProgramLogSize(p, &n))                     \
    X(nvrtcGetProgramLog(p, buf))                        \
    X(nvrtcAddNameExpression(p, cstr))                   \
    X(nvrtcGetLoweredName(p, cstr, &cstr))
#define HWNV_REAL_(call) (void)sizeof(call);
    HWNV_CALLS(HWNV_REAL_)
    /* And the same calls through the backend's pointers. */
    struct hwnv_api api = { 0 };
#define HWNV_OURS_(call) (void)sizeof(api.call);
    HWNV_CALLS(HWNV_OURS_)
    printf("nvrtc_api.h matches nvrtc.h\n");
    return 0;
}
