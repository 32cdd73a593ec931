/*
 * api_array.c - creating, describing and destroying HIP arrays (array.h).
 *
 * Validation follows AMD's runtime (ROCm 5.5-5.7 hip_memory.cpp and its
 * image checks), because programs and AMD's tests depend on its codes: bad
 * arguments and formats are hipErrorInvalidValue, a handle destroyed twice
 * (or never issued) is hipErrorContextIsDestroyed, the descriptor queries
 * answer hipErrorInvalidHandle for a bad array.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "array.h"
#include "handle_registry.h"

#if HIP_VERSION_MAJOR < 6
/* Declared from HIP 6's headers on; exported here for programs built
 * against newer headers (and for the tests). */
hipError_t hipArrayGetInfo(hipChannelFormatDesc *desc, hipExtent *extent, unsigned int *flags,
                           hipArray_t array);
hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR *pArrayDescriptor, hipArray_t array);
hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR *pArrayDescriptor, hipArray_t array);
#endif

struct hw_array *hw_array_get(const void *handle)
{
    return handle && hw_handle_valid(HW_HANDLE_ARRAY, handle) ? (struct hw_array *)handle : NULL;
}

static size_t format_size(hipArray_Format f)
{
    switch (f) {
    case HIP_AD_FORMAT_UNSIGNED_INT8:
    case HIP_AD_FORMAT_SIGNED_INT8: return 1;
    case HIP_AD_FORMAT_UNSIGNED_INT16:
    case HIP_AD_FORMAT_SIGNED_INT16:
    case HIP_AD_FORMAT_HALF: return 2;
    case HIP_AD_FORMAT_UNSIGNED_INT32:
    case HIP_AD_FORMAT_SIGNED_INT32:
    case HIP_AD_FORMAT_FLOAT: return 4;
    }
    return 0;
}

/* The runtime descriptor of a driver-API array: one equal channel size per
 * channel present. */
static hipChannelFormatDesc desc_of(unsigned channels, hipArray_Format f)
{
    hipChannelFormatDesc d = { 0, 0, 0, 0, hipChannelFormatKindFloat };
    int bits = (int)format_size(f) * 8;
    if (f == HIP_AD_FORMAT_SIGNED_INT8 || f == HIP_AD_FORMAT_SIGNED_INT16 ||
        f == HIP_AD_FORMAT_SIGNED_INT32)
        d.f = hipChannelFormatKindSigned;
    else if (f == HIP_AD_FORMAT_UNSIGNED_INT8 || f == HIP_AD_FORMAT_UNSIGNED_INT16 ||
             f == HIP_AD_FORMAT_UNSIGNED_INT32)
        d.f = hipChannelFormatKindUnsigned;
    d.x = bits;
    d.y = channels >= 2 ? bits : 0;
    d.z = channels >= 4 ? bits : 0;
    d.w = channels >= 4 ? bits : 0;
    return d;
}

/* A runtime descriptor's format and channel count; 0 when AMD refuses it:
 * channels must be a prefix of x,y,z,w of one size, 8/16/32 bits (16/32 for
 * float), a known kind. Three channels fail later, as in AMD's runtime. */
static int format_of(const hipChannelFormatDesc *d, hipArray_Format *f, unsigned *channels)
{
    int b = d->x;
    if (b == 0 || (d->y && d->y != b) || (d->z && d->z != b) || (d->w && d->w != b))
        return 0;
    if ((d->y == 0 && (d->z || d->w)) || (d->z == 0 && d->w))
        return 0;
    switch (d->f) {
    case hipChannelFormatKindUnsigned:
        *f = b == 8    ? HIP_AD_FORMAT_UNSIGNED_INT8
             : b == 16 ? HIP_AD_FORMAT_UNSIGNED_INT16
             : b == 32 ? HIP_AD_FORMAT_UNSIGNED_INT32
                       : 0;
        break;
    case hipChannelFormatKindSigned:
        *f = b == 8    ? HIP_AD_FORMAT_SIGNED_INT8
             : b == 16 ? HIP_AD_FORMAT_SIGNED_INT16
             : b == 32 ? HIP_AD_FORMAT_SIGNED_INT32
                       : 0;
        break;
    case hipChannelFormatKindFloat:
        *f = b == 16 ? HIP_AD_FORMAT_HALF : b == 32 ? HIP_AD_FORMAT_FLOAT : 0;
        break;
    default: return 0;
    }
    *channels = (d->x != 0) + (d->y != 0) + (d->z != 0) + (d->w != 0);
    return *f != 0;
}

struct array_limits {
    size_t w1, w2, h2, w3, h3, d3;
};

/* The current device's image limits as it reports them (hipDeviceProp_t's
 * maxTexture*), array.h's where a worker reports none (an older one). */
