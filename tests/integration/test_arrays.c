/*
 * HIP arrays end to end: every element format through 2-D copies in and out
 * of arrays of odd sizes, 1-D, 2-D, 3-D and layered arrays, the driver
 * descriptors, hipMemcpy3D's array and pitched-pointer forms, linear and
 * row-0 byte copies, array to array, bad arguments with AMD's codes, double
 * frees, and the round trips an asynchronous 3-D upload costs.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* hipMemcpyToArray/FromArray are deprecated, and still used and tested. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#if HIP_VERSION_MAJOR < 6
/* Declared from HIP 6's headers on; the proxy exports them. */
hipError_t hipArrayGetInfo(hipChannelFormatDesc *desc, hipExtent *extent, unsigned int *flags,
                           hipArray_t array);
hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR *pArrayDescriptor, hipArray_t array);
hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR *pArrayDescriptor, hipArray_t array);
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
hipError_t hipMemcpyFromArray_spt(void *dst, hipArray_const_t src, size_t wOffsetSrc,
                                  size_t hOffset, size_t count, hipMemcpyKind kind);
#endif
void hipwire_client_stats(unsigned long long *round_trips, unsigned long long *posted);

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

/* Compares a w-bytes x h x d box of two pitched host buffers. */
static void check_box(const uint8_t *want, size_t wpitch, size_t wrows, const uint8_t *got,
                      size_t gpitch, size_t grows, size_t w, size_t h, size_t d, const char *what)
{
    for (size_t z = 0; z < d; z++)
        for (size_t y = 0; y < h; y++) {
            const uint8_t *a = want + (z * wrows + y) * wpitch, *b = got + (z * grows + y) * gpitch;
            if (memcmp(a, b, w) != 0) {
                fprintf(stderr, "%s: row %zu of slice %zu differs\n", what, y, z);
                exit(1);
            }
        }
}

static void every_format(void)
{
    static const hipChannelFormatKind kinds[] = { hipChannelFormatKindSigned,
                                                  hipChannelFormatKindUnsigned,
                                                  hipChannelFormatKindFloat };
    static const int bits[] = { 8, 16, 32 }, channels[] = { 1, 2, 4 };
    const size_t w = 37, h = 5, pad = 11;
    int tested = 0;
    for (size_t k = 0; k < 3; k++)
        for (size_t b = 0; b < 3; b++)
            for (size_t c = 0; c < 3; c++) {
                int n = channels[c], bt = bits[b];
                hipChannelFormatDesc desc = hipCreateChannelDesc(bt, n > 1 ? bt : 0, n > 2 ? bt : 0,
                                                                 n > 2 ? bt : 0, kinds[k]);
                CHECK_EQ(desc.x, bt);
                CHECK_EQ(desc.f, kinds[k]);
                hipArray_t a = NULL;
                if (kinds[k] == hipChannelFormatKindFloat && bt == 8) {
                    HIP_EXPECT(hipMallocArray(&a, &desc, w, h, hipArrayDefault),
                               hipErrorInvalidValue);
                    continue;
                }
                HIP_CHECK(hipMallocArray(&a, &desc, w, h, hipArrayDefault));
                size_t elem = (size_t)(bt / 8 * n), wb = w * elem, spitch = wb + pad;
                uint8_t *src = malloc(spitch * h), *back = malloc((wb + 3) * h);
                CHECK(src && back);
                fill(src, spitch * h, (uint32_t)(k * 9 + b * 3 + c));
                memset(back, 0xee, (wb + 3) * h);
                HIP_CHECK(hipMemcpy2DToArray(a, 0, 0, src, spitch, wb, h, hipMemcpyHostToDevice));
                HIP_CHECK(
                    hipMemcpy2DFromArray(back, wb + 3, a, 0, 0, wb, h, hipMemcpyDeviceToHost));
                check_box(src, spitch, h, back, wb + 3, h, wb, h, 1, "format round trip");
                hipChannelFormatDesc got;
                HIP_CHECK(hipGetChannelDesc(&got, a));
                CHECK(memcmp(&got, &desc, sizeof got) == 0);
                hipExtent ext;
                unsigned flags = 99;
                HIP_CHECK(hipArrayGetInfo(&got, &ext, &flags, a));
                CHECK(ext.width == w && ext.height == h && ext.depth == 0 && flags == 0);
                CHECK(got.x == bt && got.f == kinds[k]);
#if HIP_VERSION_MAJOR < 6
                /* HIP 5's public struct hipArray describes the array too. */
                CHECK(a->width == w && a->height == h && a->NumChannels == (unsigned)n);
#endif
                HIP_CHECK(hipFreeArray(a));
                free(src);
                free(back);
                tested++;
            }
    CHECK_EQ(tested, 24);
}

