/*
 * array.h - HIP arrays as the proxy keeps them: client-side bookkeeping over
 * one linear device allocation (hipMalloc on the device current at
 * creation), rows packed (pitch = width * element size), slices packed
 * (height rows each). No texture or surface hardware is involved, so an
 * array is only a container to copy into and out of.
 */
#ifndef HW_ARRAY_H
#define HW_ARRAY_H

#include <stddef.h>

#include "client.h"

/* The image limits a gfx9 GPU reports (hipDeviceProp_t maxTexture*); arrays
 * are checked against them, as AMD's runtime checks its images. */
#define HW_ARRAY_MAX_1D     16384
#define HW_ARRAY_MAX_2D_W   16384
#define HW_ARRAY_MAX_2D_H   16384
#define HW_ARRAY_MAX_3D_W   16384
#define HW_ARRAY_MAX_3D_H   16384
#define HW_ARRAY_MAX_3D_D   8192
#define HW_ARRAY_MAX_LAYERS 8192

struct hw_array {
#if HIP_VERSION_MAJOR < 6
    /* HIP 5 headers make struct hipArray public: its fields are filled in
     * for programs that read them. HIP 6 made it opaque. */
    hipArray pub;
#endif
    void *dev;     /* the allocation (every array has at least one element) */
    size_t width;  /* elements */
    size_t height; /* rows as created (0: 1-D) */
    size_t depth;  /* slices or layers as created (0: none) */
    size_t elem;   /* bytes per element */
    size_t pitch;  /* bytes per row */
    hipChannelFormatDesc desc;
    hipArray_Format format;
    unsigned channels;
    unsigned flags;
    int device;
    /* The mipmapped array this is a level of (it frees it), else NULL. */
    const void *mipmap;
};

/* The live array behind a handle the application passed; NULL when it is
 * not one (never issued, or destroyed). */
struct hw_array *hw_array_get(const void *handle);

static inline size_t hw_array_rows(const struct hw_array *a)
{
    return a->height ? a->height : 1;
}

static inline size_t hw_array_slices(const struct hw_array *a)
{
    return a->depth ? a->depth : 1;
}

/* Creates an array of f x channels elements (hipArray3DCreate's body).
 * Records its error (hw_ret). */
hipError_t hw_array_create(hipArray_t *out, size_t w, size_t h, size_t d, hipArray_Format f,
                           unsigned channels, unsigned flags);
/* Creates an array from a runtime descriptor, as hipMalloc3DArray does
 * (mipmap levels are made by it). Records its error (hw_ret). */
hipError_t hw_array_create_desc(hipArray_t *out, const hipChannelFormatDesc *desc, size_t w,
                                size_t h, size_t d, unsigned flags);
/* Frees an array whatever owns it (a mipmapped array freeing its levels). */
hipError_t hw_array_free_level(hipArray_t array);

/* One side of a region copy: an array, or memory at base with pitch bytes
 * per row and rows rows per slice. */
struct hw_copy_end {
    const struct hw_array *array; /* when set, base/pitch/rows come from it */
    char *base;
    int device; /* 1: device memory, 0: host */
    size_t pitch, rows;
    size_t x, y, z; /* origin: bytes, rows, slices */
};

/* Copies a width-bytes x height x depth region between two ends, as 2-D
 * copies (one when both ends' slices are exactly height rows, else one
 * per slice). Checks the region against each end; hipErrorInvalidValue
 * when it does not fit. */
hipError_t hw_copy_region(struct hw_copy_end *dst, struct hw_copy_end *src, size_t width,
                          size_t height, size_t depth, hipStream_t stream, int sync);

/* hipMemcpyFromArray's body (its _spt form runs it on the thread's stream):
 * count bytes of the array's packed storage from row hOffset, byte wOffset
 * on, running on into the following rows. */
hipError_t hw_copy_from_array_linear(void *dst, hipArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, hipMemcpyKind kind,
                                     hipStream_t stream, int sync);

/* hipMemcpy3D's body (its Async form: sync 0), also graph memcpy nodes'
 * replay: array or pointer operands. Records its error (hw_ret). */
hipError_t hw_copy_3d(const struct hipMemcpy3DParms *p, hipStream_t stream, int sync);
/* hipMemcpy3D's argument checks and the region against both operands,
 * without copying (graph memcpy nodes check when added or set). */
hipError_t hw_copy_3d_check(const struct hipMemcpy3DParms *p);

#endif
