/*
 * test_rtc_forward - a program that uses hiprtc through libhiprtc.so (as
 * one built against ROCm 5.3 or later does) gets the proxy's hiprtc: it
 * dlopens the library named in argv[1], resolves the API there, and
 * compiles a template kernel on the worker through it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_version.h>
#include <hip/hiprtc.h>

#include "testutil.h"

#define FUNCS(X)               \
    X(hiprtcCreateProgram)     \
    X(hiprtcAddNameExpression) \
    X(hiprtcCompileProgram)    \
    X(hiprtcGetCodeSize)       \
    X(hiprtcGetLoweredName)    \
    X(hiprtcDestroyProgram)    \
    X(hiprtcGetErrorString)    \
    X(hiprtcVersion)           \
    X(hiprtcGetProgramLogSize)

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
#define RESOLVE(name)                        \
    __typeof__(&name) f_##name;              \
    *(void **)&f_##name = dlsym(lib, #name); \
    CHECK(f_##name != NULL);
    FUNCS(RESOLVE)

    int major = 0, minor = 0;
    CHECK(f_hiprtcVersion(&major, &minor) == HIPRTC_SUCCESS && major == HIP_VERSION_MAJOR);
    CHECK(strcmp(f_hiprtcGetErrorString(HIPRTC_ERROR_INVALID_OPTION),
                 "HIPRTC_ERROR_INVALID_OPTION") == 0);
    hiprtcProgram p;
    CHECK(f_hiprtcCreateProgram(&p, "template <int N> __global__ void k(int *p) { p[N] = N; }\n",
                                "fwd.hip", 0, NULL, NULL) == HIPRTC_SUCCESS);
    CHECK(f_hiprtcAddNameExpression(p, "k<3>") == HIPRTC_SUCCESS);
    hiprtcResult r = f_hiprtcCompileProgram(p, 0, NULL);
    size_t log = 0, code = 0;
    CHECK(f_hiprtcGetProgramLogSize(p, &log) == HIPRTC_SUCCESS);
    if (r != HIPRTC_SUCCESS)
        fprintf(stderr, "compile: %s\n", f_hiprtcGetErrorString(r));
    CHECK(r == HIPRTC_SUCCESS);
    CHECK(f_hiprtcGetCodeSize(p, &code) == HIPRTC_SUCCESS && code > 0);
    const char *lowered = NULL;
    CHECK(f_hiprtcGetLoweredName(p, "k<3>", &lowered) == HIPRTC_SUCCESS);
    CHECK(strcmp(lowered, "_Z1kILi3EEvPi") == 0);
    printf("through %s: compiled, %zu bytes, k<3> is %s\n", argv[1], code, lowered);
    CHECK(f_hiprtcDestroyProgram(&p) == HIPRTC_SUCCESS);
    printf("rtc forward: ok\n");
    return 0;
}