/* A 1-D array: the byte calls address row 0, the linear calls run on. */
static void one_d_and_linear(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindUnsigned);
    hipArray_t a;
    uint8_t src[400], back[400];
    HIP_CHECK(hipMallocArray(&a, &desc, 97, 0, hipArrayDefault)); /* 388 bytes */
    fill(src, sizeof src, 5);
    memset(back, 0, sizeof back);
    HIP_CHECK(hipMemcpyHtoA(a, 0, src, 388));
    HIP_CHECK(hipMemcpyHtoA(a, 8, src + 100, 13)); /* odd offset and count */
    HIP_CHECK(hipMemcpyAtoH(back, a, 0, 388));
    CHECK(memcmp(back, src, 8) == 0);
    CHECK(memcmp(back + 8, src + 100, 13) == 0);
    CHECK(memcmp(back + 21, src + 21, 388 - 21) == 0);
    HIP_EXPECT(hipMemcpyAtoH(back, a, 380, 9), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyHtoA(a, 0, src, 389), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyHtoA(a, 0, NULL, 4), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyAtoH(NULL, a, 0, 4), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyAtoH(back, NULL, 0, 4), hipErrorInvalidValue);
    /* A 1-D array has one row. */
    HIP_EXPECT(hipMemcpy2DToArray(a, 0, 0, src, 388, 388, 2, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
    HIP_CHECK(hipFreeArray(a));

    /* 2-D, 10 x 6 floats: hipMemcpyToArray from (row 2, byte 12) runs on
     * through the following rows; the driver byte calls stay in row 0. */
    desc = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
    HIP_CHECK(hipMallocArray(&a, &desc, 10, 6, hipArrayDefault));
    uint8_t all[240], img[240];
    memset(all, 0, sizeof all);
    HIP_CHECK(hipMemcpyToArray(a, 0, 0, all, sizeof all, hipMemcpyHostToDevice));
    fill(src, 100, 6);
    HIP_CHECK(hipMemcpyToArray(a, 12, 2, src, 100, hipMemcpyHostToDevice));
    memcpy(all + 2 * 40 + 12, src, 100);
    HIP_CHECK(hipMemcpyFromArray(img, a, 0, 0, sizeof img, hipMemcpyDeviceToHost));
    CHECK(memcmp(img, all, sizeof img) == 0);
    HIP_CHECK(hipMemcpyFromArray(back, a, 12, 2, 100, hipMemcpyDefault));
    CHECK(memcmp(back, src, 100) == 0);
    HIP_EXPECT(hipMemcpyToArray(a, 0, 5, src, 41, hipMemcpyHostToDevice), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyToArray(NULL, 0, 0, src, 4, hipMemcpyHostToDevice), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyToArray(a, 0, 0, src, 4, (hipMemcpyKind)9), hipErrorInvalidMemcpyDirection);
    HIP_EXPECT(hipMemcpyAtoH(back, a, 0, 41), hipErrorInvalidValue);
    HIP_CHECK(hipMemcpyAtoH(back, a, 0, 40));
    CHECK(memcmp(back, all, 40) == 0);
    HIP_CHECK(hipFreeArray(a));
}

/* Sub-rectangles, device memory on the other side, array to array. */
static void two_d(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindSigned);
    const size_t w = 19, h = 11, wb = w * 4;
    hipArray_t a, b;
    uint8_t *img = malloc(wb * h), *back = malloc(wb * h), *dev;
    CHECK(img && back);
    HIP_CHECK(hipMallocArray(&a, &desc, w, h, hipArrayDefault));
    HIP_CHECK(hipMallocArray(&b, &desc, w, h, hipArrayDefault));
    fill(img, wb * h, 7);
    HIP_CHECK(hipMemcpy2DToArray(a, 0, 0, img, wb, wb, h, hipMemcpyHostToDevice));
    /* Device to array, through a padded device buffer. */
    const size_t dpitch = wb + 64;
    HIP_CHECK(hipMalloc((void **)&dev, dpitch * h));
    HIP_CHECK(hipMemcpy2DFromArray(dev, dpitch, a, 0, 0, wb, h, hipMemcpyDeviceToDevice));
    memset(back, 0, wb * h);
    HIP_CHECK(hipMemcpy2DToArray(b, 0, 0, back, wb, wb, h, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy2DToArray(b, 0, 0, dev, dpitch, wb, h, hipMemcpyDefault));
    HIP_CHECK(hipMemcpy2DFromArray(back, wb, b, 0, 0, wb, h, hipMemcpyDeviceToHost));
    CHECK(memcmp(back, img, wb * h) == 0);
    /* A 5 x 3 element window at (2, 4) of a into (7, 1) of b. */
    uint8_t zero[1024] = { 0 };
    HIP_CHECK(hipMemcpy2DToArray(b, 0, 0, zero, wb, wb, h, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy2DArrayToArray(b, 7 * 4, 1, a, 2 * 4, 4, 5 * 4, 3, hipMemcpyDefault));
    HIP_CHECK(hipMemcpy2DFromArray(back, wb, b, 0, 0, wb, h, hipMemcpyDeviceToHost));
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < wb; x++) {
            int in = y >= 1 && y < 4 && x >= 28 && x < 48;
            uint8_t want = in ? img[(y + 3) * wb + x - 20] : 0;
            CHECK_EQ(back[y * wb + x], want);
        }
    /* Window from the array into host memory, async on a stream. */
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    memset(back, 0, wb * h);
    HIP_CHECK(hipMemcpy2DFromArrayAsync(back, 9, a, 3, 2, 9, 7, hipMemcpyDeviceToHost, s));
    HIP_CHECK(hipStreamSynchronize(s));
    check_box(img + 2 * wb + 3, wb, h, back, 9, 7, 9, 7, 1, "window from array");
    HIP_CHECK(hipMemcpy2DToArrayAsync(a, 0, 10, img, wb, wb, 1, hipMemcpyHostToDevice, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipStreamDestroy(s));

    /* AMD's codes for bad 2-D array copies. */
    HIP_EXPECT(hipMemcpy2DToArray(NULL, 0, 0, img, wb, wb, h, hipMemcpyHostToDevice),
               hipErrorInvalidHandle);
    HIP_EXPECT(hipMemcpy2DToArray(a, 0, 0, NULL, wb, wb, h, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpy2DToArray(a, 0, 0, img, 0, wb, h, hipMemcpyHostToDevice),
               hipErrorInvalidPitchValue);
    HIP_EXPECT(hipMemcpy2DToArray(a, 1, 1, img, wb, wb, h, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpy2DToArray(a, 0, 0, img, wb + 2, wb + 2, h + 2, hipMemcpyHostToDevice),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpy2DToArray(a, 0, 0, img, wb, wb, h, (hipMemcpyKind)7),
               hipErrorInvalidMemcpyDirection);
    HIP_EXPECT(hipMemcpy2DFromArray(back, 0, a, 0, 0, wb, h, hipMemcpyDeviceToHost),
               hipErrorInvalidPitchValue);
    HIP_EXPECT(hipMemcpy2DFromArray(NULL, wb, a, 0, 0, wb, h, hipMemcpyDeviceToHost),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpy2DFromArray(back, wb, NULL, 0, 0, wb, h, hipMemcpyDeviceToHost),
               hipErrorInvalidHandle);
    HIP_EXPECT(hipMemcpy2DArrayToArray(b, 0, 0, a, 4, 0, wb, 1, hipMemcpyDefault),
               hipErrorInvalidValue);
    /* Zero width or height copies nothing and succeeds. */
    memset(back, 0x5a, wb * h);
    HIP_CHECK(hipMemcpy2DToArray(a, 0, 0, back, wb, 0, h, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy2DToArray(a, 0, 0, back, wb, wb, 0, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy2DFromArray(back, wb, a, 0, 0, wb, h, hipMemcpyDeviceToHost));
    CHECK(memcmp(back, img, wb) == 0);
    HIP_CHECK(hipFree(dev));
    HIP_CHECK(hipFreeArray(a));
    HIP_CHECK(hipFreeArray(b));
    free(img);
    free(back);
}

/* hipMemcpy3D: host pitched pointer -> array -> device pitched pointer ->
 * host, whole boxes and sub-boxes, per-slice and merged paths. */
static void three_d(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(32, 32, 0, 0, hipChannelFormatKindFloat);
    const size_t w = 13, h = 7, d = 5, elem = 8, wb = w * elem;
    const size_t hp = wb + 24, hrows = h + 2; /* host slices hold 2 spare rows */
    hipArray_t a;
    HIP_CHECK(hipMalloc3DArray(&a, &desc, make_hipExtent(w, h, d), hipArrayDefault));
    hipExtent ext;
    unsigned flags;
    HIP_CHECK(hipArrayGetInfo(NULL, &ext, &flags, a));
    CHECK(ext.width == w && ext.height == h && ext.depth == d);
    uint8_t *src = malloc(hp * hrows * d), *back = malloc(hp * hrows * d), *dev;
    CHECK(src && back);
    fill(src, hp * hrows * d, 11);

    hipMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_hipPitchedPtr(src, hp, w, hrows);
    p.dstArray = a;
    p.extent = make_hipExtent(w, h, d);
    p.kind = hipMemcpyHostToDevice;
    HIP_CHECK(hipMemcpy3D(&p));

    /* Array -> device buffer (pitch 128, exactly h rows a slice: one 2-D copy). */
    const size_t dp = 128;
    HIP_CHECK(hipMalloc((void **)&dev, dp * h * d));
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.dstPtr = make_hipPitchedPtr(dev, dp, w * elem, h);
    p.extent = make_hipExtent(w, h, d);
    p.kind = hipMemcpyDeviceToDevice;
    HIP_CHECK(hipMemcpy3D(&p));
    memset(&p, 0, sizeof p);
    memset(back, 0, hp * hrows * d);
    p.srcPtr = make_hipPitchedPtr(dev, dp, wb, h);
    p.dstPtr = make_hipPitchedPtr(back, hp, wb, hrows);
    p.extent = make_hipExtent(wb, h, d); /* bytes: no array takes part */
    p.kind = hipMemcpyDefault;
    HIP_CHECK(hipMemcpy3D(&p));
    check_box(src, hp, hrows, back, hp, hrows, wb, h, d, "3-D round trip");

    /* A 4 x 3 x 2 element box at (5, 2, 1) of the array, into a tight host box. */
    uint8_t box[4 * 8 * 3 * 2];
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.srcPos = make_hipPos(5, 2, 1);
    p.dstPtr = make_hipPitchedPtr(box, 32, 4, 3);
    p.extent = make_hipExtent(4, 3, 2);
    p.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipMemcpy3D(&p));
    check_box(src + (1 * hrows + 2) * hp + 5 * elem, hp, hrows, box, 32, 3, 32, 3, 2, "3-D box");

    /* Async upload of a box at a position: fire-and-forget. */
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    memset(&p, 0, sizeof p);
    uint8_t patch[2 * 8 * 2 * 3];
    fill(patch, sizeof patch, 12);
    p.srcPtr = make_hipPitchedPtr(patch, 16, 2, 2);
    p.dstArray = a;
    p.dstPos = make_hipPos(11, 5, 2);
    p.extent = make_hipExtent(2, 2, 3);
    p.kind = hipMemcpyHostToDevice;
    unsigned long long rt0, rt1, posted0, posted1;
    hipwire_client_stats(&rt0, &posted0);
    HIP_CHECK(hipMemcpy3DAsync(&p, s));
    hipwire_client_stats(&rt1, &posted1);
    CHECK_EQ(rt1 - rt0, 0);
    CHECK(posted1 > posted0);
    HIP_CHECK(hipStreamSynchronize(s));
    for (size_t z = 0; z < 3; z++)
        for (size_t y = 0; y < 2; y++)
            memcpy(src + ((z + 2) * hrows + y + 5) * hp + 11 * elem, patch + (z * 2 + y) * 16, 16);
    memset(&p, 0, sizeof p);
    memset(back, 0, hp * hrows * d);
    p.srcArray = a;
    p.dstPtr = make_hipPitchedPtr(back, hp, w, hrows);
    p.extent = make_hipExtent(w, h, d);
    p.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipMemcpy3DAsync(&p, s));
    HIP_CHECK(hipStreamSynchronize(s));
    check_box(src, hp, hrows, back, hp, hrows, wb, h, d, "3-D after async patch");
    HIP_CHECK(hipStreamDestroy(s));

    /* Bad parameters. */
    HIP_EXPECT(hipMemcpy3D(NULL), hipErrorInvalidValue);
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.srcPtr = make_hipPitchedPtr(src, hp, w, hrows);
    p.dstPtr = make_hipPitchedPtr(back, hp, w, hrows);
    p.extent = make_hipExtent(w, h, d);
    p.kind = hipMemcpyDeviceToHost;
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidValue); /* source array and pointer */
    p.srcPtr.ptr = NULL;
    p.srcArray = NULL;
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidValue); /* no source */
    p.srcArray = a;
    p.dstPtr.pitch = 4;
    p.dstPtr.xsize = 8;
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidPitchValue);
    p.dstPtr = make_hipPitchedPtr(back, hp, w, hrows);
    p.extent = make_hipExtent(w + 1, h, d);
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidValue);
    p.extent = make_hipExtent(w, h, d + 1);
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidValue);
    p.extent = make_hipExtent(w, h, d);
    p.srcPos = make_hipPos(0, 1, 0);
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidValue);
    p.srcPos = make_hipPos(0, 0, 0);
    p.kind = (hipMemcpyKind)5;
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidMemcpyDirection);
    p.kind = hipMemcpyDeviceToHost;
    p.extent = make_hipExtent(0, h, d);
    HIP_CHECK(hipMemcpy3D(&p)); /* nothing to copy */
    /* Two arrays of different element sizes. */
    hipArray_t c;
    hipChannelFormatDesc d4 = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
    HIP_CHECK(hipMalloc3DArray(&c, &d4, make_hipExtent(w, h, d), hipArrayDefault));
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.dstArray = c;
    p.extent = make_hipExtent(2, 2, 2);
    p.kind = hipMemcpyDeviceToDevice;
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidValue);
    /* Two host pointers take a host kind. */
    memset(&p, 0, sizeof p);
    p.srcPtr = make_hipPitchedPtr(src, hp, wb, hrows);
    p.dstPtr = make_hipPitchedPtr(back, hp, wb, hrows);
    p.extent = make_hipExtent(wb, h, d);
    p.kind = hipMemcpyHostToDevice;
    HIP_EXPECT(hipMemcpy3D(&p), hipErrorInvalidValue);
    p.kind = hipMemcpyHostToHost;
    memset(back, 0, hp * hrows * d);
    HIP_CHECK(hipMemcpy3D(&p));
    check_box(src, hp, hrows, back, hp, hrows, wb, h, d, "3-D host to host");
    HIP_CHECK(hipFreeArray(c));
    HIP_CHECK(hipFree(dev));
    HIP_CHECK(hipFreeArray(a));
    free(src);
    free(back);
}

