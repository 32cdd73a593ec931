/*
 * ops_hip.c - the measured calls made through the HIP API. Linked against
 * hipwire's proxy libamdhip64, these are remote calls to hip-worker; nothing
 * here knows that, so the same file would time a real HIP runtime too.
 */
#include <stdio.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "bench.h"

static hipModule_t empty_module;
static hipFunction_t empty_kernel;
static hipFunction_t spin_kernel; /* NULL when the code object lacks spin_ns */

static int hip_init(const struct bench_options *opt, char *why, size_t why_len)
{
    int device = 0;
    hipError_t err = hipGetDevice(&device);
    if (err == hipSuccess)
        err = hipSetDevice(device); /* connects to the worker */
    if (err != hipSuccess) {
        snprintf(why, why_len, "no device: %s", hipGetErrorName(err));
        return -1;
    }
    err = hipModuleLoad(&empty_module, opt->kernels);
    if (err == hipSuccess)
        err = hipModuleGetFunction(&empty_kernel, empty_module, "empty");
    if (err != hipSuccess) {
        snprintf(why, why_len, "cannot load kernel `empty` from %s: %s", opt->kernels,
                 hipGetErrorName(err));
        return -1;
    }
    if (hipModuleGetFunction(&spin_kernel, empty_module, "spin_ns") != hipSuccess)
        spin_kernel = NULL;
    return 0;
}

static void hip_fini(void)
{
    if (empty_module)
        hipModuleUnload(empty_module);
    empty_module = NULL;
}

static const char *hip_error_name(int code)
{
    return hipGetErrorName((hipError_t)code);
}

static int hip_local_query(void)
{
    int device;
    return (int)hipGetDevice(&device);
}

static int hip_stream_query(void)
{
    /* An idle default stream answers hipSuccess; anything else is a failure
     * here, because the probe runs with nothing queued. */
    return (int)hipStreamQuery(NULL);
}

static int hip_mem_get_info(void)
{
    size_t free_bytes, total_bytes;
    return (int)hipMemGetInfo(&free_bytes, &total_bytes);
}

static int hip_launch_empty(void)
{
    int unused = 0;
    void *params[] = { &unused };
    return (int)hipModuleLaunchKernel(empty_kernel, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
}

static int hip_launch_spin(unsigned long long ns)
{
    unsigned long long *done = NULL;
    void *params[] = { &ns, &done };
    if (!spin_kernel)
        return (int)hipErrorNotFound;
    return (int)hipModuleLaunchKernel(spin_kernel, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
}

static int hip_device_synchronize(void)
{
    return (int)hipDeviceSynchronize();
}

static int hip_device_alloc(void **ptr, size_t size)
{
    return (int)hipMalloc(ptr, size);
}

static void hip_device_free(void *ptr)
{
    hipFree(ptr);
}

static int hip_pinned_alloc(void **ptr, size_t size)
{
    return (int)hipHostMalloc(ptr, size, hipHostMallocDefault);
}

static void hip_pinned_free(void *ptr)
{
    hipHostFree(ptr);
}

static int hip_copy_h2d(void *dst, const void *src, size_t size)
{
    return (int)hipMemcpy(dst, src, size, hipMemcpyHostToDevice);
}

static int hip_copy_d2h(void *dst, const void *src, size_t size)
{
    return (int)hipMemcpy(dst, src, size, hipMemcpyDeviceToHost);
}

static void hip_describe(char *out, size_t out_len)
{
    hipDeviceProp_t prop;
    int device = 0, runtime = 0;
    memset(&prop, 0, sizeof prop);
    hipGetDevice(&device);
    hipGetDeviceProperties(&prop, device);
    hipRuntimeGetVersion(&runtime);
    snprintf(out, out_len, "device %d \"%s\" (%s), %.1f GiB, runtime %d", device, prop.name,
             prop.gcnArchName, (double)prop.totalGlobalMem / (1u << 30), runtime);
}

static const struct bench_ops hip_ops = {
    .name = "hipwire",
    .init = hip_init,
    .fini = hip_fini,
    .error_name = hip_error_name,
    .local_query = hip_local_query,
    .stream_query = hip_stream_query,
    .mem_get_info = hip_mem_get_info,
    .launch_empty = hip_launch_empty,
    .launch_spin = hip_launch_spin,
    .device_synchronize = hip_device_synchronize,
    .device_alloc = hip_device_alloc,
    .device_free = hip_device_free,
    .pinned_alloc = hip_pinned_alloc,
    .pinned_free = hip_pinned_free,
    .copy_h2d = hip_copy_h2d,
    .copy_d2h = hip_copy_d2h,
    .describe = hip_describe,
};

const struct bench_ops *bench_hip_ops(void)
{
    return &hip_ops;
}
