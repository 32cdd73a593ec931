/*
 * bench_native_cuda.c - the NATIVE column of hipwire-bench on NVIDIA GPUs:
 * the same operations as ops_hip.c, made in-process through the CUDA driver
 * API on the device's primary context, so the report compares remote HIP
 * over hipwire with what the same GPU does locally.
 *
 * libcuda.so.1 is loaded at run time with the cuda backend's own loader
 * (src/backends/cuda/cuda_api.h), so this file builds everywhere and uses no
 * HIP symbol (hip* calls in this program go to the worker). Without a driver
 * or a GPU, init() fails with the reason and the column is left out.
 *
 * Semantics kept equal to the HIP calls they stand beside:
 *  - local_query: hipGetDevice is answered in process; so is this (the
 *    device chosen at init), which is also all cudaGetDevice does.
 *  - stream_query / launch_empty / copies use the legacy null stream, like
 *    hipStreamQuery(NULL) and hipMemcpy.
 *  - copy_* are blocking: an async copy on the null stream, then its sync,
 *    which is what cuMemcpyHtoD/DtoH do for pageable and pinned memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuda_api.h"
#include "hw_status.h"

/* Used when --kernels is not something the driver loads (a CPU code
 * object): `empty` (one unused int) and `spin_ns` (busy for ns of the global
 * timer; the done counter is not used here), as in tests/gpu/kernels.cu. */
static const char builtin_ptx[] =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry empty(.param .u32 empty_param_0)\n"
    "{\n"
    "    ret;\n"
    "}\n"
    ".visible .entry spin_ns(.param .u64 spin_ns_param_0, .param .u64 spin_ns_param_1)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b64 %rd<5>;\n"
    "    ld.param.u64 %rd1, [spin_ns_param_0];\n"
    "    mov.u64 %rd2, %globaltimer;\n"
    "SPIN:\n"
    "    mov.u64 %rd3, %globaltimer;\n"
    "    sub.s64 %rd4, %rd3, %rd2;\n"
    "    setp.lt.u64 %p1, %rd4, %rd1;\n"
    "    @%p1 bra SPIN;\n"
    "    ret;\n"
    "}\n";

static struct hwcu_api cu;
static int loaded;
static CUdevice dev;
static CUcontext ctx;
static CUmodule module;
static CUfunction empty_fn;
static CUfunction spin_fn;
static char kernels_from[160];

/* The same code object as the remote column when the driver can load it (a
 * PTX, cubin or fatbin file), so both run the same kernels. */
static CUresult load_kernels(const char *path)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    CUresult r = HWCU_ERROR_INVALID_IMAGE;
    if (f) {
        char *image = NULL;
        long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (image = calloc(1, (size_t)n + 1)) &&
            fread(image, 1, (size_t)n, f) == (size_t)n)
            r = cu.cuModuleLoadData(&module, image); /* PTX needs the NUL calloc left */
        free(image);
        fclose(f);
    }
    if (r == HWCU_SUCCESS) {
        snprintf(kernels_from, sizeof kernels_from, "%s", path);
        return r;
    }
    snprintf(kernels_from, sizeof kernels_from, "built-in PTX");
    return cu.cuModuleLoadData(&module, builtin_ptx);
}
static char device_name[128];
static int driver_version;

static int native_init(const struct bench_options *opt, char *why, size_t why_len)
{
    const char *reason = NULL;
    CUresult r;
    if (!loaded) {
        if (hwcu_api_load(&cu, &reason) != HW_OK) {
            snprintf(why, why_len, "%s", reason);
            return -1;
        }
        loaded = 1;
    }
    if ((r = cu.cuDeviceGet(&dev, 0)) != HWCU_SUCCESS ||
        (r = cu.cuDevicePrimaryCtxRetain(&ctx, dev)) != HWCU_SUCCESS)
        goto fail;
    if ((r = cu.cuCtxSetCurrent(ctx)) != HWCU_SUCCESS ||
        (r = load_kernels(opt->kernels)) != HWCU_SUCCESS ||
        (r = cu.cuModuleGetFunction(&empty_fn, module, "empty")) != HWCU_SUCCESS)
        goto fail_ctx;
    if (cu.cuModuleGetFunction(&spin_fn, module, "spin_ns") != HWCU_SUCCESS)
        spin_fn = NULL;
    cu.cuDeviceGetName(device_name, (int)sizeof device_name - 1, dev);
    cu.cuDriverGetVersion(&driver_version);
    return 0;
fail_ctx:
    if (module)
        cu.cuModuleUnload(module);
    module = NULL;
    cu.cuDevicePrimaryCtxRelease(dev);
    ctx = NULL;
fail:
    snprintf(why, why_len, "CUDA driver: CUresult %d", (int)r);
    return -1;
}