/* The driver API: hipArrayCreate/hipArray3DCreate, hipMemcpyParam2D,
 * hipDrvMemcpy2DUnaligned, hipDrvMemcpy3D[Async]. */
static void driver(void)
{
    HIP_ARRAY_DESCRIPTOR ad = {
        .Width = 23, .Height = 9, .Format = HIP_AD_FORMAT_HALF, .NumChannels = 2
    };
    enum { wb = 23 * 4, h = 9 };
    hipArray_t a;
    HIP_CHECK(hipArrayCreate(&a, &ad));
    HIP_ARRAY_DESCRIPTOR got;
    HIP_CHECK(hipArrayGetDescriptor(&got, a));
    CHECK(got.Width == 23 && got.Height == 9 && got.Format == HIP_AD_FORMAT_HALF &&
          got.NumChannels == 2);
    hipChannelFormatDesc cd;
    HIP_CHECK(hipGetChannelDesc(&cd, a));
    CHECK(cd.x == 16 && cd.y == 16 && cd.z == 0 && cd.f == hipChannelFormatKindFloat);
    uint8_t src[wb * h], back[wb * h], *dev;
    fill(src, sizeof src, 21);
    HIP_CHECK(hipMalloc((void **)&dev, wb * h));

    hip_Memcpy2D m;
    memset(&m, 0, sizeof m);
    m.srcMemoryType = hipMemoryTypeHost;
    m.srcHost = src;
    m.srcPitch = 0; /* 0: packed rows */
    m.dstMemoryType = hipMemoryTypeArray;
    m.dstArray = a;
    m.WidthInBytes = wb;
    m.Height = h;
    HIP_CHECK(hipMemcpyParam2D(&m));
    memset(&m, 0, sizeof m);
    m.srcMemoryType = hipMemoryTypeArray;
    m.srcArray = a;
    m.dstMemoryType = hipMemoryTypeDevice;
    m.dstDevice = dev;
    m.dstPitch = wb;
    m.WidthInBytes = wb;
    m.Height = h;
    HIP_CHECK(hipMemcpyParam2DAsync(&m, NULL));
    memset(&m, 0, sizeof m);
    m.srcMemoryType = hipMemoryTypeUnified;
    m.srcDevice = dev + wb + 4;
    m.srcPitch = wb;
    m.dstMemoryType = hipMemoryTypeHost;
    m.dstHost = back;
    m.dstPitch = 40;
    m.WidthInBytes = 40;
    m.Height = h - 1;
    HIP_CHECK(hipDrvMemcpy2DUnaligned(&m));
    check_box(src + wb + 4, wb, h, back, 40, h, 40, h - 1, 1, "param 2-D");
    m.WidthInBytes = wb + 1; /* wider than the source pitch */
    HIP_EXPECT(hipMemcpyParam2D(&m), hipErrorInvalidValue);
    m.WidthInBytes = 40;
    m.srcDevice = NULL;
    HIP_EXPECT(hipMemcpyParam2D(&m), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyParam2D(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipArrayDestroy(a));

    /* 3-D, 2-D layered and 1-D layered driver arrays through hipDrvMemcpy3D. */
    static const size_t dims[][3] = { { 6, 5, 4 }, { 6, 5, 3 }, { 6, 0, 3 } };
    for (int i = 0; i < 3; i++) {
        HIP_ARRAY3D_DESCRIPTOR a3 = { .Width = dims[i][0],
                                      .Height = dims[i][1],
                                      .Depth = dims[i][2],
                                      .Format = HIP_AD_FORMAT_SIGNED_INT32,
                                      .NumChannels = 4,
                                      .Flags = i ? hipArrayLayered : hipArrayDefault };
        HIP_CHECK(hipArray3DCreate(&a, &a3));
        HIP_ARRAY3D_DESCRIPTOR g3;
        HIP_CHECK(hipArray3DGetDescriptor(&g3, a));
        CHECK(g3.Width == a3.Width && g3.Height == a3.Height && g3.Depth == a3.Depth &&
              g3.Format == a3.Format && g3.NumChannels == 4 && g3.Flags == a3.Flags);
        size_t rows = dims[i][1] ? dims[i][1] : 1, w3 = dims[i][0] * 16, n = w3 * rows * dims[i][2];
        uint8_t *s3 = malloc(n), *b3 = calloc(1, n);
        CHECK(s3 && b3);
        fill(s3, n, (uint32_t)(30 + i));
        HIP_MEMCPY3D c;
        memset(&c, 0, sizeof c);
        c.srcMemoryType = hipMemoryTypeHost;
        c.srcHost = s3;
        c.srcPitch = (unsigned)w3;
        c.srcHeight = (unsigned)rows;
        c.dstMemoryType = hipMemoryTypeArray;
        c.dstArray = a;
        c.WidthInBytes = (unsigned)w3;
        c.Height = (unsigned)rows;
        c.Depth = (unsigned)dims[i][2];
        HIP_CHECK(hipDrvMemcpy3D(&c));
        HIP_MEMCPY3D r = c;
        r.srcMemoryType = hipMemoryTypeArray;
        r.srcArray = a;
        r.srcHost = NULL;
        r.dstMemoryType = hipMemoryTypeHost;
        r.dstHost = b3;
        r.dstArray = NULL;
        r.dstPitch = (unsigned)w3;
        r.dstHeight = (unsigned)rows;
        HIP_CHECK(hipDrvMemcpy3DAsync(&r, NULL));
        HIP_CHECK(hipDeviceSynchronize());
        CHECK(memcmp(s3, b3, n) == 0);
        c.Depth++;
        HIP_EXPECT(hipDrvMemcpy3D(&c), hipErrorInvalidValue);
        c.Depth--;
        c.WidthInBytes++;
        HIP_EXPECT(hipDrvMemcpy3D(&c), hipErrorInvalidValue);
        c.WidthInBytes--;
        c.srcHost = NULL;
        HIP_EXPECT(hipDrvMemcpy3D(&c), hipErrorInvalidValue);
        c.srcHost = s3;
        c.dstArray = NULL;
        HIP_EXPECT(hipDrvMemcpy3D(&c), hipErrorInvalidValue);
        HIP_CHECK(hipArrayDestroy(a));
        free(s3);
        free(b3);
    }
    HIP_EXPECT(hipDrvMemcpy3D(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipFree(dev));
}

static void bad_creation(void)
{
    hipArray_t a = NULL;
    hipChannelFormatDesc f4 = hipCreateChannelDesc(32, 32, 32, 32, hipChannelFormatKindFloat);
    HIP_EXPECT(hipMallocArray(NULL, &f4, 16, 0, hipArrayDefault), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocArray(&a, NULL, 16, 0, hipArrayDefault), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocArray(&a, &f4, 0, 32, hipArrayDefault), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocArray(&a, &f4, 1024, 0, hipArrayLayered), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocArray(&a, &f4, 1024, 0, hipArrayCubemap), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocArray(&a, &f4, 1024, 1024, hipArrayCubemap | hipArrayLayered),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMallocArray(&a, &f4, SIZE_MAX, SIZE_MAX, hipArrayDefault), hipErrorInvalidValue);
    static const hipChannelFormatDesc bad[] = {
        { 32, 32, 32, 0, hipChannelFormatKindFloat },   /* three channels */
        { 8, 16, 0, 0, hipChannelFormatKindSigned },    /* different sizes */
        { 16, 0, 16, 0, hipChannelFormatKindUnsigned }, /* channel after a zero one */
        { 0, 8, 0, 0, hipChannelFormatKindUnsigned },
        { 8, 8, 0, 0, hipChannelFormatKindFloat },   /* 8-bit float */
        { 10, 0, 0, 0, hipChannelFormatKindSigned }, /* no such size */
        { -1, -1, -1, -1, hipChannelFormatKindSigned },
        { 32, 0, 0, 0, hipChannelFormatKindNone },
        { 32, 0, 0, 0, (hipChannelFormatKind)0xff },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        HIP_EXPECT(hipMallocArray(&a, &bad[i], 64, 64, hipArrayDefault), hipErrorInvalidValue);
        HIP_EXPECT(hipMalloc3DArray(&a, &bad[i], make_hipExtent(6, 6, 6), hipArrayDefault),
                   hipErrorInvalidValue);
    }
    HIP_EXPECT(hipMalloc3DArray(NULL, &f4, make_hipExtent(6, 6, 6), 0), hipErrorInvalidValue);
    HIP_EXPECT(hipMalloc3DArray(&a, &f4, make_hipExtent(6, 0, 6), 0), hipErrorInvalidValue);
    HIP_EXPECT(hipMalloc3DArray(&a, &f4, make_hipExtent(6, 6, 6), 0xDEADBEEF),
               hipErrorInvalidValue);
    HIP_ARRAY_DESCRIPTOR ad = { 64, 64, HIP_AD_FORMAT_FLOAT, 3 };
    HIP_EXPECT(hipArrayCreate(&a, &ad), hipErrorInvalidValue);
    ad.NumChannels = 1;
    ad.Format = (hipArray_Format)0x30;
    HIP_EXPECT(hipArrayCreate(&a, &ad), hipErrorInvalidValue);
    HIP_EXPECT(hipArrayCreate(NULL, &ad), hipErrorInvalidValue);
    HIP_EXPECT(hipArrayCreate(&a, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipArray3DCreate(&a, NULL), hipErrorInvalidValue);

    /* The limits are the device properties' maxTexture*. */
    hipDeviceProp_t prop;
    HIP_CHECK(hipGetDeviceProperties(&prop, 0));
    CHECK(prop.maxTexture1D > 0 && prop.maxTexture2D[1] > 0 && prop.maxTexture3D[2] > 0);
    int attr;
    HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeMaxTexture3DDepth, 0));
    CHECK_EQ(attr, prop.maxTexture3D[2]);
    hipChannelFormatDesc c1 = hipCreateChannelDesc(8, 0, 0, 0, hipChannelFormatKindUnsigned);
    HIP_CHECK(hipMallocArray(&a, &c1, (size_t)prop.maxTexture1D, 0, hipArrayDefault));
    HIP_CHECK(hipFreeArray(a));
    HIP_EXPECT(hipMallocArray(&a, &c1, (size_t)prop.maxTexture1D + 1, 0, hipArrayDefault),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMallocArray(&a, &c1, 64, (size_t)prop.maxTexture2D[1] + 1, hipArrayDefault),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMalloc3DArray(&a, &c1, make_hipExtent(64, 64, (size_t)prop.maxTexture3D[2] + 1),
                                hipArrayDefault),
               hipErrorInvalidValue);
    /* The largest 3-D array is 32 TiB: more than the device has. */
    hipArray_t untouched = (hipArray_t)&prop;
    a = untouched;
    HIP_EXPECT(
        hipMalloc3DArray(&a, &f4,
                         make_hipExtent((size_t)prop.maxTexture3D[0], (size_t)prop.maxTexture3D[1],
                                        (size_t)prop.maxTexture3D[2]),
                         hipArrayDefault),
        hipErrorOutOfMemory);
    CHECK(a == untouched);
}

static void frees_and_queries(void)
{
    hipChannelFormatDesc f = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
    hipArray_t a;
    size_t free0, free1, total;
    HIP_CHECK(hipMemGetInfo(&free0, &total));
    hipArray_t many[20];
    for (int i = 0; i < 20; i++)
        HIP_CHECK(hipMalloc3DArray(&many[i], &f, make_hipExtent(100, 100, 100), hipArrayDefault));
    HIP_CHECK(hipMemGetInfo(&free1, &total));
    CHECK(free0 - free1 >= 20u * 4000000u);
    for (int i = 0; i < 20; i++)
        HIP_CHECK(hipFreeArray(many[i]));
    HIP_CHECK(hipMemGetInfo(&free1, &total));
    CHECK_EQ(free1, free0);

    HIP_EXPECT(hipFreeArray(NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipArrayDestroy(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipMallocArray(&a, &f, 1024, 1024, hipArrayDefault));
    HIP_CHECK(hipFreeArray(a));
    HIP_EXPECT(hipFreeArray(a), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipArrayDestroy(a), hipErrorContextIsDestroyed);
    /* Queries on the destroyed array are refused, not read. */
    HIP_ARRAY_DESCRIPTOR ad;
    hipChannelFormatDesc cd;
    HIP_EXPECT(hipArrayGetDescriptor(&ad, a), hipErrorInvalidHandle);
    HIP_EXPECT(hipGetChannelDesc(&cd, a), hipErrorInvalidHandle);
    HIP_EXPECT(hipGetChannelDesc(&cd, NULL), hipErrorInvalidHandle);
    HIP_EXPECT(hipMemcpy2DToArray(a, 0, 0, &cd, 4, 4, 1, hipMemcpyHostToDevice),
               hipErrorInvalidHandle);
    /* Memory that never was an array. */
    void *fake = malloc(64);
    HIP_EXPECT(hipFreeArray((hipArray_t)fake), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipFreeArray((hipArray_t)fake), hipErrorContextIsDestroyed);
    free(fake);
    HIP_EXPECT(hipArrayGetInfo(NULL, NULL, NULL, NULL), hipErrorInvalidHandle);
    HIP_EXPECT(hipArrayGetDescriptor(&ad, NULL), hipErrorInvalidHandle);
    HIP_CHECK(hipArrayCreate(&a, &(HIP_ARRAY_DESCRIPTOR){ 8, 8, HIP_AD_FORMAT_FLOAT, 1 }));
    HIP_EXPECT(hipArrayGetDescriptor(NULL, a), hipErrorInvalidValue);
    HIP_EXPECT(hipArray3DGetDescriptor(NULL, a), hipErrorInvalidValue);
    HIP_EXPECT(hipGetChannelDesc(NULL, a), hipErrorInvalidValue);
    HIP_CHECK(hipArrayGetInfo(NULL, NULL, NULL, a));
    HIP_CHECK(hipArrayDestroy(a));
    HIP_EXPECT(hipArrayDestroy(a), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipArrayDestroy(a), hipErrorContextIsDestroyed);
}

/* HIP 6's byte calls (row 0 of an array, device memory on the other side,
 * array to array, async forms) and the per-thread-stream variants. */
static void byte_calls_and_spt(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
    hipArray_t a, b;
    uint8_t src[256], back[256], *dev;
    HIP_CHECK(hipMallocArray(&a, &desc, 50, 3, hipArrayDefault)); /* rows of 200 bytes */
    HIP_CHECK(hipMallocArray(&b, &desc, 50, 3, hipArrayDefault));
    HIP_CHECK(hipMalloc((void **)&dev, 256));
    fill(src, sizeof src, 41);
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipMemcpyHtoAAsync(a, 3, src, 190, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipMemcpyAtoD(dev, a, 3, 190));
    HIP_CHECK(hipMemcpyDtoA(b, 7, dev + 10, 150));
    HIP_CHECK(hipMemcpyAtoA(a, 0, b, 7, 150));
    memset(back, 0, sizeof back);
    HIP_CHECK(hipMemcpyAtoHAsync(back, a, 0, 200, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(memcmp(back, src + 10, 150) == 0);       /* a[0..150) = b[7..157) = src[10..160) */
    CHECK(memcmp(back + 150, src + 147, 43) == 0); /* a[150..193) untouched since HtoA */
    HIP_EXPECT(hipMemcpyAtoA(a, 100, b, 0, 101), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyDtoA(NULL, 0, dev, 4), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyAtoD(NULL, a, 0, 4), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyHtoAAsync(a, 199, src, 2, s), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpyDtoA(a, 0, src, 4), hipErrorInvalidValue); /* not device memory */
    /* hipHostMalloc memory named as device memory is copied as what it is. */
    uint8_t *pinned;
    HIP_CHECK(hipHostMalloc((void **)&pinned, 64, 0));
    memset(pinned, 0x3c, 64);
    HIP_CHECK(hipMemcpyDtoA(a, 0, pinned, 64));
    memset(pinned, 0, 64);
    HIP_CHECK(hipMemcpy2DFromArray(pinned, 64, a, 0, 0, 64, 1, hipMemcpyDeviceToDevice));
    for (int i = 0; i < 64; i++)
        CHECK_EQ(pinned[i], 0x3c);
    HIP_CHECK(hipHostFree(pinned));
    HIP_CHECK(hipStreamDestroy(s));

    /* hipMemcpyFromArray_spt runs on into the next rows, as the plain call does. */
    uint8_t img[600];
    fill(img, sizeof img, 42);
    HIP_CHECK(hipMemcpy2DToArray_spt(a, 0, 0, img, 200, 200, 3, hipMemcpyHostToDevice));
    uint8_t lin[300];
    HIP_CHECK(hipMemcpyFromArray_spt(lin, a, 50, 1, 300, hipMemcpyDeviceToHost));
    CHECK(memcmp(lin, img + 250, 300) == 0);
    hipMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.dstPtr = make_hipPitchedPtr(back, 200, 50, 1);
    p.srcPos = make_hipPos(0, 2, 0);
    p.extent = make_hipExtent(50, 1, 1);
    p.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipMemcpy3D_spt(&p));
    CHECK(memcmp(back, img + 400, 200) == 0);
    HIP_CHECK(hipFree(dev));
    HIP_CHECK(hipFreeArray(a));
    HIP_CHECK(hipFreeArray(b));
}

/* An asynchronous array copy on a capturing stream is recorded (as the 2-D
 * copies it is made of) and runs when the graph launches. */
static void captured(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindSigned);
    hipArray_t a;
    int32_t in[3][2][5], out[3][2][5];
    HIP_CHECK(hipMalloc3DArray(&a, &desc, make_hipExtent(5, 2, 3), hipArrayDefault));
    memset(out, 0, sizeof out);
    HIP_CHECK(hipMemcpyToArray(a, 0, 0, out, sizeof out, hipMemcpyHostToDevice));
    hipStream_t s;
    hipGraph_t g;
    hipGraphExec_t ge;
    HIP_CHECK(hipStreamCreate(&s));
    hipMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_hipPitchedPtr(in, 20, 5, 2);
    p.dstArray = a;
    p.extent = make_hipExtent(5, 2, 3);
    p.kind = hipMemcpyHostToDevice;
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipMemcpy3DAsync(&p, s));
    HIP_CHECK(hipStreamEndCapture(s, &g));
    HIP_CHECK(hipGraphInstantiate(&ge, g, NULL, NULL, 0));
    HIP_CHECK(hipGraphDestroy(g));
    for (int i = 0; i < 30; i++)
        ((int32_t *)in)[i] = i * 7 - 3; /* read when the graph runs, not at capture */
    HIP_CHECK(hipGraphLaunch(ge, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipMemcpyFromArray(out, a, 0, 0, sizeof out, hipMemcpyDeviceToHost));
    CHECK(memcmp(in, out, sizeof in) == 0);
    /* Creating an array is refused while a global capture runs. */
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    hipArray_t b;
    HIP_EXPECT(hipMallocArray(&b, &desc, 4, 4, hipArrayDefault), hipErrorStreamCaptureUnsupported);
    HIP_EXPECT(hipStreamEndCapture(s, &g), hipErrorStreamCaptureInvalidated);
    HIP_CHECK(hipGraphExecDestroy(ge));
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFreeArray(a));
}

int main(void)
{
    every_format();
    one_d_and_linear();
    two_d();
    three_d();
    driver();
    byte_calls_and_spt();
    captured();
    bad_creation();
    frees_and_queries();
    printf("arrays: ok\n");
    return 0;
}
