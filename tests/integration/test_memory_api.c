/*
 * The memory API beyond plain copies, against a real worker: fills of
 * hipHostMalloc'ed and registered (client) memory, pitched allocations and
 * 2D/3D fills (padding left alone), host registration and its queries,
 * address ranges, stream-ordered allocation, pointer attributes, and the
 * error codes AMD's runtime returns for each (hip-tests rocm-5.5.0/6.2.2).
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void host_malloc_flags(void)
{
    void *p = (void *)0x1;
    HIP_EXPECT(hipHostMalloc(NULL, 64, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipHostMalloc(&p, 64, 0xffffffffu), hipErrorInvalidValue);
    HIP_EXPECT(hipHostMalloc(&p, 64, 0x100), hipErrorInvalidValue);
    HIP_EXPECT(hipHostMalloc(&p, 64, hipHostMallocCoherent | hipHostMallocNonCoherent),
               hipErrorInvalidValue);
    CHECK(p == (void *)0x1); /* untouched on failure */
    HIP_EXPECT(hipHostMalloc(&p, SIZE_MAX, 0), hipErrorOutOfMemory);
    HIP_CHECK(hipHostMalloc(&p, 0, 0));
    CHECK(p == NULL);
    unsigned flags = hipHostMallocMapped | hipHostMallocWriteCombined | hipHostMallocNumaUser;
    HIP_CHECK(hipHostMalloc(&p, 64, flags));
    unsigned got = 0;
    HIP_CHECK(hipHostGetFlags(&got, p));
    CHECK_EQ(got, flags);
    void *d = NULL;
    HIP_CHECK(hipHostGetDevicePointer(&d, p, 0));
    CHECK(d == p);
    HIP_CHECK(hipHostGetFlags(&got, d));
    HIP_CHECK(hipHostFree(p));
    HIP_EXPECT(hipHostGetFlags(&got, p), hipErrorInvalidValue);
}

