/* kernel_rtc.c - trusted reference kernels (and "hip-kernel" solutions)
 * compiled with hiprtc by the worker for its own device, so a reference
 * runs on the same device as the solution it judges. */
#include "runner.h"

#include <stdlib.h>
#include <string.h>

#include <hip/hiprtc.h>

#include "../expr.h"

int rtc_build(const char *src, const char *kernel, struct rtc_kernel *k, char **log)
{
    hiprtcProgram p = NULL;
    char *code = NULL;
    int rc = -1;
    if (hiprtcCreateProgram(&p, src, "solution.hip", 0, NULL, NULL) != HIPRTC_SUCCESS)
        goto out;
    const char *opts[] = { "-O3" };
    hiprtcResult cr = hiprtcCompileProgram(p, 1, opts);
    size_t n = 0;
    if (log && hiprtcGetProgramLogSize(p, &n) == HIPRTC_SUCCESS && n > 0) {
        *log = calloc(1, n + 1);
        if (*log)
            hiprtcGetProgramLog(p, *log);
    }
    if (cr != HIPRTC_SUCCESS)
        goto out;
    if (hiprtcGetCodeSize(p, &n) != HIPRTC_SUCCESS || !(code = malloc(n)))
        goto out;
    if (hiprtcGetCode(p, code) != HIPRTC_SUCCESS)
        goto out;
    hipModule_t m;
    if (hipModuleLoadData(&m, code) != hipSuccess)
        goto out;
    if (hipModuleGetFunction(&k->fn, m, kernel) != hipSuccess) {
        hipModuleUnload(m);
        goto out;
    }
    /* The harness's kernels, where the source has them (device_tools.c). */
    if (hipModuleGetFunction(&k->fill, m, "hipwire_fill_uniform") != hipSuccess)
        k->fill = NULL;
    if (hipModuleGetFunction(&k->compare, m, "hipwire_compare") != hipSuccess)
        k->compare = NULL;
    hipGetLastError();
    k->mod = m;
    rc = 0;
out:
    free(code);
    if (p)
        hiprtcDestroyProgram(&p);
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
