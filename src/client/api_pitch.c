/*
 * api_pitch.c - pitched allocations (hipMallocPitch, hipMemAllocPitch,
 * hipMalloc3D) and the 2D/3D fills over them. A pitched allocation is an
 * ordinary hipMalloc of pitch * height * depth bytes; rows are aligned as
 * ROCm aligns them, to the device's texture pitch alignment.
 */
#include <stdint.h>

#include "client.h"

/* ROCm's image pitch alignment, for a device that reports none. */
#define DEFAULT_PITCH_ALIGN 256

static hipError_t malloc_pitch(void **ptr, size_t *pitch, size_t width, size_t height, size_t depth)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!ptr || !pitch)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    /* The alignment hipGetDeviceProperties reports (DEVICE_ATTRIBUTES; the
     * properties cached at connect do not carry it). */
    struct hipr_devattr e;
    size_t align = DEFAULT_PITCH_ALIGN;
    if (hw_device_attrs(c, hw_current_device(), &e) == hipSuccess && e.texture_pitch_alignment > 0)
        align = (size_t)e.texture_pitch_alignment;
    /* A width that cannot be aligned is an invalid value; a size beyond
     * what the device has, out of memory (ROCm's codes). */
    if (width > SIZE_MAX - (align - 1))
        return hw_ret(hipErrorInvalidValue);
    size_t pt = (width + align - 1) / align * align;
    if (width == 0 || height == 0 || depth == 0) {
        *ptr = NULL;
        *pitch = pt;
        return hipSuccess;
    }
    if (height > SIZE_MAX / pt || depth > SIZE_MAX / (pt * height) ||
        pt * height * depth > c->props[hw_current_device()].totalGlobalMem)
        return hw_ret(hipErrorOutOfMemory);
    void *d = NULL;
    if ((err = hipMalloc(&d, pt * height * depth)) != hipSuccess)
        return err;
    *ptr = d;
    *pitch = pt;
    return hipSuccess;
}

HW_EXPORT hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    return malloc_pitch(ptr, pitch, width, height, 1);
}

/* ROCm ignores elementSizeBytes (CUDA checks it is 4, 8 or 16). */
HW_EXPORT hipError_t hipMemAllocPitch(hipDeviceptr_t *dptr, size_t *pitch, size_t widthInBytes,
                                      size_t height, unsigned int elementSizeBytes)
{
    (void)elementSizeBytes;
    return malloc_pitch((void **)dptr, pitch, widthInBytes, height, 1);
}

HW_EXPORT hipError_t hipMalloc3D(hipPitchedPtr *pitchedDevPtr, hipExtent extent)
{
    void *ptr = NULL;
    size_t pitch = 0;
    if (!pitchedDevPtr)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err = malloc_pitch(&ptr, &pitch, extent.width, extent.height, extent.depth);
    if (err != hipSuccess)
        return err;
    pitchedDevPtr->ptr = ptr;
    pitchedDevPtr->pitch = pitch;
    pitchedDevPtr->xsize = extent.width;
    pitchedDevPtr->ysize = extent.height;
    return hipSuccess;
}

static hipError_t fill_2d(void *dst, size_t pitch, int value, size_t width, size_t height,
                          hipStream_t stream, int sync)
{
    if (width == 0 || height == 0)
        return hipSuccess;
    if (!dst || pitch < width)
        return hw_ret(hipErrorInvalidValue);
    return hw_fill_box(dst, (uint8_t)value, 1, width, pitch, height, 0, 1, stream, sync);
}

HW_EXPORT hipError_t hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)
{
    return fill_2d(dst, pitch, value, width, height, NULL, 1);
}

HW_EXPORT hipError_t hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width,
                                      size_t height, hipStream_t stream)
{
    return fill_2d(dst, pitch, value, width, height, stream, 0);
}

/* Slices are pitch * ysize bytes apart (ysize: the allocation's rows per
 * slice; 0 taken as the extent's height). */
static hipError_t fill_3d(hipPitchedPtr p, int value, hipExtent e, hipStream_t stream, int sync)
{
    if (e.width == 0 || e.height == 0 || e.depth == 0)
        return hipSuccess;
    size_t rows = p.ysize ? p.ysize : e.height;
    if (!p.ptr || p.pitch < e.width || (e.depth > 1 && rows < e.height) ||
        (rows != 0 && p.pitch > SIZE_MAX / rows))
        return hw_ret(hipErrorInvalidValue);
    return hw_fill_box(p.ptr, (uint8_t)value, 1, e.width, p.pitch, e.height, p.pitch * rows,
                       e.depth, stream, sync);
}

HW_EXPORT hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
    return fill_3d(pitchedDevPtr, value, extent, NULL, 1);
}

HW_EXPORT hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
                                      hipStream_t stream)
{
    return fill_3d(pitchedDevPtr, value, extent, stream, 0);
}