/* hipMemset* on client memory, synchronous and in stream order. */
static void host_fills(hipStream_t s)
{
    enum { N = 4096 };
    uint8_t *h;
    HIP_CHECK(hipHostMalloc((void **)&h, N, 0));
    HIP_CHECK(hipMemset(h, 0xab, N));
    for (int i = 0; i < N; i++)
        CHECK_EQ(h[i], 0xab);
    HIP_CHECK(hipMemsetD16(h + 2, 0x1234, 10));
    uint16_t v16;
    memcpy(&v16, h + 2 + 9 * 2, 2);
    CHECK_EQ(v16, 0x1234);
    CHECK_EQ(h[22], 0xab);
    HIP_CHECK(hipMemsetD32Async(h, (int)0xdeadbeef, N / 4, s));
    HIP_CHECK(hipStreamSynchronize(s));
    uint32_t v32;
    memcpy(&v32, h + N - 4, 4);
    CHECK_EQ(v32, 0xdeadbeef);
    HIP_CHECK(hipMemsetD8Async(h, 7, N, NULL));
    HIP_CHECK(hipMemsetAsync(h + 1, 9, 1, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK_EQ(h[0], 7);
    CHECK_EQ(h[1], 9);
    CHECK_EQ(h[N - 1], 7);
    /* Beyond the allocation, or unknown host memory: AMD refuses both. */
    HIP_EXPECT(hipMemset(h + 1, 0, N), hipErrorInvalidValue);
    uint8_t plain[16];
    HIP_EXPECT(hipMemset(plain, 0, sizeof plain), hipErrorInvalidValue);

    /* Copies naming pinned memory as a device side are honoured (HIP's
     * pinned memory is device-accessible). */
    uint8_t *d;
    HIP_CHECK(hipMalloc((void **)&d, N));
    HIP_CHECK(hipMemset(h, 0x42, N));
    HIP_CHECK(hipMemcpy(d, h, N, hipMemcpyDeviceToDevice));
    HIP_CHECK(hipMemset(h, 0, N));
    HIP_CHECK(hipMemcpy(h, d, N, hipMemcpyDeviceToDevice));
    CHECK_EQ(h[N / 2], 0x42);
    HIP_EXPECT(hipMemcpy(d, plain, 8, hipMemcpyDeviceToDevice), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpy(d, h, N, (hipMemcpyKind)9), hipErrorInvalidMemcpyDirection);
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipHostFree(h));
}

static void pointer_attributes(void)
{
    uint8_t *d, *h;
    void *data = NULL;
    unsigned v = 0;
    HIP_CHECK(hipMalloc((void **)&d, 100));
    HIP_CHECK(hipHostMalloc((void **)&h, 100, 0));
    HIP_EXPECT(hipPointerGetAttribute(&data, HIP_POINTER_ATTRIBUTE_HOST_POINTER, (hipDeviceptr_t)d),
               hipErrorInvalidValue);
    HIP_CHECK(hipPointerGetAttribute(&data, HIP_POINTER_ATTRIBUTE_HOST_POINTER, (hipDeviceptr_t)h));
    CHECK(data == h);
    /* Pinned memory: its "device pointer" is its address, as
     * hipHostGetDevicePointer says; its device the one current at allocation. */
    HIP_CHECK(hipPointerGetAttribute(&data, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                     (hipDeviceptr_t)(h + 8)));
    CHECK(data == h + 8);
    int count = 0;
    HIP_CHECK(hipGetDeviceCount(&count));
    HIP_CHECK(hipSetDevice(count - 1));
    uint8_t *h2;
    HIP_CHECK(hipHostMalloc((void **)&h2, 100, 0));
    HIP_CHECK(hipSetDevice(0));
    hipPointerAttribute_t pa;
    HIP_CHECK(hipPointerGetAttributes(&pa, h2 + 1));
#if HIP_VERSION_MAJOR >= 6
    const hipMemoryType pa_type = pa.type; /* HIP 6 renamed memoryType */
#else
    const hipMemoryType pa_type = pa.memoryType;
#endif
    CHECK(pa_type == hipMemoryTypeHost && pa.hostPointer == h2 + 1 && pa.devicePointer == h2 + 1 &&
          pa.device == count - 1);
    HIP_CHECK(hipHostFree(h2));
    HIP_CHECK(hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_MAPPED, (hipDeviceptr_t)d));
    CHECK_EQ(v, 1);
    static const hipPointer_attribute unsupported[] = {
        HIP_POINTER_ATTRIBUTE_CONTEXT,
        HIP_POINTER_ATTRIBUTE_P2P_TOKENS,
        HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE,
        HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
        HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE,
        HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
    };
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        HIP_EXPECT(hipPointerGetAttribute(&data, unsupported[i], (hipDeviceptr_t)d),
                   hipErrorNotSupported);
    /* An array handle is memory of type array (AMD), on its device; after
     * hipFreeArray it is nothing. */
    hipArray_t arr = NULL;
    hipChannelFormatDesc cd = hipCreateChannelDesc(8, 0, 0, 0, hipChannelFormatKindSigned);
    HIP_CHECK(hipSetDevice(count - 1));
    HIP_CHECK(hipMallocArray(&arr, &cd, 16, 16, hipArrayDefault));
    HIP_CHECK(hipSetDevice(0));
    v = 0;
    HIP_CHECK(hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, (hipDeviceptr_t)arr));
    CHECK_EQ(v, hipMemoryTypeArray);
    int arr_dev = -1;
    HIP_CHECK(hipPointerGetAttribute(&arr_dev, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                     (hipDeviceptr_t)arr));
    CHECK_EQ(arr_dev, count - 1);
    HIP_CHECK(hipFreeArray(arr));
    HIP_EXPECT(hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, (hipDeviceptr_t)arr),
               hipErrorInvalidValue);
    uint8_t plain[8];
    HIP_EXPECT(
        hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (hipDeviceptr_t)plain),
        hipErrorInvalidValue);
    /* hipHostFree must not drop a device allocation from the table. */
    HIP_EXPECT(hipHostFree(d), hipErrorInvalidValue);
    HIP_CHECK(
        hipPointerGetAttribute(&data, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER, (hipDeviceptr_t)d));
    CHECK(data == d);
    /* hipDrvPointerGetAttributes: several at once, ROCm's null checks. */
    hipPointer_attribute which[] = { HIP_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                     HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
    void *dptr = NULL;
    int ord = -1;
    void *out[] = { &dptr, &ord };
    HIP_CHECK(hipDrvPointerGetAttributes(2, which, out, (hipDeviceptr_t)(d + 3)));
    CHECK(dptr == d + 3 && ord == 0);
    HIP_EXPECT(hipDrvPointerGetAttributes(2, NULL, out, (hipDeviceptr_t)d), hipErrorInvalidValue);
    HIP_EXPECT(hipDrvPointerGetAttributes(2, which, NULL, (hipDeviceptr_t)d), hipErrorInvalidValue);
    HIP_EXPECT(hipDrvPointerGetAttributes(2, which, out, NULL), hipErrorInvalidValue);
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipHostFree(h));

    /* The other allocation entry points land in the same tables. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* still exported */
    HIP_CHECK(hipMemAllocHost((void **)&h, 64));
