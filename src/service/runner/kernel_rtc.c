/* kernel_rtc.c - trusted reference kernels (and "hip-kernel" solutions)
 * compiled with hiprtc by the worker for its own device, so a reference
 * runs on the same device as the solution it judges. */
#include "hw_alloc.h"
#include "runner.h"

#include <stdlib.h>
#include <string.h>

#include <hip/hiprtc.h>

#include "../expr.h"

/* Compiles src for the worker's device; 0 with the code object in *code
 * (malloc'ed) and its size, else -1. *log gets the compiler's log. */
int rtc_compile(const char *src, char **code, size_t *size, char **log)
{
    hiprtcProgram p = NULL;
    char *buf = NULL;
    int rc = -1;
    if (hiprtcCreateProgram(&p, src, "solution.hip", 0, NULL, NULL) != HIPRTC_SUCCESS)
        goto out;
    const char *opts[] = { "-O3" };
    hiprtcResult cr = hiprtcCompileProgram(p, 1, opts);
    size_t n = 0;
    if (log && hiprtcGetProgramLogSize(p, &n) == HIPRTC_SUCCESS && n > 0) {
        *log = hw_calloc(1, n + 1);
        if (*log)
            hiprtcGetProgramLog(p, *log);
    }
    if (cr != HIPRTC_SUCCESS)
        goto out;
    if (hiprtcGetCodeSize(p, &n) != HIPRTC_SUCCESS || !(buf = hw_malloc(n)))
        goto out;
    if (hiprtcGetCode(p, buf) != HIPRTC_SUCCESS)
        goto out;
    *code = buf;
    *size = n;
    buf = NULL;
    rc = 0;
out:
    free(buf);
    if (p)
        hiprtcDestroyProgram(&p);
    return rc;
}

int rtc_load(const char *code, const char *kernel, struct rtc_kernel *k)
{
    hipModule_t m;
    if (hipModuleLoadData(&m, code) != hipSuccess)
        return -1;
    if (hipModuleGetFunction(&k->fn, m, kernel) != hipSuccess) {
        hipModuleUnload(m);
        return -1;
    }
    /* The harness's kernels, where the source has them (device_tools.c). */
    if (hipModuleGetFunction(&k->fill, m, "hipwire_fill_uniform") != hipSuccess)
        k->fill = NULL;
    if (hipModuleGetFunction(&k->compare, m, "hipwire_compare") != hipSuccess)
        k->compare = NULL;
    hipGetLastError();
    k->mod = m;
    return 0;
}

int rtc_build(const char *src, const char *kernel, struct rtc_kernel *k, char **log)
{
    char *code = NULL;
    size_t n = 0;
    if (rtc_compile(src, &code, &n, log) != 0)
        return -1;
    int rc = rtc_load(code, kernel, k);
    free(code);
    return rc;
}

static int dims(json_t *arr, json_t *test, unsigned d[3])
{
    for (int i = 0; i < 3; i++) {
        json_t *e = json_array_get(arr, (size_t)i);
        double v = 1;
        if (e && json_is_string(e)) {
            if (hw_expr_eval(json_string_value(e), test_lookup, test, &v) != 0)
                return -1;
        } else if (e && json_is_number(e)) {
            v = json_number_value(e);
        }
        if (v < 1)
            v = 1;
        d[i] = (unsigned)v;
    }
    return 0;
}

hipError_t rtc_launch(struct rtc_kernel *k, json_t *grid, json_t *block, json_t *test, void **argv)
{
    unsigned g[3], b[3];
    if (dims(grid, test, g) != 0 || dims(block, test, b) != 0)
        return hipErrorInvalidValue;
    return hipModuleLaunchKernel(k->fn, g[0], g[1], g[2], b[0], b[1], b[2], 0, NULL, argv, NULL);
}
