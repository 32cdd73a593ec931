/*
 * api_copy3d.c - copies that name arrays or regions: hipMemcpy2DToArray,
 * hipMemcpy2DFromArray, hipMemcpyToArray/FromArray, hipMemcpyHtoA/AtoH (and
 * HIP 6's AtoD/DtoA/AtoA and HtoA/AtoH Async),
 * hipMemcpy2DArrayToArray, hipMemcpyParam2D, hipDrvMemcpy2DUnaligned,
 * hipMemcpy3D, hipDrvMemcpy3D and their Async forms.
 *
 * Every one becomes a region copy between two ends (array.h): at most one
 * 2-D copy per slice, and a single 2-D copy when both ends hold exactly the
 * copied rows per slice (whole-height copies, the common case). They ride
 * on hw_copy_2d, so their costs and capture behaviour are hipMemcpy2D's: an
 * H2D or D2D copy is fire-and-forget, a D2H copy waits for its data.
 * Argument checks and codes follow AMD's runtime (ROCm 5.5-5.7).
 */
#include <stdint.h>
#include <string.h>

#include "array.h"

#if HIP_VERSION_MAJOR < 6
/* Declared from HIP 6's headers on. */
hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   hipArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t width, size_t height, hipMemcpyKind kind);
hipError_t hipMemcpyAtoD(hipDeviceptr_t dstDevice, hipArray_t srcArray, size_t srcOffset,
                         size_t ByteCount);
hipError_t hipMemcpyDtoA(hipArray_t dstArray, size_t dstOffset, hipDeviceptr_t srcDevice,
                         size_t ByteCount);
hipError_t hipMemcpyAtoA(hipArray_t dstArray, size_t dstOffset, hipArray_t srcArray,
                         size_t srcOffset, size_t ByteCount);
hipError_t hipMemcpyAtoHAsync(void *dstHost, hipArray_t srcArray, size_t srcOffset,
                              size_t ByteCount, hipStream_t stream);
hipError_t hipMemcpyHtoAAsync(hipArray_t dstArray, size_t dstOffset, const void *srcHost,
                              size_t ByteCount, hipStream_t stream);
#endif

/* Memory this proxy allocated on a device: AMD copies from or to it as
 * device memory whatever the caller's kind or memory type says. */
static int is_dev_ptr(const void *p)
{
    struct hw_mem_range r;
    return p && hw_mem_find((uint64_t)(uintptr_t)p, &r) == 0 && r.kind == HW_MEM_DEVICE;
}

/* hipHostMalloc memory is client memory in hipwire (docs/client.md), where
 * a GPU could reach it: a side named device memory that is one is copied
 * as host memory, as AMD would copy it. */
static int is_host_alloc(const void *p)
{
    struct hw_mem_range r;
    return p && hw_mem_find((uint64_t)(uintptr_t)p, &r) == 0 && r.kind == HW_MEM_HOST;
}

static int kind_valid(hipMemcpyKind k)
{
    return (int)k >= (int)hipMemcpyHostToHost && (int)k <= (int)hipMemcpyDefault;
}

/* Which side of a copy of kind k is device memory. */
static int src_on_device(hipMemcpyKind k, const void *p)
{
    if (is_host_alloc(p))
        return 0;
    return k == hipMemcpyDeviceToHost || k == hipMemcpyDeviceToDevice || is_dev_ptr(p);
}

static int dst_on_device(hipMemcpyKind k, const void *p)
{
    if (is_host_alloc(p))
        return 0;
    return k == hipMemcpyHostToDevice || k == hipMemcpyDeviceToDevice || is_dev_ptr(p);
}