#pragma GCC diagnostic pop
    HIP_CHECK(hipPointerGetAttribute(&data, HIP_POINTER_ATTRIBUTE_HOST_POINTER, (hipDeviceptr_t)h));
    HIP_CHECK(hipHostFree(h));
    HIP_CHECK(hipExtMallocWithFlags((void **)&d, 64, hipDeviceMallocFinegrained));
    HIP_CHECK(hipMemset(d, 1, 64));
    HIP_CHECK(hipFree(d));
    HIP_EXPECT(hipExtMallocWithFlags((void **)&d, 64, 0x10), hipErrorInvalidValue);
}

static void pitched(hipStream_t s)
{
    hipDeviceProp_t prop;
    HIP_CHECK(hipGetDeviceProperties(&prop, 0));
    const size_t align = prop.texturePitchAlignment ? prop.texturePitchAlignment : 256;
    const size_t w = 100, hgt = 7, dep = 3;
    void *p = NULL;
    size_t pitch = 0;
    HIP_EXPECT(hipMallocPitch(NULL, &pitch, 1, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocPitch(&p, NULL, 1, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocPitch(&p, &pitch, SIZE_MAX, 1), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocPitch(&p, &pitch, 1, SIZE_MAX), hipErrorOutOfMemory);
    HIP_CHECK(hipMallocPitch(&p, &pitch, 0, 5));
    CHECK(p == NULL);
    hipDeviceptr_t dp;
    HIP_EXPECT(hipMemAllocPitch(NULL, &pitch, 1, 1, 4), hipErrorInvalidValue);
    HIP_EXPECT(hipMemAllocPitch(&dp, &pitch, 1, SIZE_MAX, 4), hipErrorOutOfMemory);
    hipPitchedPtr pp;
    hipExtent big = { 1, SIZE_MAX, 1 }, deep = { 1, 1, SIZE_MAX };
    HIP_EXPECT(hipMalloc3D(NULL, big), hipErrorInvalidValue);
    HIP_EXPECT(hipMalloc3D(&pp, big), hipErrorOutOfMemory);
    HIP_EXPECT(hipMalloc3D(&pp, deep), hipErrorOutOfMemory);

    /* 2D: rows aligned, each fill touches width bytes of each row only. */
    HIP_CHECK(hipMallocPitch(&p, &pitch, w, hgt));
    CHECK(pitch >= w && pitch % align == 0 && pitch < w + align);
    hipDeviceptr_t base;
    size_t size = 0;
    HIP_CHECK(hipMemGetAddressRange(&base, &size, (hipDeviceptr_t)((char *)p + 10)));
    CHECK(base == (hipDeviceptr_t)p && size == pitch * hgt);
    HIP_CHECK(hipMemPtrGetInfo(p, &size));
    CHECK_EQ(size, pitch * hgt);
    uint8_t *back = malloc(pitch * hgt * dep);
    CHECK(back);
    HIP_CHECK(hipMemset(p, 0x11, pitch * hgt));
    HIP_CHECK(hipMemset2D(p, pitch, 0x22, w, hgt));
    HIP_CHECK(hipMemset2DAsync((char *)p + pitch, pitch, 0x33, 5, 2, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipMemcpy(back, p, pitch * hgt, hipMemcpyDeviceToHost));
    for (size_t y = 0; y < hgt; y++)
        for (size_t x = 0; x < pitch; x++) {
            int want = x >= w ? 0x11 : (y >= 1 && y <= 2 && x < 5) ? 0x33 : 0x22;
            if (back[y * pitch + x] != want) {
                fprintf(stderr, "2D fill: (%zu,%zu) = 0x%02x, expected 0x%02x\n", x, y,
                        back[y * pitch + x], want);
                exit(1);
            }
        }
    HIP_EXPECT(hipMemset2D(p, 1, 0, w, hgt), hipErrorInvalidValue);
    HIP_EXPECT(hipMemset2D(p, pitch, 0, pitch + 1, hgt), hipErrorInvalidValue);
    HIP_EXPECT(hipMemset2D((char *)p + pitch * hgt + 1, pitch, 0, w, hgt), hipErrorInvalidValue);
    HIP_EXPECT(hipMemset2D(NULL, pitch, 0, w, hgt), hipErrorInvalidValue);
    HIP_CHECK(hipFree(p));

    /* 3D: slices pitch * ysize apart. */
    hipExtent e = { w, hgt, dep };
    HIP_CHECK(hipMalloc3D(&pp, e));
    CHECK(pp.ptr && pp.pitch >= w && pp.xsize == w && pp.ysize == hgt);
    size_t total = pp.pitch * hgt * dep;
    HIP_CHECK(hipMemset(pp.ptr, 0x01, total));
    hipExtent part = { 3, 2, 2 };
    hipPitchedPtr at = pp;
    at.ptr = (char *)pp.ptr + pp.pitch + 1; /* row 1, column 1 of slice 0 */
    HIP_CHECK(hipMemset3D(at, 0x77, part));
    hipExtent all = { w, hgt, 1 };
    at.ptr = (char *)pp.ptr + 2 * pp.pitch * hgt; /* the last slice */
    HIP_CHECK(hipMemset3DAsync(at, 0x55, all, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipMemcpy(back, pp.ptr, total, hipMemcpyDeviceToHost));
    for (size_t z = 0; z < dep; z++)
        for (size_t y = 0; y < hgt; y++)
            for (size_t x = 0; x < pp.pitch; x++) {
                int want = 0x01;
                if (z == 2 && x < w)
                    want = 0x55;
                else if (z < 2 && y >= 1 && y < 3 && x >= 1 && x < 4)
                    want = 0x77;
                uint8_t got = back[(z * hgt + y) * pp.pitch + x];
                if (got != want) {
                    fprintf(stderr, "3D fill: (%zu,%zu,%zu) = 0x%02x, expected 0x%02x\n", x, y, z,
                            got, want);
                    exit(1);
                }
            }
    /* Whole rows (one fill) and a captured 2D fill (one node a row). */
    hipExtent rows = { pp.pitch, hgt, dep };
    HIP_CHECK(hipMemset3D(pp, 0x66, rows));
    hipGraph_t g;
    hipGraphExec_t ge;
    HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    HIP_CHECK(hipMemset2DAsync((char *)pp.ptr + pp.pitch * hgt, pp.pitch, 0x44, 2, 3, s));
    HIP_CHECK(hipStreamEndCapture(s, &g));
    HIP_CHECK(hipGraphInstantiate(&ge, g, NULL, NULL, 0));
    HIP_CHECK(hipMemcpy(back, pp.ptr, total, hipMemcpyDeviceToHost));
    CHECK_EQ(back[pp.pitch * hgt], 0x66); /* captured, not run */
    HIP_CHECK(hipGraphLaunch(ge, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipMemcpy(back, pp.ptr, total, hipMemcpyDeviceToHost));
    for (size_t i = 0; i < total; i++) {
        size_t z = i / (pp.pitch * hgt), y = i / pp.pitch % hgt, x = i % pp.pitch;
        int want = z == 1 && y < 3 && x < 2 ? 0x44 : 0x66;
        if (back[i] != want) {
            fprintf(stderr, "3D/graph fill: byte %zu = 0x%02x, expected 0x%02x\n", i, back[i],
                    want);
            exit(1);
        }
    }
    HIP_CHECK(hipGraphExecDestroy(ge));
    HIP_CHECK(hipGraphDestroy(g));
    hipExtent zero = { 0, 0, 0 };
    hipPitchedPtr oob = pp;
    oob.ptr = (char *)pp.ptr + total + 1;
    HIP_CHECK(hipMemset3D(oob, 0, zero));
    HIP_EXPECT(hipMemset3D(oob, 0, e), hipErrorInvalidValue);
    hipPitchedPtr bad = pp;
    bad.pitch = 1;
    HIP_EXPECT(hipMemset3D(bad, 0, e), hipErrorInvalidValue);
    hipExtent wide = { pp.pitch + 1, hgt, dep };
    HIP_EXPECT(hipMemset3DAsync(pp, 0, wide, s), hipErrorInvalidValue);
    hipExtent tall = { w, SIZE_MAX, 1 };
    HIP_EXPECT(hipMemset3D(pp, 0, tall), hipErrorInvalidValue);
    HIP_CHECK(hipFree(pp.ptr));
    free(back);
}

static void registered(void)
{
    enum { N = 8192 };
    uint8_t *mem = malloc(N), *d;
    CHECK(mem);
    HIP_EXPECT(hipHostRegister(NULL, 1, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipHostRegister(mem, 0, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipHostRegister(mem, N, 0xf0), hipErrorInvalidValue);
    HIP_EXPECT(hipHostRegister(mem, (size_t)1 << 62, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipHostUnregister(NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipHostUnregister(mem), hipErrorHostMemoryNotRegistered);
    HIP_CHECK(hipHostRegister(mem, N, hipHostRegisterPortable | hipHostRegisterMapped));
    /* Again at the same address: ROCm says yes and keeps the first record
     * (its flags are checked below; one unregister undoes both). */
    HIP_CHECK(hipHostRegister(mem, N, 0));
    HIP_CHECK(hipHostRegister(mem, 1, hipHostRegisterMapped));
    HIP_EXPECT(hipHostRegister(mem + N - 1, 1, 0), hipErrorHostMemoryAlreadyRegistered);
    uint8_t *around = malloc(3 * N);
    CHECK(around);
    HIP_CHECK(hipHostRegister(around + N, 16, 0));
    HIP_EXPECT(hipHostRegister(around, 3 * N, 0), hipErrorHostMemoryAlreadyRegistered);
    HIP_CHECK(hipHostUnregister(around + N));
    HIP_CHECK(hipHostRegister(around, 3 * N, 0));
    HIP_CHECK(hipHostUnregister(around));
    free(around);
    unsigned flags = 0;
    HIP_CHECK(hipHostGetFlags(&flags, mem));
    CHECK_EQ(flags, hipHostRegisterPortable | hipHostRegisterMapped);
    void *dev = NULL;
    HIP_CHECK(hipHostGetDevicePointer(&dev, mem + 5, 0));
    CHECK(dev == mem + 5);
    HIP_CHECK(hipHostGetDevicePointer(&dev, mem, 0));
    HIP_EXPECT(hipHostGetDevicePointer(NULL, mem, 0), hipErrorInvalidValue);
    hipDeviceptr_t base;
    size_t size;
    HIP_CHECK(hipMemGetAddressRange(&base, &size, (hipDeviceptr_t)(mem + 100)));
    CHECK(base == (hipDeviceptr_t)mem && size == N);
    size = 0;
    HIP_CHECK(hipMemGetAddressRange(NULL, &size, (hipDeviceptr_t)(mem + N - 1)));
    CHECK_EQ(size, N);
    HIP_EXPECT(hipMemGetAddressRange(&base, &size, (hipDeviceptr_t)(mem + N)), hipErrorNotFound);

    /* Copies and fills through it. */
    HIP_CHECK(hipMalloc((void **)&d, N));
    HIP_CHECK(hipMemset(mem, 0x3c, N));
    HIP_CHECK(hipMemcpy(d, dev, N, hipMemcpyHostToDevice));
    memset(mem, 0, N);
    HIP_CHECK(hipMemcpy(mem, d, N, hipMemcpyDefault));
    for (int i = 0; i < N; i++)
        CHECK_EQ(mem[i], 0x3c);
    HIP_EXPECT(hipHostFree(mem), hipErrorInvalidValue); /* not hipHostMalloc'ed */
    HIP_CHECK(hipHostUnregister(mem));
    HIP_EXPECT(hipHostUnregister(mem), hipErrorHostMemoryNotRegistered);
    HIP_EXPECT(hipHostGetDevicePointer(&dev, mem, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipMemset(mem, 0, N), hipErrorInvalidValue);
    HIP_CHECK(hipFree(d));
    free(mem);

    hipDeviceptr_t none = NULL;
    HIP_EXPECT(hipMemGetAddressRange(&base, &size, none), hipErrorNotFound);
    HIP_EXPECT(hipMemPtrGetInfo(NULL, &size), hipErrorInvalidValue);
}

/* Stream-ordered allocation: the free comes after the stream's earlier work. */
static void stream_ordered(hipStream_t s, int sdev)
{
    enum { N = 1 << 20 };
    uint8_t *a = NULL, *back = malloc(N);
    CHECK(back);
    HIP_EXPECT(hipMallocAsync(NULL, N, s), hipErrorInvalidValue);
    HIP_EXPECT(hipFreeAsync(NULL, s), hipErrorInvalidValue);
    /* A made-up stream is refused, never read. */
    void *never = NULL;
    HIP_EXPECT(hipMallocAsync(&never, N, (hipStream_t)(uintptr_t)0xFFFF), hipErrorInvalidHandle);
    CHECK(never == NULL);
    for (int round = 0; round < 20; round++) {
        HIP_CHECK(hipMallocAsync((void **)&a, N, s));
        int dev = -1;
        HIP_CHECK(
            hipPointerGetAttribute(&dev, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (hipDeviceptr_t)a));
        CHECK_EQ(dev, sdev); /* the stream's device, not the current one */
        HIP_CHECK(hipMemsetAsync(a, round + 1, N, s));
        HIP_CHECK(hipMemcpyDtoHAsync(back, (hipDeviceptr_t)a, N, s));
        HIP_CHECK(hipFreeAsync(a, s));
        HIP_CHECK(hipStreamSynchronize(s));
        CHECK_EQ(back[0], round + 1);
        CHECK_EQ(back[N - 1], round + 1);
    }
    HIP_EXPECT(hipFreeAsync(a, s), hipErrorInvalidValue);
    free(back);
}

static uint64_t pool_attr(hipMemPool_t p, hipMemPoolAttr a)
{
    uint64_t v = 12345;
    HIP_CHECK(hipMemPoolGetAttribute(p, a, &v));
    return v;
}

/* Pools keep nothing: their counters follow what is allocated from them. */
static void pools(hipStream_t s, int ndev)
{
    hipMemPool_t def = NULL, cur = NULL, p = NULL;
    HIP_EXPECT(hipDeviceGetDefaultMemPool(NULL, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetDefaultMemPool(&def, ndev), hipErrorInvalidDevice);
    HIP_CHECK(hipDeviceGetDefaultMemPool(&def, 0));
    HIP_CHECK(hipDeviceGetMemPool(&cur, 0));
    CHECK(def && cur == def);
    /* a bad ordinal: InvalidDevice above, InvalidValue for Get/SetMemPool */
    HIP_EXPECT(hipDeviceGetMemPool(&cur, -1), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetMemPool(&cur, ndev), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceSetMemPool(-1, def), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceSetMemPool(ndev, def), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceSetMemPool(0, NULL), hipErrorInvalidValue);
    CHECK(cur == def);
    HIP_EXPECT(hipMemPoolDestroy(def), hipErrorInvalidValue);

    hipMemPoolProps props = { 0 };
    props.allocType = hipMemAllocationTypePinned;
    props.location.type = hipMemLocationTypeDevice;
    props.location.id = 0;
    HIP_EXPECT(hipMemPoolCreate(NULL, &props), hipErrorInvalidValue);
    HIP_EXPECT(hipMemPoolCreate(&p, NULL), hipErrorInvalidValue);
    props.allocType = hipMemAllocationTypeInvalid;
    HIP_EXPECT(hipMemPoolCreate(&p, &props), hipErrorInvalidValue);
    props.allocType = hipMemAllocationTypePinned;
    props.location.id = ndev;
    HIP_EXPECT(hipMemPoolCreate(&p, &props), hipErrorInvalidValue);
    props.location.id = 0;
    HIP_CHECK(hipMemPoolCreate(&p, &props));

    /* Attributes: CUDA's defaults, resets of the high marks only to 0. */
    int on = -1;
    HIP_CHECK(hipMemPoolGetAttribute(p, hipMemPoolReuseAllowOpportunistic, &on));
    CHECK_EQ(on, 1);
    CHECK_EQ(pool_attr(p, hipMemPoolAttrReleaseThreshold), 0);
    uint64_t v = 1;
    HIP_EXPECT(hipMemPoolSetAttribute(p, hipMemPoolAttrUsedMemHigh, &v), hipErrorInvalidValue);
    HIP_EXPECT(hipMemPoolSetAttribute(p, hipMemPoolAttrUsedMemCurrent, &v), hipErrorInvalidValue);
    HIP_EXPECT(hipMemPoolSetAttribute(p, (hipMemPoolAttr)9, &v), hipErrorInvalidValue);
    HIP_EXPECT(hipMemPoolGetAttribute(p, hipMemPoolAttrUsedMemHigh, NULL), hipErrorInvalidValue);
    v = 1 << 20;
    HIP_CHECK(hipMemPoolSetAttribute(p, hipMemPoolAttrReleaseThreshold, &v));
    CHECK_EQ(pool_attr(p, hipMemPoolAttrReleaseThreshold), 1 << 20);

    void *a = NULL, *b = NULL;
    HIP_EXPECT(hipMallocFromPoolAsync(NULL, 64, p, s), hipErrorInvalidValue);
    HIP_EXPECT(hipMallocFromPoolAsync(&a, 64, NULL, s), hipErrorInvalidValue);
    HIP_CHECK(hipMallocFromPoolAsync(&a, 4096, p, s));
    HIP_CHECK(hipMallocFromPoolAsync(&b, 1000, p, s));
    CHECK_EQ(pool_attr(p, hipMemPoolAttrUsedMemCurrent), 5096);
    CHECK_EQ(pool_attr(p, hipMemPoolAttrReservedMemCurrent), 5096);
    HIP_CHECK(hipMemsetAsync(a, 3, 4096, s));
    uint8_t back[4096];
    HIP_CHECK(hipMemcpyDtoHAsync(back, (hipDeviceptr_t)a, sizeof back, s));
    HIP_CHECK(hipFreeAsync(a, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK_EQ(back[4095], 3);
    CHECK_EQ(pool_attr(p, hipMemPoolAttrUsedMemCurrent), 1000);
    CHECK_EQ(pool_attr(p, hipMemPoolAttrUsedMemHigh), 5096);
    v = 0;
    HIP_CHECK(hipMemPoolSetAttribute(p, hipMemPoolAttrUsedMemHigh, &v));
    CHECK_EQ(pool_attr(p, hipMemPoolAttrUsedMemHigh), 1000);
    HIP_CHECK(hipMemPoolTrimTo(p, 0));

    /* Access: read-write on its own device, nothing elsewhere (no peers). */
    hipMemAccessDesc desc = { { hipMemLocationTypeDevice, 0 }, hipMemAccessFlagsProtReadWrite };
    HIP_CHECK(hipMemPoolSetAccess(p, &desc, 1));
    desc.flags = hipMemAccessFlagsProtNone;
    HIP_EXPECT(hipMemPoolSetAccess(p, &desc, 1), hipErrorInvalidDevice);
    desc.location.id = ndev;
    HIP_EXPECT(hipMemPoolSetAccess(p, &desc, 1), hipErrorInvalidDevice);
    HIP_EXPECT(hipMemPoolSetAccess(p, &desc, (size_t)ndev + 1), hipErrorInvalidDevice);
    HIP_EXPECT(hipMemPoolSetAccess(NULL, &desc, 1), hipErrorInvalidValue);
    hipMemAccessFlags fl = hipMemAccessFlagsProtNone;
    hipMemLocation loc = { hipMemLocationTypeDevice, 0 };
    HIP_CHECK(hipMemPoolGetAccess(&fl, p, &loc));
    CHECK_EQ(fl, hipMemAccessFlagsProtReadWrite);

    /* A created pool as the device's current one: hipMallocAsync uses it. */
    HIP_CHECK(hipDeviceSetMemPool(0, p));
    HIP_CHECK(hipDeviceGetMemPool(&cur, 0));
    CHECK(cur == p);
    void *c2 = NULL;
    HIP_CHECK(hipMallocAsync(&c2, 24, s));
    CHECK_EQ(pool_attr(p, hipMemPoolAttrUsedMemCurrent), 1024);
    HIP_CHECK(hipFree(c2)); /* hipFree of pool memory counts too */
    CHECK_EQ(pool_attr(p, hipMemPoolAttrUsedMemCurrent), 1000);

    /* Destroyed with an allocation outstanding: the memory stays valid. */
    HIP_CHECK(hipMemPoolDestroy(p));
    HIP_EXPECT(hipMemPoolDestroy(p), hipErrorInvalidValue);
    HIP_CHECK(hipDeviceGetMemPool(&cur, 0));
    CHECK(cur == def);
    HIP_CHECK(hipMemset(b, 1, 1000));
    HIP_CHECK(hipFreeAsync(b, s));
    HIP_CHECK(hipStreamSynchronize(s));
}

int main(void)
{
    int n = 0;
    hipStream_t s, s1;
    HIP_CHECK(hipGetDeviceCount(&n));
    CHECK(n >= 1);
    int other = n > 1 ? 1 : 0; /* one GPU: device 0 stands in */
    HIP_CHECK(hipStreamCreate(&s));
    host_malloc_flags();
    host_fills(s);
    pointer_attributes();
    pitched(s);
    registered();
    HIP_CHECK(hipSetDevice(other));
    HIP_CHECK(hipStreamCreate(&s1));
    HIP_CHECK(hipSetDevice(0));
    stream_ordered(s1, other);
    pools(s, n);
    HIP_CHECK(hipStreamDestroy(s1));
    HIP_CHECK(hipStreamDestroy(s));
    printf("memory api: ok\n");
    return 0;
}
