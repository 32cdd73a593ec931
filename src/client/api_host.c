/*
 * api_host.c - host memory known to HIP: hipHostRegister and the queries
 * over it and over hipHostMalloc memory, and address-range lookups.
 *
 * Registered memory stays the application's, in the client: the worker
 * cannot reach it, so registering only records it (copies to and from it are
 * the same H2D/D2H copies as from any host memory, fills are done here). Its
 * "device pointer" is its own address, as on ROCm (one address space):
 * copies and fills accept it; a kernel on the worker cannot dereference it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "client.h"
#include "hw_os.h"

/* hipHostRegisterDefault/Portable/Mapped/IoMemory and 0x8 (ReadOnly on ROCm,
 * hipExtHostRegisterCoarseGrained in the headers). */
#define REGISTER_FLAGS 0xfu

HW_EXPORT hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags)
{
    struct hw_mem_range r;
    if (!hostPtr || sizeBytes == 0 || (flags & ~REGISTER_FLAGS) ||
        !hw_os_mapped(hostPtr, sizeBytes))
        return hw_ret(hipErrorInvalidValue);
    uint64_t a = (uint64_t)(uintptr_t)hostPtr;
    if (hw_mem_host_overlap(a, sizeBytes, &r)) {
        /* ROCm does not look for an earlier registration: registering the
         * same address again succeeds and the first record (size, flags)
         * stays. Other overlaps it would record side by side; the table
         * holds disjoint ranges, so those are refused. */
        if (r.kind == HW_MEM_REGISTERED && r.base == a)
            return hipSuccess;
        return hw_ret(r.kind == HW_MEM_REGISTERED ? hipErrorHostMemoryAlreadyRegistered
                                                  : hipErrorInvalidValue);
    }
    struct hw_mem_range nr = { a, sizeBytes, hw_current_device(), HW_MEM_REGISTERED, flags, 0 };
    if (hw_mem_add(&nr) < 0)
        return hw_ret(hipErrorOutOfMemory);
    return hipSuccess;
}

HW_EXPORT hipError_t hipHostUnregister(void *hostPtr)
{
    struct hw_mem_range r;
    uint64_t a = (uint64_t)(uintptr_t)hostPtr;
    if (!hostPtr)
        return hw_ret(hipErrorInvalidValue);
    if (hw_mem_find(a, &r) < 0 || r.base != a || r.kind != HW_MEM_REGISTERED ||
        hw_mem_remove(a, &r) < 0)
        return hw_ret(hipErrorHostMemoryNotRegistered);
    return hipSuccess;
}

/* Host memory HIP knows: hipHostMalloc'ed or registered. */
static int host_range(const void *p, struct hw_mem_range *r)
{
    return p && hw_mem_find((uint64_t)(uintptr_t)p, r) == 0 && r->kind != HW_MEM_DEVICE;
}

HW_EXPORT hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags)
{
    struct hw_mem_range r;
    if (!devPtr || flags != 0 || !host_range(hstPtr, &r))
        return hw_ret(hipErrorInvalidValue);
    *devPtr = hstPtr;
    return hipSuccess;
}

HW_EXPORT hipError_t hipHostGetFlags(unsigned int *flagsPtr, void *hostPtr)
{
    struct hw_mem_range r;
    if (!flagsPtr || !host_range(hostPtr, &r))
        return hw_ret(hipErrorInvalidValue);
    *flagsPtr = r.flags;
    return hipSuccess;
}

/* Any allocation HIP knows, device or host (ROCm answers both); either
 * out-parameter may be NULL, as in CUDA. */
HW_EXPORT hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize,
                                           hipDeviceptr_t dptr)
{
    struct hw_mem_range r;
    if (!dptr || hw_mem_find((uint64_t)(uintptr_t)dptr, &r) < 0)
        return hw_ret(hipErrorNotFound);
    if (pbase)
        *pbase = (hipDeviceptr_t)(uintptr_t)r.base;
    if (psize)
        *psize = (size_t)r.size;
    return hipSuccess;
}

HW_EXPORT hipError_t hipMemPtrGetInfo(void *ptr, size_t *size)
{
    struct hw_mem_range r;
    if (!ptr || !size || hw_mem_find((uint64_t)(uintptr_t)ptr, &r) < 0)
        return hw_ret(hipErrorInvalidValue);
    *size = (size_t)r.size;
    return hipSuccess;
}
