/*
 * api_mipmap.c - mipmapped arrays: bookkeeping over one ordinary array
 * (array.h) per level, level l having the extent halved l times (at least 1;
 * layers are not halved). Levels are usable with every array copy; there is
 * no texture sampling behind them (docs/client.md).
 *
 * Codes follow AMD's runtime and its tests (hip-tests catch/unit/memory/
 * hipMallocMipmappedArray.cc, texture/hipMipmappedArray*.cc): bad arguments
 * are hipErrorInvalidValue, a NULL handle to the level queries is
 * hipErrorInvalidHandle, a second destroy hipErrorContextIsDestroyed. AMD
 * accepts more levels than the extent can halve (4x4x6 with 4 levels), so
 * do we: such levels are 1 x 1 x 1.
 */
#include <stdlib.h>

#include "hw_alloc.h"
#include "array.h"
#include "handle_registry.h"

struct hw_mipmap {
#if HIP_VERSION_MAJOR < 6
    hipMipmappedArray pub; /* public in HIP 5's headers, filled in */
#endif
    unsigned levels;
    hipArray_t level[];
};

#define MIPMAP_FLAGS (hipArrayLayered | hipArraySurfaceLoadStore | hipArrayTextureGather)

static size_t halve(size_t n, unsigned l)
{
    if (n == 0)
        return 0;
    n = l >= sizeof n * 8 ? 0 : n >> l;
    return n ? n : 1;
}

static void mipmap_free(struct hw_mipmap *m)
{
    for (unsigned l = 0; l < m->levels; l++)
        if (m->level[l])
            hw_array_free_level(m->level[l]);
    free(m);
}

/* Level 0 from a runtime descriptor (desc) or a driver format (f, ch), the
 * others from level 0's format, so one validation governs all of them. */
static hipError_t mipmap_create(hipMipmappedArray_t *out, const hipChannelFormatDesc *desc,
                                hipArray_Format f, unsigned ch, size_t w, size_t h, size_t d,
                                unsigned levels, unsigned flags)
{
    hipError_t err = hipSuccess;
    if (!out || levels == 0 || (flags & ~MIPMAP_FLAGS))
        return hw_ret(hipErrorInvalidValue);
    /* Gather is for 2-D images only, as in AMD's runtime. */
    if ((flags & hipArrayTextureGather) && (h == 0 || d != 0))
        return hw_ret(hipErrorInvalidValue);
    if (levels > 64) /* past 64 halvings every extent is 1 */
        levels = 64 + 1;
    struct hw_mipmap *m = hw_calloc(1, sizeof *m + levels * sizeof m->level[0]);
    if (!m)
        return hw_ret(hipErrorOutOfMemory);
    for (unsigned l = 0; l < levels; l++) {
        size_t lw = halve(w, l), lh = halve(h, l);
        size_t ld = flags & hipArrayLayered ? d : halve(d, l);
        if (l == 0 && desc)
            err = hw_array_create_desc(&m->level[0], desc, lw, lh, ld, flags);
        else
            err = hw_array_create(&m->level[l], lw, lh, ld, f, ch, flags);
        if (err != hipSuccess)
            goto cleanup;
        struct hw_array *a = hw_array_get(m->level[l]);
        a->mipmap = m;
        m->levels = l + 1;
        if (l == 0) {
            f = a->format;
            ch = a->channels;
        }
    }
#if HIP_VERSION_MAJOR < 6
    const struct hw_array *a0 = hw_array_get(m->level[0]);
    m->pub.data = a0->dev;
    m->pub.desc = a0->desc;
    m->pub.type = flags & hipArrayLayered ? hipArrayLayered : hipArrayDefault;
    m->pub.width = (unsigned)w;
    m->pub.height = (unsigned)h;
    m->pub.depth = (unsigned)d;
    m->pub.min_mipmap_level = 0;
    m->pub.max_mipmap_level = levels - 1;
    m->pub.flags = flags;
    m->pub.format = a0->format;
#endif
    if (hw_handle_add(HW_HANDLE_MIPMAPPED_ARRAY, m) < 0) {
        err = hw_ret(hipErrorOutOfMemory);
        goto cleanup;
    }
    *out = (hipMipmappedArray_t)m;
    return hipSuccess;
cleanup:
    mipmap_free(m);
    return err; /* recorded by the array creation, or above */
}

static hipError_t mipmap_level(hipArray_t *out, const void *handle, unsigned level)
{
    if (!handle)
        return hw_ret(hipErrorInvalidHandle);
    if (!out)
        return hw_ret(hipErrorInvalidValue);
    if (!hw_handle_valid(HW_HANDLE_MIPMAPPED_ARRAY, handle))
        return hw_ret(hipErrorInvalidHandle);
    const struct hw_mipmap *m = handle;
    if (level >= m->levels)
        return hw_ret(hipErrorInvalidValue);
    *out = m->level[level];
    return hipSuccess;
}

static hipError_t mipmap_destroy(hipMipmappedArray_t handle)
{
    hipError_t err;
    if (!handle)
        return hw_ret(hipErrorInvalidValue);
    if ((err = hw_capture_unsafe_call()) != hipSuccess)
        return hw_ret(err);
    if (!hw_handle_remove(HW_HANDLE_MIPMAPPED_ARRAY, handle))
        return hw_ret(hipErrorContextIsDestroyed);
    mipmap_free((struct hw_mipmap *)handle);
    return hipSuccess;
}

HW_EXPORT hipError_t hipMallocMipmappedArray(hipMipmappedArray_t *mipmappedArray,
                                             const struct hipChannelFormatDesc *desc,
                                             struct hipExtent extent, unsigned int numLevels,
                                             unsigned int flags)
{
    if (!mipmappedArray || !desc)
        return hw_ret(hipErrorInvalidValue);
    return mipmap_create(mipmappedArray, desc, 0, 0, extent.width, extent.height, extent.depth,
                         numLevels, flags);
}

HW_EXPORT hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t *pHandle,
                                             HIP_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                             unsigned int numMipmapLevels)
{
    if (!pHandle || !pMipmappedArrayDesc)
        return hw_ret(hipErrorInvalidValue);
    const HIP_ARRAY3D_DESCRIPTOR *d = pMipmappedArrayDesc;
    return mipmap_create(pHandle, NULL, d->Format, d->NumChannels, d->Width, d->Height, d->Depth,
                         numMipmapLevels, d->Flags);
}

HW_EXPORT hipError_t hipGetMipmappedArrayLevel(hipArray_t *levelArray,
                                               hipMipmappedArray_const_t mipmappedArray,
                                               unsigned int level)
{
    return mipmap_level(levelArray, mipmappedArray, level);
}

HW_EXPORT hipError_t hipMipmappedArrayGetLevel(hipArray_t *pLevelArray,
                                               hipMipmappedArray_t hMipMappedArray,
                                               unsigned int level)
{
    return mipmap_level(pLevelArray, hMipMappedArray, level);
}

HW_EXPORT hipError_t hipFreeMipmappedArray(hipMipmappedArray_t mipmappedArray)
{
    return mipmap_destroy(mipmappedArray);
}

HW_EXPORT hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t hMipmappedArray)
{
    return mipmap_destroy(hMipmappedArray);
}