static int mul_ok(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* Fills an end's geometry and checks the region fits it. */
static hipError_t resolve(struct hw_copy_end *e, size_t w, size_t h, size_t d, char **start)
{
    size_t row;
    if (e->array) {
        const struct hw_array *a = e->array;
        size_t rows = hw_array_rows(a), slices = hw_array_slices(a);
        if (w > a->pitch || e->x > a->pitch - w || h > rows || e->y > rows - h || d > slices ||
            e->z > slices - d)
            return hipErrorInvalidValue;
        e->base = a->dev;
        e->device = 1;
        e->pitch = a->pitch;
        e->rows = rows;
    } else {
        if (!e->base)
            return hipErrorInvalidValue;
        if (e->pitch == 0) /* 0: rows packed, as AMD's rectangle copies read it */
            e->pitch = w;
        if (e->rows == 0)
            e->rows = h;
        if (w > e->pitch || e->x > e->pitch - w)
            return hipErrorInvalidValue;
        if (d > 1 && (h > e->rows || e->y > e->rows - h))
            return hipErrorInvalidValue;
    }
    if (!mul_ok(e->z, e->rows, &row) || __builtin_add_overflow(row, e->y, &row) ||
        !mul_ok(row, e->pitch, &row) || __builtin_add_overflow(row, e->x, &row))
        return hipErrorInvalidValue;
    *start = e->base + row;
    return hipSuccess;
}

hipError_t hw_copy_region(struct hw_copy_end *dst, struct hw_copy_end *src, size_t width,
                          size_t height, size_t depth, hipStream_t stream, int sync)
{
    hipError_t err;
    char *d0, *s0;
    size_t dslice, sslice;
    if (width == 0 || height == 0 || depth == 0)
        return hipSuccess;
    if ((err = resolve(dst, width, height, depth, &d0)) != hipSuccess ||
        (err = resolve(src, width, height, depth, &s0)) != hipSuccess)
        return hw_ret(err);
    hipMemcpyKind kind = src->device
                             ? (dst->device ? hipMemcpyDeviceToDevice : hipMemcpyDeviceToHost)
                             : (dst->device ? hipMemcpyHostToDevice : hipMemcpyHostToHost);
    if (!mul_ok(dst->pitch, dst->rows, &dslice) || !mul_ok(src->pitch, src->rows, &sslice))
        return hw_ret(hipErrorInvalidValue);
    /* Rows of consecutive slices are evenly spaced when each slice holds
     * exactly the copied rows: one 2-D copy then covers every slice. */
    if (depth == 1 || (dst->rows == height && src->rows == height)) {
        size_t rows;
        if (!mul_ok(height, depth, &rows))
            return hw_ret(hipErrorInvalidValue);
        return hw_copy_2d(d0, dst->pitch, s0, src->pitch, width, rows, kind, stream, sync);
    }
    for (size_t z = 0; z < depth; z++) {
        err = hw_copy_2d(d0 + z * dslice, dst->pitch, s0 + z * sslice, src->pitch, width, height,
                         kind, stream, sync);
        if (err != hipSuccess)
            return err;
    }
    return hipSuccess;
}

/* AMD's hipMemcpy2DValidateArray: the region in bytes and rows against the
 * array (a 1-D array has one row). */
static hipError_t array_fits(const struct hw_array *a, size_t x, size_t y, size_t w, size_t h)
{
    if (w > a->pitch || x > a->pitch - w)
        return hipErrorInvalidValue;
    if (h > hw_array_rows(a) || y > hw_array_rows(a) - h)
        return hipErrorInvalidValue;
    return hipSuccess;
}

static hipError_t to_array(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                           size_t spitch, size_t width, size_t height, hipMemcpyKind kind,
                           hipStream_t stream, int sync)
{
    hipError_t err;
    const struct hw_array *a = hw_array_get(dst);
    if (!kind_valid(kind))
        return hw_ret(hipErrorInvalidMemcpyDirection);
    if (!src)
        return hw_ret(hipErrorInvalidValue);
    if (spitch == 0 || spitch < width)
        return hw_ret(hipErrorInvalidPitchValue);
    if (!a)
        return hw_ret(hipErrorInvalidHandle);
    if ((err = array_fits(a, wOffset, hOffset, width, height)) != hipSuccess)
        return hw_ret(err);
    struct hw_copy_end de = { .array = a, .x = wOffset, .y = hOffset };
    struct hw_copy_end se = { .base = (char *)src,
                              .device = src_on_device(kind, src),
                              .pitch = spitch };
    return hw_copy_region(&de, &se, width, height, 1, stream, sync);
}

static hipError_t from_array(void *dst, size_t dpitch, hipArray_const_t src, size_t wOffset,
                             size_t hOffset, size_t width, size_t height, hipMemcpyKind kind,
                             hipStream_t stream, int sync)
{
    hipError_t err;
    const struct hw_array *a = hw_array_get(src);
    if (!kind_valid(kind))
        return hw_ret(hipErrorInvalidMemcpyDirection);
    /* AMD checks the array before the buffer here, the buffer first in to_array. */
    if (!a)
        return hw_ret(hipErrorInvalidHandle);
    if ((err = array_fits(a, wOffset, hOffset, width, height)) != hipSuccess)
        return hw_ret(err);
    if (!dst)
        return hw_ret(hipErrorInvalidValue);
    if (dpitch == 0 || dpitch < width)
        return hw_ret(hipErrorInvalidPitchValue);
    struct hw_copy_end se = { .array = a, .x = wOffset, .y = hOffset };
    struct hw_copy_end de = { .base = dst, .device = dst_on_device(kind, dst), .pitch = dpitch };
    return hw_copy_region(&de, &se, width, height, 1, stream, sync);
}

HW_EXPORT hipError_t hipMemcpy2DToArray(hipArray_t dst, size_t wOffset, size_t hOffset,
                                        const void *src, size_t spitch, size_t width, size_t height,
                                        hipMemcpyKind kind)
{
    return to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpy2DToArrayAsync(hipArray_t dst, size_t wOffset, size_t hOffset,
                                             const void *src, size_t spitch, size_t width,
                                             size_t height, hipMemcpyKind kind, hipStream_t stream)
{
    return to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, stream, 0);
}

HW_EXPORT hipError_t hipMemcpy2DFromArray(void *dst, size_t dpitch, hipArray_const_t src,
                                          size_t wOffset, size_t hOffset, size_t width,
                                          size_t height, hipMemcpyKind kind)
{
    return from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpy2DFromArrayAsync(void *dst, size_t dpitch, hipArray_const_t src,
                                               size_t wOffset, size_t hOffset, size_t width,
                                               size_t height, hipMemcpyKind kind,
                                               hipStream_t stream)
{
    return from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream, 0);
}

/* count bytes of the array's storage from row hOffset, byte wOffset on,
 * running on into the following rows (rows are packed). */
static hipError_t linear_end(hipArray_const_t array, size_t wOffset, size_t hOffset, size_t count,
                             struct hw_copy_end *e)
{
    const struct hw_array *a = hw_array_get(array);
    size_t total, off;
    if (!a)
        return hipErrorInvalidValue;
    total = a->pitch * hw_array_rows(a) * hw_array_slices(a);
    if (!mul_ok(hOffset, a->pitch, &off) || __builtin_add_overflow(off, wOffset, &off) ||
        off > total || count > total - off)
        return hipErrorInvalidValue;
    e->base = (char *)a->dev + off;
    e->device = 1;
    e->pitch = count;
    e->rows = 1;
    return hipSuccess;
}

HW_EXPORT hipError_t hipMemcpyToArray(hipArray_t dst, size_t wOffset, size_t hOffset,
                                      const void *src, size_t count, hipMemcpyKind kind)
{
    hipError_t err;
    struct hw_copy_end de = { 0 };
    if (!dst || !src)
        return hw_ret(hipErrorInvalidValue);
    if (!kind_valid(kind))
        return hw_ret(hipErrorInvalidMemcpyDirection);
    if ((err = linear_end(dst, wOffset, hOffset, count, &de)) != hipSuccess)
        return hw_ret(err);
    struct hw_copy_end se = { .base = (char *)src,
                              .device = src_on_device(kind, src),
                              .pitch = count };
    return hw_copy_region(&de, &se, count, 1, 1, NULL, 1);
}

hipError_t hw_copy_from_array_linear(void *dst, hipArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, hipMemcpyKind kind,
                                     hipStream_t stream, int sync)
{
    hipError_t err;
    struct hw_copy_end se = { 0 };
    if (!dst || !src)
        return hw_ret(hipErrorInvalidValue);
    if (!kind_valid(kind))
        return hw_ret(hipErrorInvalidMemcpyDirection);
    if ((err = linear_end(src, wOffset, hOffset, count, &se)) != hipSuccess)
        return hw_ret(err);
    struct hw_copy_end de = { .base = dst, .device = dst_on_device(kind, dst), .pitch = count };
    return hw_copy_region(&de, &se, count, 1, 1, stream, sync);
}

HW_EXPORT hipError_t hipMemcpyFromArray(void *dst, hipArray_const_t srcArray, size_t wOffset,
                                        size_t hOffset, size_t count, hipMemcpyKind kind)
{
    return hw_copy_from_array_linear(dst, srcArray, wOffset, hOffset, count, kind, NULL, 1);
}

/* The driver byte calls address the array's first row, as AMD's image
 * region {offset, 0, 0} x {count, 1, 1} does. A NULL array is an invalid
 * value there, not an invalid handle. */
static hipError_t row0_end(hipArray_const_t array, size_t offset, struct hw_copy_end *e)
{
    memset(e, 0, sizeof *e);
    e->array = hw_array_get(array);
    e->x = offset;
    return e->array ? hipSuccess : hipErrorInvalidValue;
}

static hipError_t ptr_end(const void *p, int device, struct hw_copy_end *e)
{
    memset(e, 0, sizeof *e);
    e->base = (char *)p;
    e->device = (device && !is_host_alloc(p)) || is_dev_ptr(p);
    return p ? hipSuccess : hipErrorInvalidValue;
}

static hipError_t byte_copy(struct hw_copy_end *de, hipError_t derr, struct hw_copy_end *se,
                            hipError_t serr, size_t count, hipStream_t stream, int sync)
{
    if (derr != hipSuccess || serr != hipSuccess)
        return hw_ret(hipErrorInvalidValue);
    return hw_copy_region(de, se, count, 1, 1, stream, sync);
}

HW_EXPORT hipError_t hipMemcpyHtoA(hipArray_t dstArray, size_t dstOffset, const void *srcHost,
                                   size_t count)
{
    struct hw_copy_end de, se;
    hipError_t derr = row0_end(dstArray, dstOffset, &de), serr = ptr_end(srcHost, 0, &se);
    return byte_copy(&de, derr, &se, serr, count, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyHtoAAsync(hipArray_t dstArray, size_t dstOffset, const void *srcHost,
                                        size_t ByteCount, hipStream_t stream)
{
    struct hw_copy_end de, se;
    hipError_t derr = row0_end(dstArray, dstOffset, &de), serr = ptr_end(srcHost, 0, &se);
    return byte_copy(&de, derr, &se, serr, ByteCount, stream, 0);
}

HW_EXPORT hipError_t hipMemcpyAtoH(void *dst, hipArray_t srcArray, size_t srcOffset, size_t count)
{
    struct hw_copy_end de, se;
    hipError_t derr = ptr_end(dst, 0, &de), serr = row0_end(srcArray, srcOffset, &se);
    return byte_copy(&de, derr, &se, serr, count, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyAtoHAsync(void *dstHost, hipArray_t srcArray, size_t srcOffset,
                                        size_t ByteCount, hipStream_t stream)
{
    struct hw_copy_end de, se;
    hipError_t derr = ptr_end(dstHost, 0, &de), serr = row0_end(srcArray, srcOffset, &se);
    return byte_copy(&de, derr, &se, serr, ByteCount, stream, 0);
}

HW_EXPORT hipError_t hipMemcpyDtoA(hipArray_t dstArray, size_t dstOffset, hipDeviceptr_t srcDevice,
                                   size_t ByteCount)
{
    struct hw_copy_end de, se;
    hipError_t derr = row0_end(dstArray, dstOffset, &de), serr = ptr_end(srcDevice, 1, &se);
    return byte_copy(&de, derr, &se, serr, ByteCount, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyAtoD(hipDeviceptr_t dstDevice, hipArray_t srcArray, size_t srcOffset,
                                   size_t ByteCount)
{
    struct hw_copy_end de, se;
    hipError_t derr = ptr_end(dstDevice, 1, &de), serr = row0_end(srcArray, srcOffset, &se);
    return byte_copy(&de, derr, &se, serr, ByteCount, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyAtoA(hipArray_t dstArray, size_t dstOffset, hipArray_t srcArray,
                                   size_t srcOffset, size_t ByteCount)
{
    struct hw_copy_end de, se;
    hipError_t derr = row0_end(dstArray, dstOffset, &de), serr = row0_end(srcArray, srcOffset, &se);
    return byte_copy(&de, derr, &se, serr, ByteCount, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                             hipArray_const_t src, size_t wOffsetSrc,
                                             size_t hOffsetSrc, size_t width, size_t height,
                                             hipMemcpyKind kind)
{
    hipError_t err;
    const struct hw_array *s = hw_array_get(src), *d = hw_array_get(dst);
    if (!kind_valid(kind))
        return hw_ret(hipErrorInvalidMemcpyDirection);
    if (!s)
        return hw_ret(hipErrorInvalidHandle);
    if ((err = array_fits(s, wOffsetSrc, hOffsetSrc, width, height)) != hipSuccess)
        return hw_ret(err);
    if (!d)
        return hw_ret(hipErrorInvalidHandle);
    if ((err = array_fits(d, wOffsetDst, hOffsetDst, width, height)) != hipSuccess)
        return hw_ret(err);
    struct hw_copy_end se = { .array = s, .x = wOffsetSrc, .y = hOffsetSrc };
    struct hw_copy_end de = { .array = d, .x = wOffsetDst, .y = hOffsetDst };
    return hw_copy_region(&de, &se, width, height, 1, NULL, 1);
}

/* ---- the driver descriptors (hip_Memcpy2D, HIP_MEMCPY3D) --------------------- */

/* One side of a driver descriptor, by its memory type. */
static hipError_t drv_end(hipMemoryType type, const void *host, const void *device,
                          hipArray_const_t array, size_t pitch, size_t rows, size_t x, size_t y,
                          size_t z, struct hw_copy_end *e)
{
    memset(e, 0, sizeof *e);
    e->x = x;
    e->y = y;
    e->z = z;
    e->pitch = pitch;
    e->rows = rows;
    switch (type) {
    case hipMemoryTypeHost:
        e->base = (char *)host;
        e->device = is_dev_ptr(host);
        return hipSuccess;
    case hipMemoryTypeDevice:
        e->base = (char *)device;
        e->device = !is_host_alloc(device);
        return hipSuccess;
    case hipMemoryTypeUnified:
        e->base = (char *)device;
        e->device = is_dev_ptr(device);
        return hipSuccess;
    case hipMemoryTypeArray:
        if (!(e->array = hw_array_get(array)))
            return hipErrorInvalidValue;
        return hipSuccess;
    default: return hipErrorInvalidValue;
    }
}

static hipError_t drv_copy_3d(const HIP_MEMCPY3D *p, hipStream_t stream, int sync)
{
    hipError_t err;
    struct hw_copy_end se, de;
    if (!p)
        return hw_ret(hipErrorInvalidValue);
    if (p->WidthInBytes == 0 || p->Height == 0 || p->Depth == 0)
        return hipSuccess;
    if ((err = drv_end(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcPitch,
                       p->srcHeight, p->srcXInBytes, p->srcY, p->srcZ, &se)) != hipSuccess ||
        (err = drv_end(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstPitch,
                       p->dstHeight, p->dstXInBytes, p->dstY, p->dstZ, &de)) != hipSuccess)
        return hw_ret(err);
    return hw_copy_region(&de, &se, p->WidthInBytes, p->Height, p->Depth, stream, sync);
}

static hipError_t drv_copy_2d(const hip_Memcpy2D *p, hipStream_t stream, int sync)
{
    hipError_t err;
    struct hw_copy_end se, de;
    if (!p)
        return hw_ret(hipErrorInvalidValue);
    if (p->WidthInBytes == 0 || p->Height == 0)
        return hipSuccess;
    if ((err = drv_end(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcPitch, 0,
                       p->srcXInBytes, p->srcY, 0, &se)) != hipSuccess ||
        (err = drv_end(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstPitch, 0,
                       p->dstXInBytes, p->dstY, 0, &de)) != hipSuccess)
        return hw_ret(err);
    return hw_copy_region(&de, &se, p->WidthInBytes, p->Height, 1, stream, sync);
}

HW_EXPORT hipError_t hipMemcpyParam2D(const hip_Memcpy2D *pCopy)
{
    return drv_copy_2d(pCopy, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D *pCopy, hipStream_t stream)
{
    return drv_copy_2d(pCopy, stream, 0);
}

/* Alignment is the hardware's concern; the copy is the same. */
HW_EXPORT hipError_t hipDrvMemcpy2DUnaligned(const hip_Memcpy2D *pCopy)
{
    return drv_copy_2d(pCopy, NULL, 1);
}

HW_EXPORT hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D *pCopy)
{
    return drv_copy_3d(pCopy, NULL, 1);
}

HW_EXPORT hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D *pCopy, hipStream_t stream)
{
    return drv_copy_3d(pCopy, stream, 0);
}

/* ---- hipMemcpy3D ---------------------------------------------------------------- */

/* AMD's checks of a hipMemcpy3DParms, in its order; fills the two ends
 * and the row width in bytes. Codes are returned, not recorded. */
static hipError_t parms_ends(const struct hipMemcpy3DParms *p, struct hw_copy_end *de,
                             struct hw_copy_end *se, size_t *width)
{
    const struct hw_array *sa, *da;
    if (!p || (p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr) ||
        (!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr))
        return hipErrorInvalidValue;
    sa = p->srcArray ? hw_array_get(p->srcArray) : NULL;
    da = p->dstArray ? hw_array_get(p->dstArray) : NULL;
    if ((p->srcArray && !sa) || (p->dstArray && !da) || (sa && da && sa->elem != da->elem))
        return hipErrorInvalidValue;
    if (p->srcPtr.pitch < p->srcPtr.xsize || p->dstPtr.pitch < p->dstPtr.xsize)
        return hipErrorInvalidPitchValue;
    if (!kind_valid(p->kind))
        return hipErrorInvalidMemcpyDirection;
    /* AMD's IsHtoHMemcpyValid: two host pointers take a host kind. */
    if (p->srcPtr.ptr && p->dstPtr.ptr && !is_dev_ptr(p->srcPtr.ptr) &&
        !is_dev_ptr(p->dstPtr.ptr) && p->kind != hipMemcpyHostToHost && p->kind != hipMemcpyDefault)
        return hipErrorInvalidValue;
    /* Positions and the width are in elements where an array takes part. */
    size_t selem = sa ? sa->elem : 1, delem = da ? da->elem : 1;
    size_t welem = da ? da->elem : selem, sx, dx;
    if (!mul_ok(p->extent.width, welem, width) || !mul_ok(p->srcPos.x, selem, &sx) ||
        !mul_ok(p->dstPos.x, delem, &dx))
        return hipErrorInvalidValue;
    *se = (struct hw_copy_end){ .array = sa, .x = sx, .y = p->srcPos.y, .z = p->srcPos.z };
    *de = (struct hw_copy_end){ .array = da, .x = dx, .y = p->dstPos.y, .z = p->dstPos.z };
    if (!sa) {
        se->base = p->srcPtr.ptr;
        se->device = src_on_device(p->kind, p->srcPtr.ptr);
        se->pitch = p->srcPtr.pitch;
        se->rows = p->srcPtr.ysize;
    }
    if (!da) {
        de->base = p->dstPtr.ptr;
        de->device = dst_on_device(p->kind, p->dstPtr.ptr);
        de->pitch = p->dstPtr.pitch;
        de->rows = p->dstPtr.ysize;
    }
    return hipSuccess;
}

hipError_t hw_copy_3d_check(const struct hipMemcpy3DParms *p)
{
    struct hw_copy_end de, se;
    size_t width;
    char *start;
    hipError_t err = parms_ends(p, &de, &se, &width);
    if (err != hipSuccess || width == 0 || p->extent.height == 0 || p->extent.depth == 0)
        return err;
    if ((err = resolve(&de, width, p->extent.height, p->extent.depth, &start)) != hipSuccess)
        return err;
    return resolve(&se, width, p->extent.height, p->extent.depth, &start);
}

hipError_t hw_copy_3d(const struct hipMemcpy3DParms *p, hipStream_t stream, int sync)
{
    struct hw_copy_end de, se;
    size_t width;
    hipError_t err = parms_ends(p, &de, &se, &width);
    if (err != hipSuccess)
        return hw_ret(err);
    return hw_copy_region(&de, &se, width, p->extent.height, p->extent.depth, stream, sync);
}

HW_EXPORT hipError_t hipMemcpy3D(const struct hipMemcpy3DParms *p)
{
    return hw_copy_3d(p, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms *p, hipStream_t stream)
{
    return hw_copy_3d(p, stream, 0);
}
