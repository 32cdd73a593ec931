/*
 * api_launch_legacy.c - the pre-<<<>>> launch API and the multi-device
 * launches.
 *
 * hipConfigureCall / hipSetupArgument / hipLaunchByPtr: a configuration is
 * pushed, its arguments are placed at the offsets the program gives, and
 * hipLaunchByPtr pops it and launches the registered kernel behind the host
 * stub with the argument buffer (as HIP_LAUNCH_PARAM_BUFFER_POINTER would).
 * The stack is per thread, like the <<<>>> one in launch_config.c, but kept
 * apart from it: a configuration made here carries an argument buffer.
 *
 * hipLaunchCooperativeKernelMultiDevice / hipExtLaunchMultiKernelMultiDevice:
 * each entry is launched on its own stream, on that stream's device. The
 * streams run in order anyway, so the pre- and post-launch synchronisations
 * the flags turn off are not needed for correctness and are not made.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "client.h"

#define LEGACY_DEPTH 32

struct legacy_config {
    dim3 grid, block;
    size_t shared;
    hipStream_t stream;
    uint8_t *args; /* malloc'ed, args_len bytes; NULL when none given */
    size_t args_len;
};

static _Thread_local struct legacy_config tls_legacy[LEGACY_DEPTH];
static _Thread_local unsigned tls_legacy_depth;

HW_EXPORT hipError_t hipConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                      hipStream_t stream)
{
    if (tls_legacy_depth == LEGACY_DEPTH)
        return hw_ret(hipErrorInvalidConfiguration);
    tls_legacy[tls_legacy_depth++] =
        (struct legacy_config){ gridDim, blockDim, sharedMem, stream, NULL, 0 };
    return hipSuccess;
}

HW_EXPORT hipError_t hipSetupArgument(const void *arg, size_t size, size_t offset)
{
    if (tls_legacy_depth == 0)
        return hw_ret(hipErrorInvalidConfiguration); /* no hipConfigureCall before */
    if (size == 0)
        return hipSuccess;
    if (!arg || offset > HIPR_CAP_KERNEL_ARGS || size > HIPR_CAP_KERNEL_ARGS - offset)
        return hw_ret(hipErrorInvalidValue);
    struct legacy_config *cfg = &tls_legacy[tls_legacy_depth - 1];
    if (offset + size > cfg->args_len) {
        uint8_t *grown = hw_realloc(cfg->args, offset + size);
        if (!grown)
            return hw_ret(hipErrorOutOfMemory);
        /* Gaps between arguments (alignment padding) read as zero. */
        memset(grown + cfg->args_len, 0, offset + size - cfg->args_len);
        cfg->args = grown;
        cfg->args_len = offset + size;
    }
    memcpy(cfg->args + offset, arg, size);
    return hipSuccess;
}

HW_EXPORT hipError_t hipLaunchByPtr(const void *func)
{
    if (tls_legacy_depth == 0)
        return hw_ret(hipErrorInvalidConfiguration);
    struct legacy_config cfg = tls_legacy[--tls_legacy_depth];
    hipError_t err;
    int dev;
    const struct hw_function *f;
    uint8_t *args = cfg.args;
    if (hw_stream_check(cfg.stream) != hipSuccess) {
        err = hw_ret(hipErrorInvalidValue); /* a destroyed or made-up stream, never read */
        goto cleanup;
    }
    hw_stream_wire_id(cfg.stream, &dev);
    if (cfg.shared > UINT32_MAX) {
        err = hw_ret(hipErrorInvalidValue);
        goto cleanup;
    }
    if ((err = hw_fatbin_function(func, dev, &f)) != hipSuccess) {
        err = hw_ret(hipErrorInvalidDeviceFunction);
        goto cleanup;
    }
    /* Trailing parameters never set (a program may stop at the last one it
     * cares about) are zero, as the buffer must cover the whole layout. */
    size_t len = cfg.args_len;
    if (len < f->info.args_size) {
        uint8_t *grown = hw_realloc(args, f->info.args_size);
        if (!grown) {
            err = hw_ret(hipErrorOutOfMemory);
            goto cleanup;
        }
        memset(grown + len, 0, f->info.args_size - len);
        args = grown;
        len = f->info.args_size;
    }
    void *extra[] = { HIP_LAUNCH_PARAM_BUFFER_POINTER, args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &len,
                      HIP_LAUNCH_PARAM_END };
    const uint32_t g[3] = { cfg.grid.x, cfg.grid.y, cfg.grid.z };
    const uint32_t b[3] = { cfg.block.x, cfg.block.y, cfg.block.z };
    err = hw_launch(f, g, b, (unsigned)cfg.shared, cfg.stream, NULL, len ? extra : NULL, NULL, NULL,
                    0);
cleanup:
    free(args);
    return err;
}