static void native_fini(void)
{
    if (module)
        cu.cuModuleUnload(module);
    module = NULL;
    if (ctx)
        cu.cuDevicePrimaryCtxRelease(dev);
    ctx = NULL;
}

static const char *native_error_name(int code)
{
    const char *s = NULL;
    if (!loaded || cu.cuGetErrorName((CUresult)code, &s) != HWCU_SUCCESS || !s)
        return "unknown CUresult";
    return s;
}

static int native_local_query(void)
{
    return ctx ? 0 : HWCU_ERROR_INVALID_CONTEXT;
}

static int native_stream_query(void)
{
    return cu.cuStreamQuery(HWCU_STREAM_LEGACY);
}

static int native_mem_get_info(void)
{
    size_t free_bytes, total_bytes;
    return cu.cuMemGetInfo(&free_bytes, &total_bytes);
}

static int native_launch_empty(void)
{
    int unused = 0;
    void *params[] = { &unused };
    return cu.cuLaunchKernel(empty_fn, 1, 1, 1, 1, 1, 1, 0, HWCU_STREAM_LEGACY, params, NULL);
}

static int native_launch_spin(unsigned long long ns)
{
    unsigned long long *done = NULL;
    void *params[] = { &ns, &done };
    if (!spin_fn)
        return HWCU_ERROR_NOT_FOUND;
    return cu.cuLaunchKernel(spin_fn, 1, 1, 1, 1, 1, 1, 0, HWCU_STREAM_LEGACY, params, NULL);
}

static int native_device_synchronize(void)
{
    return cu.cuCtxSynchronize();
}

static int native_device_alloc(void **ptr, size_t size)
{
    CUdeviceptr p = 0;
    CUresult r = cu.cuMemAlloc(&p, size);
    if (r == HWCU_SUCCESS)
        *ptr = (void *)(uintptr_t)p;
    return r;
}

static void native_device_free(void *ptr)
{
    cu.cuMemFree((CUdeviceptr)(uintptr_t)ptr);
}

static int native_pinned_alloc(void **ptr, size_t size)
{
    return cu.cuMemHostAlloc(ptr, size, 0);
}

static void native_pinned_free(void *ptr)
{
    cu.cuMemFreeHost(ptr);
}

static int native_copy_h2d(void *dst, const void *src, size_t size)
{
    CUresult r = cu.cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, size, HWCU_STREAM_LEGACY);
    return r != HWCU_SUCCESS ? r : cu.cuStreamSynchronize(HWCU_STREAM_LEGACY);
}

static int native_copy_d2h(void *dst, const void *src, size_t size)
{
    CUresult r = cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, size, HWCU_STREAM_LEGACY);
    return r != HWCU_SUCCESS ? r : cu.cuStreamSynchronize(HWCU_STREAM_LEGACY);
}

static void native_describe(char *out, size_t out_len)
{
    int major = 0, minor = 0;
    size_t total = 0;
    cu.cuDeviceGetAttribute(&major, HWCU_DA_COMPUTE_CAPABILITY_MAJOR, dev);
    cu.cuDeviceGetAttribute(&minor, HWCU_DA_COMPUTE_CAPABILITY_MINOR, dev);
    cu.cuDeviceTotalMem(&total, dev);
    snprintf(out, out_len,
             "device 0 \"%s\" (sm_%d%d), %.1f GiB, CUDA driver %d (in process), kernels: %s",
             device_name, major, minor, (double)total / (1u << 30), driver_version, kernels_from);
}

static const struct bench_ops native_cuda_ops = {
    .name = "native",
    .init = native_init,
    .fini = native_fini,
    .error_name = native_error_name,
    .local_query = native_local_query,
    .stream_query = native_stream_query,
    .mem_get_info = native_mem_get_info,
    .launch_empty = native_launch_empty,
    .launch_spin = native_launch_spin,
    .device_synchronize = native_device_synchronize,
    .device_alloc = native_device_alloc,
    .device_free = native_device_free,
    .pinned_alloc = native_pinned_alloc,
    .pinned_free = native_pinned_free,
    .copy_h2d = native_copy_h2d,
    .copy_d2h = native_copy_d2h,
    .describe = native_describe,
};

const struct bench_ops *bench_native_cuda_ops(void)
{
    return &native_cuda_ops;
}
