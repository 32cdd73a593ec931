/*
 * nvrtc_api.h - the few NVRTC entry points the cuda backend's run-time
 * compiles use, declared here (as cuda_api.h declares the driver) so that
 * hipwire builds without CUDA; libnvrtc is dlopen'ed when a compile comes.
 * tests/gpu/test_nvrtc_decls.c checks these against the real nvrtc.h.
 */
#ifndef HW_NVRTC_API_H
#define HW_NVRTC_API_H

#include <stddef.h>

/* The same tag as nvrtc.h's, so the two handle types are one type. */
typedef struct _nvrtcProgram *hwnv_program;

enum {
    HWNV_SUCCESS = 0,
    HWNV_ERROR_OUT_OF_MEMORY = 1,
    HWNV_ERROR_INVALID_INPUT = 3,
    HWNV_ERROR_INVALID_OPTION = 5,
    HWNV_ERROR_COMPILATION = 6,
};

#define HWNV_FUNCS(X)                                                                            \
    X(nvrtcCreateProgram, (hwnv_program * prog, const char *src, const char *name, int nheaders, \
                           const char *const *headers, const char *const *include_names))        \
    X(nvrtcDestroyProgram, (hwnv_program * prog))                                                \
    X(nvrtcCompileProgram, (hwnv_program prog, int nopts, const char *const *opts))              \
    X(nvrtcGetPTXSize, (hwnv_program prog, size_t * size))                                       \
    X(nvrtcGetPTX, (hwnv_program prog, char *ptx))                                               \
    X(nvrtcGetProgramLogSize, (hwnv_program prog, size_t * size))                                \
    X(nvrtcGetProgramLog, (hwnv_program prog, char *log))                                        \
    X(nvrtcAddNameExpression, (hwnv_program prog, const char *expr))                             \
    X(nvrtcGetLoweredName, (hwnv_program prog, const char *expr, const char **lowered))

/* Results are nvrtcResult, an enum; int has its size on every ABI CUDA has. */
struct hwnv_api {
#define HWNV_PTR_(name, args) int(*name) args;
    HWNV_FUNCS(HWNV_PTR_)
#undef HWNV_PTR_
};

#endif