static struct array_limits current_limits(void)
{
    struct array_limits l = { HW_ARRAY_MAX_1D,   HW_ARRAY_MAX_2D_W, HW_ARRAY_MAX_2D_H,
                              HW_ARRAY_MAX_3D_W, HW_ARRAY_MAX_3D_H, HW_ARRAY_MAX_3D_D };
    hipError_t err;
    struct hipr_devattr e;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c || hw_device_attrs(c, hw_current_device(), &e) != hipSuccess)
        return l;
#define TAKE_(field, v) \
    if ((v) > 0)        \
    l.field = (size_t)(v)
    TAKE_(w1, e.max_texture_1d);
    TAKE_(w2, e.max_texture_2d_width);
    TAKE_(h2, e.max_texture_2d_height);
    TAKE_(w3, e.max_texture_3d_width);
    TAKE_(h3, e.max_texture_3d_height);
    TAKE_(d3, e.max_texture_3d_depth);
#undef TAKE_
    return l;
}

/* AMD's image type from the extent and flags (1-D, 2-D, 3-D, 1-D or 2-D
 * layered) and its size limits; 0 when there is no such image. */
static int dims_valid(size_t w, size_t h, size_t d, unsigned flags)
{
    if (w == 0)
        return 0;
    struct array_limits l = current_limits();
    if (flags & hipArrayLayered) {
        if (d == 0 || d > HW_ARRAY_MAX_LAYERS)
            return 0;
        return h == 0 ? w <= l.w1 : w <= l.w2 && h <= l.h2;
    }
    if (h == 0)
        return d == 0 && w <= l.w1;
    if (d == 0)
        return w <= l.w2 && h <= l.h2;
    return w <= l.w3 && h <= l.h3 && d <= l.d3;
}

hipError_t hw_array_create(hipArray_t *out, size_t w, size_t h, size_t d, hipArray_Format f,
                           unsigned channels, unsigned flags)
{
    hipError_t err;
    size_t elem = format_size(f) * channels;
    if (!out)
        return hw_ret(hipErrorInvalidValue);
    if ((channels != 1 && channels != 2 && channels != 4) || (flags & hipArrayCubemap) ||
        elem == 0 || !dims_valid(w, h, d, flags))
        return hw_ret(hipErrorInvalidValue);
    /* Within any device's limits (< 2^18 per extent) nothing here overflows. */
    size_t pitch = w * elem, bytes = pitch * (h ? h : 1) * (d ? d : 1);
    struct hw_array *a = hw_calloc(1, sizeof *a);
    if (!a)
        return hw_ret(hipErrorOutOfMemory);
    if ((err = hw_malloc_on(&a->dev, bytes, hw_current_device())) != hipSuccess) {
        free(a);
        return err; /* hw_malloc_on recorded it */
    }
    a->width = w;
    a->height = h;
    a->depth = d;
    a->elem = elem;
    a->pitch = pitch;
    a->format = f;
    a->channels = channels;
    a->flags = flags;
    a->desc = desc_of(channels, f);
    a->device = hw_current_device();
#if HIP_VERSION_MAJOR < 6
    a->pub.data = a->dev;
    a->pub.desc = a->desc;
    a->pub.type = flags & hipArrayLayered ? hipArrayLayered : hipArrayDefault;
    a->pub.width = (unsigned)w;
    a->pub.height = (unsigned)h;
    a->pub.depth = (unsigned)d;
    a->pub.Format = f;
    a->pub.NumChannels = channels;
    a->pub.isDrv = false;
    a->pub.textureType = 0;
#endif
    if (hw_handle_add(HW_HANDLE_ARRAY, a) < 0) {
        hw_device_free(a->dev, hw_pool_forget);
        free(a);
        return hw_ret(hipErrorOutOfMemory);
    }
    *out = (hipArray_t)a;
    return hipSuccess;
}

hipError_t hw_array_create_desc(hipArray_t *out, const hipChannelFormatDesc *desc, size_t w,
                                size_t h, size_t d, unsigned flags)
{
    hipArray_Format f;
    unsigned channels;
    if (!out || !desc || !format_of(desc, &f, &channels))
        return hw_ret(hipErrorInvalidValue);
    hipError_t err = hw_array_create(out, w, h, d, f, channels, flags);
#if HIP_VERSION_MAJOR < 6
    if (err == hipSuccess)
        (*out)->isDrv = false;
#endif
    return err;
}

HW_EXPORT hipError_t hipMallocArray(hipArray_t *array, const hipChannelFormatDesc *desc,
                                    size_t width, size_t height, unsigned int flags)
{
    return hw_array_create_desc(array, desc, width, height, 0, flags);
}

HW_EXPORT hipError_t hipMalloc3DArray(hipArray_t *array, const struct hipChannelFormatDesc *desc,
                                      struct hipExtent extent, unsigned int flags)
{
    return hw_array_create_desc(array, desc, extent.width, extent.height, extent.depth, flags);
}