/* ---- multi-device launches ------------------------------------------------- */

/* Launches every entry after checking them all: nothing is queued when one
 * is wrong. The checks and their codes are AMD's runtime's (clr's
 * ihipLaunchCooperativeKernelMultiDevice): entries may differ in function
 * and shape; each must be on its own device. (AMD's own tests expect
 * hipErrorInvalidValue for mismatched entries and a repeated device; the
 * runtime does not, and its test configuration lists those tests as
 * failing.) */
static hipError_t multi_device(hipLaunchParams *list, int n, unsigned flags, int cooperative)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (!list)
        return hw_ret(hipErrorInvalidValue);
    int count = c->device_count;
    if (n <= 0 || n > count)
        return hw_ret(hipErrorInvalidValue);
    if (flags >
        (hipCooperativeLaunchMultiDeviceNoPreSync | hipCooperativeLaunchMultiDeviceNoPostSync))
        return hw_ret(hipErrorInvalidValue);
    const struct hw_function *fs[HIPR_CAP_DEVICES];
    int devs[HIPR_CAP_DEVICES];
    for (int i = 0; i < n; i++) {
        /* A NULL stream names the current device here; it is refused below. */
        if (hw_stream_check(list[i].stream) != hipSuccess)
            return hw_ret(hipErrorInvalidValue);
        hw_stream_wire_id(list[i].stream, &devs[i]);
        if (hw_fatbin_function(list[i].func, devs[i], &fs[i]) != hipSuccess)
            return hw_ret(hipErrorInvalidDeviceFunction);
    }
    int used[HIPR_CAP_DEVICES] = { 0 };
    for (int i = 0; i < n; i++) {
        const hipLaunchParams *p = &list[i];
        if (!p->blockDim.x || !p->blockDim.y || !p->blockDim.z)
            return hw_ret(hipErrorInvalidConfiguration);
        if (!p->stream)
            return hw_ret(hipErrorInvalidResourceHandle);
        if (devs[i] < 0 || devs[i] >= count || used[devs[i]])
            return hw_ret(hipErrorInvalidDevice);
        used[devs[i]] = 1;
        if (p->sharedMem > UINT32_MAX)
            return hw_ret(hipErrorInvalidValue);
    }
    /* Said now rather than as a later deferred error: nothing is queued on
     * any device when one of them cannot keep its blocks resident. */
    for (int i = 0; cooperative && i < n; i++)
        if (!c->devs[devs[i]].cooperative_launch)
            return hw_ret(hipErrorNotSupported);
    for (int i = 0; i < n; i++) {
        const hipLaunchParams *p = &list[i];
        const uint32_t g[3] = { p->gridDim.x, p->gridDim.y, p->gridDim.z };
        const uint32_t b[3] = { p->blockDim.x, p->blockDim.y, p->blockDim.z };
        err = hw_launch(fs[i], g, b, (unsigned)p->sharedMem, p->stream, p->args, NULL, NULL, NULL,
                        cooperative ? HIPR_LAUNCH_COOPERATIVE : 0);
        if (err != hipSuccess)
            return err;
    }
    return hipSuccess;
}

HW_EXPORT hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams *launchParamsList,
                                                           int numDevices, unsigned int flags)
{
    return multi_device(launchParamsList, numDevices, flags, 1);
}

HW_EXPORT hipError_t hipExtLaunchMultiKernelMultiDevice(hipLaunchParams *launchParamsList,
                                                        int numDevices, unsigned int flags)
{
    return multi_device(launchParamsList, numDevices, flags, 0);
}
