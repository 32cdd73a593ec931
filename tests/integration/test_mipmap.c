/*
 * Mipmapped arrays end to end (src/client/api_mipmap.c): the levels' extents
 * (halved, at least 1, layers kept), data through every level with 2-D and
 * 3-D array copies and levels that do not alias, the driver-descriptor form,
 * and bad arguments, levels and handles with AMD's codes.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

#if HIP_VERSION_MAJOR < 6
hipError_t hipArrayGetInfo(hipChannelFormatDesc *desc, hipExtent *extent, unsigned int *flags,
                           hipArray_t array);
#endif

static void check_extent(hipArray_t a, size_t w, size_t h, size_t d)
{
    hipExtent e;
    HIP_CHECK(hipArrayGetInfo(NULL, &e, NULL, a));
    CHECK_EQ(e.width, w);
    CHECK_EQ(e.height, h);
    CHECK_EQ(e.depth, d);
}

/* Four levels of a 37 x 20 float image, each filled and read back. */
static void two_d_levels(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
    hipMipmappedArray_t m;
    HIP_CHECK(hipMallocMipmappedArray(&m, &desc, make_hipExtent(37, 20, 0), 4, 0));
    static const size_t ws[] = { 37, 18, 9, 4 }, hs[] = { 20, 10, 5, 2 };
    static float in[4][37 * 20], out[37 * 20];
    hipArray_t lv[4];
    for (unsigned l = 0; l < 4; l++) {
        HIP_CHECK(hipGetMipmappedArrayLevel(&lv[l], m, l));
        check_extent(lv[l], ws[l], hs[l], 0);
        hipChannelFormatDesc got;
        HIP_CHECK(hipGetChannelDesc(&got, lv[l]));
        CHECK(got.x == 32 && got.f == hipChannelFormatKindFloat);
        for (size_t i = 0; i < ws[l] * hs[l]; i++)
            in[l][i] = (float)(l * 1000 + i);
        HIP_CHECK(hipMemcpy2DToArray(lv[l], 0, 0, in[l], ws[l] * 4, ws[l] * 4, hs[l],
                                     hipMemcpyHostToDevice));
    }
    /* The other name answers the same level. */
    hipArray_t again;
    HIP_CHECK(hipMipmappedArrayGetLevel(&again, m, 2));
    CHECK(again == lv[2]);
    /* Read after all writes: levels are separate storage. */
    for (unsigned l = 0; l < 4; l++) {
        memset(out, 0, sizeof out);
        HIP_CHECK(hipMemcpy2DFromArray(out, ws[l] * 4, lv[l], 0, 0, ws[l] * 4, hs[l],
                                       hipMemcpyDeviceToHost));
        CHECK(memcmp(out, in[l], ws[l] * hs[l] * 4) == 0);
    }
    /* A level is the mipmapped array's to free. */
    HIP_EXPECT(hipFreeArray(lv[1]), hipErrorInvalidValue);
    HIP_EXPECT(hipGetMipmappedArrayLevel(&again, m, 4), hipErrorInvalidValue);
#if HIP_VERSION_MAJOR < 6
    CHECK_EQ(m->max_mipmap_level, 3u);
    CHECK_EQ(m->width, 37u);
#endif
    HIP_CHECK(hipFreeMipmappedArray(m));
    /* Its levels went with it. */
    hipExtent e;
    HIP_EXPECT(hipArrayGetInfo(NULL, &e, NULL, lv[0]), hipErrorInvalidHandle);
    HIP_EXPECT(hipFreeMipmappedArray(m), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipGetMipmappedArrayLevel(&again, m, 0), hipErrorInvalidHandle);
}

/* The driver form, 3-D, more levels than 4 x 4 x 6 can halve (AMD accepts
 * them: the last is 1 x 1 x 1), and a 3-D copy through level 1. */
static void three_d_driver(void)
{
    HIP_ARRAY3D_DESCRIPTOR d = { 0 };
    d.Width = 4;
    d.Height = 4;
    d.Depth = 6;
    d.Format = HIP_AD_FORMAT_UNSIGNED_INT16;
    d.NumChannels = 2;
    hipMipmappedArray_t m;
    HIP_CHECK(hipMipmappedArrayCreate(&m, &d, 4));
    hipArray_t l1, l3;
    HIP_CHECK(hipMipmappedArrayGetLevel(&l1, m, 1));
    HIP_CHECK(hipMipmappedArrayGetLevel(&l3, m, 3));
    check_extent(l1, 2, 2, 3);
    check_extent(l3, 1, 1, 1);
    HIP_EXPECT(hipMipmappedArrayGetLevel(&l3, m, 4), hipErrorInvalidValue);

    uint16_t in[2 * 2 * 3 * 2], out[2 * 2 * 3 * 2] = { 0 };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        in[i] = (uint16_t)(i * 37 + 5);
    struct hipMemcpy3DParms p = { 0 };
    p.srcPtr = make_hipPitchedPtr(in, 2 * 4, 2, 2);
    p.dstArray = l1;
    p.extent = make_hipExtent(2, 2, 3);
    p.kind = hipMemcpyHostToDevice;
    HIP_CHECK(hipMemcpy3D(&p));
    memset(&p, 0, sizeof p);
    p.srcArray = l1;
    p.dstPtr = make_hipPitchedPtr(out, 2 * 4, 2, 2);
    p.extent = make_hipExtent(2, 2, 3);
    p.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipMemcpy3D(&p));
    CHECK(memcmp(in, out, sizeof in) == 0);
    HIP_CHECK(hipMipmappedArrayDestroy(m));
    HIP_EXPECT(hipMipmappedArrayDestroy(m), hipErrorContextIsDestroyed);
}