HW_EXPORT hipError_t hipArrayCreate(hipArray_t *pHandle, const HIP_ARRAY_DESCRIPTOR *pAllocateArray)
{
    if (!pAllocateArray)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err =
        hw_array_create(pHandle, pAllocateArray->Width, pAllocateArray->Height, 0,
                        pAllocateArray->Format, pAllocateArray->NumChannels, hipArrayDefault);
#if HIP_VERSION_MAJOR < 6
    if (err == hipSuccess)
        (*pHandle)->isDrv = true;
#endif
    return err;
}

HW_EXPORT hipError_t hipArray3DCreate(hipArray_t *array,
                                      const HIP_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    if (!pAllocateArray)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err =
        hw_array_create(array, pAllocateArray->Width, pAllocateArray->Height, pAllocateArray->Depth,
                        pAllocateArray->Format, pAllocateArray->NumChannels, pAllocateArray->Flags);
#if HIP_VERSION_MAJOR < 6
    if (err == hipSuccess)
        (*array)->isDrv = true;
#endif
    return err;
}

static hipError_t array_destroy(hipArray_t array)
{
    hipError_t err;
    if (!array)
        return hw_ret(hipErrorInvalidValue);
    if ((err = hw_capture_unsafe_call()) != hipSuccess)
        return hw_ret(err);
    /* A mipmap level belongs to its mipmapped array, which frees it. */
    const struct hw_array *lv = hw_array_get(array);
    if (lv && lv->mipmap)
        return hw_ret(hipErrorInvalidValue);
    return hw_array_free_level(array);
}

hipError_t hw_array_free_level(hipArray_t array)
{
    hipError_t err;
    /* Removing first makes a racing second destroy fail, not free twice. */
    if (!hw_handle_remove(HW_HANDLE_ARRAY, array))
        return hw_ret(hipErrorContextIsDestroyed);
    struct hw_array *a = (struct hw_array *)array;
    err = hw_device_free(a->dev, hw_pool_forget);
    free(a);
    return err;
}

HW_EXPORT hipError_t hipFreeArray(hipArray_t array)
{
    return array_destroy(array);
}

HW_EXPORT hipError_t hipArrayDestroy(hipArray_t array)
{
    return array_destroy(array);
}

HW_EXPORT struct hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w,
                                                           enum hipChannelFormatKind f)
{
    struct hipChannelFormatDesc d = { x, y, z, w, f };
    return d;
}

HW_EXPORT hipError_t hipGetChannelDesc(hipChannelFormatDesc *desc, hipArray_const_t array)
{
    const struct hw_array *a = hw_array_get(array);
    if (!desc)
        return hw_ret(hipErrorInvalidValue);
    if (!a) /* ROCm 6's code (5.x answered hipErrorInvalidValue) */
        return hw_ret(hipErrorInvalidHandle);
    *desc = a->desc;
    return hipSuccess;
}

HW_EXPORT hipError_t hipArrayGetInfo(hipChannelFormatDesc *desc, hipExtent *extent,
                                     unsigned int *flags, hipArray_t array)
{
    const struct hw_array *a = hw_array_get(array);
    if (!array)
        return hw_ret(hipErrorInvalidHandle);
    if (!desc && !extent && !flags)
        return hipSuccess;
    if (!a)
        return hw_ret(hipErrorInvalidHandle);
    if (desc)
        *desc = a->desc;
    if (extent) {
        extent->width = a->width;
        extent->height = a->height;
        extent->depth = a->depth;
    }
    if (flags)
        *flags = a->flags;
    return hipSuccess;
}

HW_EXPORT hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR *pArrayDescriptor, hipArray_t array)
{
    const struct hw_array *a = hw_array_get(array);
    if (!array)
        return hw_ret(hipErrorInvalidHandle);
    if (!pArrayDescriptor)
        return hw_ret(hipErrorInvalidValue);
    if (!a)
        return hw_ret(hipErrorInvalidHandle);
    pArrayDescriptor->Width = a->width;
    pArrayDescriptor->Height = a->height;
    pArrayDescriptor->Format = a->format;
    pArrayDescriptor->NumChannels = a->channels;
    return hipSuccess;
}

HW_EXPORT hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR *pArrayDescriptor,
                                             hipArray_t array)
{
    const struct hw_array *a = hw_array_get(array);
    if (!array)
        return hw_ret(hipErrorInvalidHandle);
    if (!pArrayDescriptor)
        return hw_ret(hipErrorInvalidValue);
    if (!a)
        return hw_ret(hipErrorInvalidHandle);
    pArrayDescriptor->Width = a->width;
    pArrayDescriptor->Height = a->height;
    pArrayDescriptor->Depth = a->depth;
    pArrayDescriptor->Format = a->format;
    pArrayDescriptor->NumChannels = a->channels;
    pArrayDescriptor->Flags = a->flags;
    return hipSuccess;
}
