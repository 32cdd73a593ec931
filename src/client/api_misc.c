/*
 * api_misc.c - small HIP calls real programs make that need no protocol of
 * their own: names for profilers, the profiler switches, the flagged device
 * allocation, hipMemAllocHost and the driver-style pointer attribute query.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "client.h"

#include <hip/amd_detail/hip_prof_str.h>

/* hip_runtime_prof.h declares it but does not compile as C on its own. */
const char *hipGetCmdName(uint32_t id);

/* ---- names ----------------------------------------------------------------- */

HW_EXPORT const char *hipKernelNameRef(const hipFunction_t f)
{
    const struct hw_function *fn = (const struct hw_function *)f;
    return fn && hw_function_known(fn) ? fn->name : NULL;
}

/* The name the kernel was registered under; the stream plays no part, as in
 * AMD's runtime, and nothing goes to the worker. */
HW_EXPORT const char *hipKernelNameRefByPtr(const void *hostFunction, hipStream_t stream)
{
    (void)stream;
    return hw_fatbin_kernel_name(hostFunction);
}

/* The API ids of hip_prof_str.h, the table AMD's own function uses: ids
 * hipwire's headers do not know are "unknown", as are 0 and UINT32_MAX. */
HW_EXPORT const char *hipApiName(uint32_t id)
{
    return hip_api_name(id);
}

/* The activity record's command kinds: OpenCL command types and ROCclr's
 * stream operations, named as AMD's runtime names them. hipwire records no
 * activity, but a tool that got a kind elsewhere still gets its name. */
HW_EXPORT const char *hipGetCmdName(uint32_t id)
{
    static const struct {
        uint32_t id;
        const char *name;
    } kinds[] = {
        { 0, "InternalMarker" },
        { 0x11FE, "Marker" },
        { 0x11F0, "KernelExecution" },
        { 0x11F3, "CopyDeviceToHost" },
        { 0x11F4, "CopyHostToDevice" },
        { 0x11F5, "CopyDeviceToDevice" },
        { 0x1201, "CopyDeviceToHost2D" },
        { 0x1202, "CopyHostToDevice2D" },
        { 0x1203, "CopyDeviceToDevice2D" },
        { 0x1207, "FillBuffer" },
        { 0x11F1, "Task" },
        { 0x11F2, "NativeKernel" },
        { 0x11F6, "ReadImage" },
        { 0x11F7, "WriteImage" },
        { 0x11F8, "CopyImage" },
        { 0x11F9, "CopyImageToBuffer" },
        { 0x11FA, "CopyBufferToImage" },
        { 0x11FB, "MapBuffer" },
        { 0x11FC, "MapImage" },
        { 0x11FD, "UnmapMemObject" },
        { 0x11FF, "AcquireGLObjects" },
        { 0x1200, "ReleaseGLObjects" },
        { 0x1204, "User" },
        { 0x1205, "Barrier" },
        { 0x1206, "MigrateMemObjects" },
        { 0x1208, "FillImage" },
        { 0x1209, "SvmFree" },
        { 0x120A, "SvmMemcpy" },
        { 0x120B, "SvmMemFill" },
        { 0x120C, "SvmMap" },
        { 0x120D, "SvmUnmap" },
        { 0x4501, "StreamWait" },
        { 0x4502, "StreamWrite" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].id == id)
            return kinds[i].name;
    return "Unknown command kind";
}

/* ---- profiler -------------------------------------------------------------- */

/* AMD's runtime implements neither (rocprof starts and stops tracing
 * itself) and answers hipErrorNotSupported. */
HW_EXPORT hipError_t hipProfilerStart(void)
{
    return hw_ret(hipErrorNotSupported);
}

HW_EXPORT hipError_t hipProfilerStop(void)
{
    return hw_ret(hipErrorNotSupported);
}

/* ---- allocation ------------------------------------------------------------ */

/*
 * Default and fine-grained memory are ordinary device memory on the worker
 * (coherence with a host across the network is not to be had); the flags
 * are kept for the pointer attributes. Signal memory (one 8-byte word in
 * AMD's runtime, host-visible) is refused.
 */
HW_EXPORT hipError_t hipExtMallocWithFlags(void **ptr, size_t sizeBytes, unsigned int flags)
{
    hipError_t err;
    if (flags != hipDeviceMallocDefault && flags != hipDeviceMallocFinegrained &&
        flags != hipMallocSignalMemory)
        return hw_ret(hipErrorInvalidValue);
    if (flags == hipMallocSignalMemory && sizeBytes != 8)
        return hw_ret(hipErrorInvalidValue);
    if (!ptr)
        return hw_ret(hipErrorInvalidValue);
    if (flags == hipMallocSignalMemory) {
        /* AMD's signal memory is host-visible: programs read and write it
         * in place. Device memory on the worker would crash them. */
        static atomic_flag said = ATOMIC_FLAG_INIT;
        if (!atomic_flag_test_and_set(&said))
            fprintf(stderr, "hipwire: hipExtMallocWithFlags(hipMallocSignalMemory) is not "
                            "supported: signal memory must be visible to this process and the "
                            "GPU at once, and the GPU is across the network; use hipMalloc and "
                            "hipStreamWaitValue/WriteValue on it instead\n");
        return hw_ret(hipErrorNotSupported);
    }
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_capture_unsafe_call()) != hipSuccess)
        return hw_ret(err);
    if (sizeBytes == 0) {
        *ptr = NULL;
        return hipSuccess;
    }
    int dev = hw_current_device();
    struct hipr_malloc_req m = { .device = hw_wire_device(dev), .size = sizeBytes };
    uint8_t buf[HIPR_malloc_req_SIZE], body[HIPR_ptr_SIZE];
    hipr_malloc_req_encode(buf, &m);
    err = hw_call(c, HIPR_OP_MALLOC, buf, sizeof buf, NULL, 0, body, sizeof body, NULL, 0, NULL);
    if (err != hipSuccess)
        return hw_ret(err);
    struct hipr_ptr r;
    hipr_ptr_decode(body, sizeof body, &r);
    struct hw_mem_range mr = { r.ptr, sizeBytes, dev, HW_MEM_DEVICE, flags, 0 };
    if (hw_mem_add(&mr) < 0) {
        uint8_t fb[HIPR_ptr_SIZE];
        hipr_ptr_encode(fb, &r);
        hw_post(c, HIPR_OP_FREE, fb, sizeof fb, NULL, 0);
        return hw_ret(hipErrorOutOfMemory);
    }
    *ptr = (void *)(uintptr_t)r.ptr;
    return hipSuccess;
}

/* ---- pointer attributes ---------------------------------------------------- */

/* AMD answers every attribute it can and succeeds whatever each one gave:
 * an unknown pointer yields the default values, not an error. */
HW_EXPORT hipError_t hipDrvPointerGetAttributes(unsigned int numAttributes,
                                                hipPointer_attribute *attributes, void **data,
                                                hipDeviceptr_t ptr)
{
    if (numAttributes == 0 || !attributes || !data || !ptr)
        return hw_ret(hipErrorInvalidValue);
    for (unsigned i = 0; i < numAttributes; i++)
        if (data[i])
            (void)hw_pointer_attribute(data[i], attributes[i], ptr);
    return hipSuccess;
}