/* Layers are not halved. */
static void layered(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
    hipMipmappedArray_t m;
    HIP_CHECK(hipMallocMipmappedArray(&m, &desc, make_hipExtent(8, 8, 3), 3, hipArrayLayered));
    hipArray_t l2;
    HIP_CHECK(hipGetMipmappedArrayLevel(&l2, m, 2));
    check_extent(l2, 2, 2, 3);
    HIP_CHECK(hipFreeMipmappedArray(m));
}

static void bad_arguments(void)
{
    hipChannelFormatDesc desc = hipCreateChannelDesc(32, 32, 32, 32, hipChannelFormatKindFloat);
    hipChannelFormatDesc three = hipCreateChannelDesc(8, 8, 8, 0, hipChannelFormatKindSigned);
    hipMipmappedArray_t m = NULL;
    hipExtent e = make_hipExtent(6, 6, 6);
    HIP_EXPECT(hipMallocMipmappedArray(NULL, &desc, e, 1, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocMipmappedArray(&m, NULL, e, 1, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocMipmappedArray(&m, &desc, make_hipExtent(0, 6, 6), 1, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMallocMipmappedArray(&m, &desc, make_hipExtent(6, 0, 6), 1, 0),
               hipErrorInvalidValue);
    HIP_EXPECT(hipMallocMipmappedArray(&m, &desc, e, 1, 0xDEADBEEF), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocMipmappedArray(&m, &desc, e, 1, hipArrayCubemap), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocMipmappedArray(&m, &three, e, 1, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocMipmappedArray(&m, &desc, e, 0, 0), hipErrorInvalidValue);
    CHECK(m == NULL);

    HIP_ARRAY3D_DESCRIPTOR d = { 0 };
    d.Width = 4;
    d.Height = 4;
    d.Depth = 6;
    d.Format = HIP_AD_FORMAT_FLOAT;
    d.NumChannels = 1;
    HIP_EXPECT(hipMipmappedArrayCreate(NULL, &d, 4), hipErrorInvalidValue);
    HIP_EXPECT(hipMipmappedArrayCreate(&m, NULL, 4), hipErrorInvalidValue);
    d.Flags = (unsigned)-1;
    HIP_EXPECT(hipMipmappedArrayCreate(&m, &d, 4), hipErrorInvalidValue);
    d.Flags = hipArrayTextureGather; /* 2-D only */
    HIP_EXPECT(hipMipmappedArrayCreate(&m, &d, 4), hipErrorInvalidValue);
    d.Height = d.Depth = 0;
    HIP_EXPECT(hipMipmappedArrayCreate(&m, &d, 4), hipErrorInvalidValue);
    d.Flags = 0;
    d.Width = 0;
    HIP_EXPECT(hipMipmappedArrayCreate(&m, &d, 4), hipErrorInvalidValue);
    CHECK(m == NULL);

    HIP_CHECK(hipMallocMipmappedArray(&m, &desc, make_hipExtent(4, 4, 6), 4, 0));
    hipArray_t lv;
    HIP_EXPECT(hipGetMipmappedArrayLevel(NULL, m, 2), hipErrorInvalidValue);
    HIP_EXPECT(hipGetMipmappedArrayLevel(&lv, NULL, 2), hipErrorInvalidHandle);
    HIP_EXPECT(hipMipmappedArrayGetLevel(NULL, m, 2), hipErrorInvalidValue);
    HIP_EXPECT(hipMipmappedArrayGetLevel(&lv, NULL, 2), hipErrorInvalidHandle);
    /* An array is not a mipmapped array. */
    hipArray_t a;
    HIP_CHECK(hipMallocArray(&a, &desc, 4, 4, 0));
    HIP_EXPECT(hipGetMipmappedArrayLevel(&lv, (hipMipmappedArray_t)a, 0), hipErrorInvalidHandle);
    HIP_EXPECT(hipFreeMipmappedArray((hipMipmappedArray_t)a), hipErrorContextIsDestroyed);
    HIP_CHECK(hipFreeArray(a));
    HIP_EXPECT(hipFreeMipmappedArray(NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipMipmappedArrayDestroy(NULL), hipErrorInvalidValue);
    HIP_CHECK(hipFreeMipmappedArray(m));
}

int main(void)
{
    two_d_levels();
    three_d_driver();
    layered();
    bad_arguments();
    printf("mipmap: ok\n");
    return 0;
}
