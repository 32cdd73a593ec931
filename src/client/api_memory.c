/*
 * api_memory.c - allocation, copies and fills.
 *
 * Device pointers are the worker's real device addresses. Asynchronous H2D
 * and D2D copies and fills are fire-and-forget (an H2D copy's bytes are on
 * their way to the worker before the call returns, so the caller may reuse
 * its buffer); synchronous ones then wait for their stream (sync_finish).
 * D2H copies wait for their data, which the reply writes straight into the
 * caller's buffer. hipHostMalloc memory is client memory, so fills of it are
 * done here; on a shared-memory session it is also mapped by the worker
 * (host_region.c), and copies from and to it only name the region: the
 * worker reads it when the stream gets there (as HIP's pinned memory, an
 * async H2D's source must stay unchanged until then) and a D2H returns once
 * the worker has written it. Otherwise copies from it are ordinary H2D
 * copies.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "array.h"
#include "client.h"
#include "graph.h"
#include "hw_os.h"

#define CHUNK HIPR_CAP_COPY_CHUNK

HW_EXPORT hipError_t hipMalloc(void **ptr, size_t size)
{
    return hw_malloc_on(ptr, size, hw_current_device());
}

/* From the current pool of the stream's device (api_mem_pool.c), allocated
 * at once: usable earlier than stream order requires, never later. */
HW_EXPORT hipError_t hipMallocAsync(void **dev_ptr, size_t size, hipStream_t stream)
{
    int dev;
    if (hw_stream_check(stream) != hipSuccess)
        return hw_ret(hipErrorInvalidHandle); /* AMD's code here; never read */
    hw_stream_wire_id(stream, &dev);
    return hw_pool_malloc(dev_ptr, size, dev);
}

/* The worker frees after draining every stream of the session (FREE), and
 * requests run in order, so the memory outlives the stream's earlier work. */
HW_EXPORT hipError_t hipFreeAsync(void *dev_ptr, hipStream_t stream)
{
    if (!dev_ptr)
        return hw_ret(hipErrorInvalidValue);
    if (hw_stream_check(stream) != hipSuccess)
        return hw_ret(hipErrorInvalidHandle);
    return hipFree(dev_ptr);
}

HW_EXPORT hipError_t hipFree(void *ptr)
{
    return hw_device_free(ptr, hw_pool_forget);
}

#define HOST_MALLOC_FLAGS                                                       \
    (hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined | \
     hipHostMallocNumaUser | hipHostMallocCoherent | hipHostMallocNonCoherent)

HW_EXPORT hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    const unsigned both = hipHostMallocCoherent | hipHostMallocNonCoherent;
    if (!ptr || (flags & ~HOST_MALLOC_FLAGS) || (flags & both) == both)
        return hw_ret(hipErrorInvalidValue);
    if (size == 0) {
        *ptr = NULL;
        return hipSuccess;
    }
    /* Pinned memory beyond the machine's is out of memory without asking
     * the allocator (a sanitizer's aborts on such a request). */
    uint64_t phys = hw_os_phys_mem();
    if (phys > 0 && size >= phys)
        return hw_ret(hipErrorOutOfMemory);
    /* Shared with the worker where the session allows (host_region.c):
     * copies from and to it then need no trip through the rings. */
    uint64_t region = 0;
    void *p = hw_region_alloc(size, &region);
    if (!p)
        p = hw_os_aligned_alloc(4096, size);
    if (!p)
        return hw_ret(hipErrorOutOfMemory);
    struct hw_mem_range r = {
        (uint64_t)(uintptr_t)p, size, hw_current_device(), HW_MEM_HOST, flags, region
    };
    if (hw_mem_add(&r) < 0) {
        if (region)
            hw_region_free(p, size, region);
        else
            hw_os_aligned_free(p);
        return hw_ret(hipErrorOutOfMemory);
    }
    *ptr = p;
    return hipSuccess;
}

HW_EXPORT hipError_t hipHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    return hipHostMalloc(ptr, size, flags);
}

HW_EXPORT hipError_t hipMemAllocHost(void **ptr, size_t size)
{
    return hipHostMalloc(ptr, size, 0);
}

HW_EXPORT hipError_t hipMallocHost(void **ptr, size_t size)
{
    return hipHostMalloc(ptr, size, 0);
}

HW_EXPORT hipError_t hipHostFree(void *ptr)
{
    struct hw_mem_range r;
    if (!ptr)
        return hipSuccess;
    if (hw_mem_find((uint64_t)(uintptr_t)ptr, &r) < 0 || r.base != (uint64_t)(uintptr_t)ptr ||
        r.kind != HW_MEM_HOST || hw_mem_remove(r.base, &r) < 0)
        return hw_ret(hipErrorInvalidValue);
    if (r.region)
        hw_region_free(ptr, (size_t)r.size, r.region);
    else
        hw_os_aligned_free(ptr);
    return hipSuccess;
}

HW_EXPORT hipError_t hipFreeHost(void *ptr)
{
    return hipHostFree(ptr);
}

static int is_device(const void *p, uint64_t n)
{
    struct hw_mem_range r;
    uint64_t a = (uint64_t)(uintptr_t)p;
    return hw_mem_find(a, &r) == 0 && r.kind == HW_MEM_DEVICE && n <= r.size - (a - r.base);
}

/* Client memory the HIP API knows (hipHostMalloc'ed or registered) holding
 * n bytes at p. */
static int is_host_known(const void *p, uint64_t n)
{
    struct hw_mem_range r;
    uint64_t a = (uint64_t)(uintptr_t)p;
    return hw_mem_find(a, &r) == 0 && r.kind != HW_MEM_DEVICE && n <= r.size - (a - r.base);
}

static int looks_device(const void *p)
{
    struct hw_mem_range r;
    return hw_mem_find((uint64_t)(uintptr_t)p, &r) == 0 && r.kind == HW_MEM_DEVICE;
}

/*
 * Resolves hipMemcpyDefault by the allocation table and checks the pointers
 * against the kind. An explicit kind is trusted otherwise: the client's and
 * the worker's address spaces are separate, so a client buffer can have the
 * same address as a device allocation (the CPU device's memory is the
 * worker's heap). Pinned or registered memory named as a device side is the
 * host memory it is (in HIP it is device-accessible).
 */
static hipError_t classify(const void *dst, const void *src, size_t n, hipMemcpyKind *kind)
{
    if (*kind < hipMemcpyHostToHost || *kind > hipMemcpyDefault)
        return hipErrorInvalidMemcpyDirection;
    if (*kind == hipMemcpyDefault) {
        int d = looks_device(dst), s = looks_device(src);
        *kind = d ? (s ? hipMemcpyDeviceToDevice : hipMemcpyHostToDevice)
                  : (s ? hipMemcpyDeviceToHost : hipMemcpyHostToHost);
    }
    int dev_dst = *kind == hipMemcpyHostToDevice || *kind == hipMemcpyDeviceToDevice;
    int dev_src = *kind == hipMemcpyDeviceToHost || *kind == hipMemcpyDeviceToDevice;
    int pin_dst = dev_dst && !is_device(dst, n) && is_host_known(dst, n);
    int pin_src = dev_src && !is_device(src, n) && is_host_known(src, n);
    if (pin_dst || pin_src) {
        dev_dst &= !pin_dst;
        dev_src &= !pin_src;
        *kind = dev_dst   ? hipMemcpyHostToDevice
                : dev_src ? hipMemcpyDeviceToHost
                          : hipMemcpyHostToHost;
    }
    if ((dev_dst && !is_device(dst, n)) || (dev_src && !is_device(src, n)))
        return hipErrorInvalidValue;
    return hipSuccess;
}

/* The device of the allocation holding p, or -1 for client memory. */
static int mem_device(const void *p)
{
    struct hw_mem_range r;
    return hw_mem_find((uint64_t)(uintptr_t)p, &r) == 0 && r.kind == HW_MEM_DEVICE ? r.device : -1;
}

static hipError_t stream_wait(struct hw_conn *c, uint64_t sid)
{
    struct hipr_stream m = { sid };
    uint8_t buf[HIPR_stream_SIZE];
    hipr_stream_encode(buf, &m);
    return hw_call(c, HIPR_OP_STREAM_SYNCHRONIZE, buf, sizeof buf, NULL, 0, NULL, 0, NULL, 0, NULL);
}

/*
 * The stream a synchronous call's work goes on. Work on another device's
 * memory moves, as in HIP, to that device's null stream (ordered after its
 * blocking streams), once the stream it was called on (the current device's
 * null stream, usually) and the device of a D2D copy's source have finished
 * their work. mem_dev -1: the call's own stream.
 */
static hipError_t sync_stream(struct hw_conn *c, hipStream_t stream, int mem_dev, int src_dev,
                              uint64_t *sid)
{
    hipError_t err = hipSuccess;
    int dev;
    uint64_t own = hw_stream_wire_id(stream, &dev);
    if (mem_dev < 0 || mem_dev == dev) {
        *sid = own;
    } else {
        err = stream_wait(c, own);
        *sid = (uint64_t)hw_wire_device(mem_dev); /* that device's null stream */
    }
    if (err == hipSuccess && src_dev >= 0 && src_dev != dev && src_dev != mem_dev)
        err = stream_wait(c, (uint64_t)hw_wire_device(src_dev));
    return err;
}

/* A synchronous call returns once its work is done: fire-and-forget work on
 * one stream would otherwise race later work on any other. */
static hipError_t sync_finish(struct hw_conn *c, uint64_t sid, hipError_t err)
{
    if (err == hipSuccess)
        err = stream_wait(c, sid);
    if (err == hipSuccess)
        err = hw_take_async_error(c);
    return err;
}

/* During a capture, a synchronous call is refused and an asynchronous one
 * on the capturing stream becomes node. 1: recorded, -1: *err. */
static int captured(hipStream_t stream, int sync, const struct hipGraphNode *node, hipError_t *err)
{
    if (!hw_capture_any())
        return 0;
    if (sync)
        return (*err = hw_capture_sync_call()) != hipSuccess ? -1 : 0;
    return hw_capture_record(stream, node, err);
}

hipError_t hw_copy(void *dst, const void *src, size_t n, hipMemcpyKind kind, hipStream_t stream,
                   int sync)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    int dev;
    if (!c)
        return hw_ret(err);
    if (n == 0)
        return hipSuccess;
    if (!dst || !src)
        return hw_ret(hipErrorInvalidValue);
    if ((err = classify(dst, src, n, &kind)) != hipSuccess)
        return hw_ret(err);
    struct hipGraphNode node = { .kind = HW_NODE_MEMCPY, .u.copy = { dst, src, n, kind } };
    /* A destroyed or made-up stream is refused before anything reads it. */
    if ((err = hw_stream_check(stream)) != hipSuccess)
        return hw_ret(err);
    int cap = captured(stream, sync, &node, &err);
    if (cap)
        return cap < 0 ? hw_ret(err) : hipSuccess;
    uint64_t sid = hw_stream_wire_id(stream, &dev);
    if (sync && kind != hipMemcpyHostToHost) {
        int mem = kind == hipMemcpyDeviceToHost ? mem_device(src) : mem_device(dst);
        int from = kind == hipMemcpyDeviceToDevice ? mem_device(src) : -1;
        if ((err = sync_stream(c, stream, mem, from, &sid)) != hipSuccess)
            return hw_ret(err);
    }
    uint64_t region, roff;
    switch (kind) {
    case hipMemcpyHostToDevice:
        if (hw_region_of(src, n, &region, &roff)) {
            /* Shared host memory: the worker copies from it in stream
             * order (as HIP's pinned memory, the caller keeps it unchanged
             * until the stream gets there). */
            struct hipr_memcpy_region m = { .region = region,
                                            .offset = roff,
                                            .dev = (uint64_t)(uintptr_t)dst,
                                            .size = n,
                                            .stream = sid };
            uint8_t buf[HIPR_memcpy_region_SIZE];
            hipr_memcpy_region_encode(buf, &m);
            err = hw_post(c, HIPR_OP_MEMCPY_REGION_H2D, buf, sizeof buf, NULL, 0);
            break;
        }
        for (size_t off = 0; off < n && err == hipSuccess; off += CHUNK) {
            size_t len = n - off < CHUNK ? n - off : CHUNK;
            struct hipr_memcpy_h2d m = { .dst = (uint64_t)(uintptr_t)dst + off, .stream = sid };
            uint8_t buf[HIPR_memcpy_h2d_SIZE];
            hipr_memcpy_h2d_encode(buf, &m);
            err = hw_post(c, HIPR_OP_MEMCPY_H2D, buf, sizeof buf, (const uint8_t *)src + off, len);
        }
        break;
    case hipMemcpyDeviceToHost:
        if (hw_region_of(dst, n, &region, &roff)) {
            /* Answered once the worker has copied into the shared memory. */
            struct hipr_memcpy_region m = { .region = region,
                                            .offset = roff,
                                            .dev = (uint64_t)(uintptr_t)src,
                                            .size = n,
                                            .stream = sid };
            uint8_t buf[HIPR_memcpy_region_SIZE];
            hipr_memcpy_region_encode(buf, &m);
            err = hw_call(c, HIPR_OP_MEMCPY_REGION_D2H, buf, sizeof buf, NULL, 0, NULL, 0, NULL, 0,
                          NULL);
        } else {
            for (size_t off = 0; off < n && err == hipSuccess; off += CHUNK) {
                size_t len = n - off < CHUNK ? n - off : CHUNK;
                struct hipr_memcpy_d2h m = { .src = (uint64_t)(uintptr_t)src + off,
                                             .size = len,
                                             .stream = sid };
                uint8_t buf[HIPR_memcpy_d2h_SIZE];
                uint64_t got = 0;
                hipr_memcpy_d2h_encode(buf, &m);
                err = hw_call(c, HIPR_OP_MEMCPY_D2H, buf, sizeof buf, NULL, 0, NULL, 0,
                              (uint8_t *)dst + off, len, &got);
                if (err == hipSuccess && got != len)
                    err = hipErrorLaunchFailure;
            }
        }
        /* The data is here: like HIP, a D2H copy reports earlier async errors. */
        if (err == hipSuccess && sync)
            err = hw_take_async_error(c);
        return hw_ret(err);
    case hipMemcpyDeviceToDevice: {
        struct hipr_memcpy_d2d m = { .dst = (uint64_t)(uintptr_t)dst,
                                     .src = (uint64_t)(uintptr_t)src,
                                     .size = n,
                                     .stream = sid };
        uint8_t buf[HIPR_memcpy_d2d_SIZE];
        hipr_memcpy_d2d_encode(buf, &m);
        err = hw_post(c, HIPR_OP_MEMCPY_D2D, buf, sizeof buf, NULL, 0);
        break;
    }
    default: memmove(dst, src, n); return hipSuccess;
    }
    return hw_ret(sync ? sync_finish(c, sid, err) : err);
}

HW_EXPORT hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
    return hw_copy(dst, src, n, kind, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyWithStream(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                                         hipStream_t stream)
{
    return hw_copy(dst, src, n, kind, stream, 1);
}

/* D2H is answered when its data arrives, so an async D2H completes before
 * return: stronger than HIP promises, never weaker. */
HW_EXPORT hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                                    hipStream_t stream)
{
    return hw_copy(dst, src, n, kind, stream, 0);
}

HW_EXPORT hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t n)
{
    return hw_copy(dst, src, n, hipMemcpyHostToDevice, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t n)
{
    return hw_copy(dst, src, n, hipMemcpyDeviceToHost, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n)
{
    return hw_copy(dst, src, n, hipMemcpyDeviceToDevice, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t n, hipStream_t stream)
{
    return hw_copy(dst, src, n, hipMemcpyHostToDevice, stream, 0);
}

HW_EXPORT hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t n, hipStream_t stream)
{
    return hw_copy(dst, src, n, hipMemcpyDeviceToHost, stream, 0);
}

HW_EXPORT hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n,
                                        hipStream_t stream)
{
    return hw_copy(dst, src, n, hipMemcpyDeviceToDevice, stream, 0);
}

/* A copy between two of the session's devices is a device-to-device copy in
 * the worker, which holds both; each pointer must be on the device named. */
static hipError_t peer_copy(void *dst, int dst_dev, const void *src, int src_dev, size_t n,
                            hipStream_t stream, int sync)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    struct hw_mem_range rd, rs;
    if (!c)
        return hw_ret(err);
    if (dst_dev < 0 || dst_dev >= c->device_count || src_dev < 0 || src_dev >= c->device_count)
        return hw_ret(hipErrorInvalidDevice);
    if (n == 0)
        return hipSuccess;
    if (hw_mem_find((uint64_t)(uintptr_t)dst, &rd) < 0 || rd.kind != HW_MEM_DEVICE ||
        rd.device != dst_dev || hw_mem_find((uint64_t)(uintptr_t)src, &rs) < 0 ||
        rs.kind != HW_MEM_DEVICE || rs.device != src_dev)
        return hw_ret(hipErrorInvalidValue);
    return hw_copy(dst, src, n, hipMemcpyDeviceToDevice, stream, sync);
}

HW_EXPORT hipError_t hipMemcpyPeer(void *dst, int dst_dev, const void *src, int src_dev, size_t n)
{
    return peer_copy(dst, dst_dev, src, src_dev, n, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev,
                                        size_t n, hipStream_t stream)
{
    return peer_copy(dst, dst_dev, src, src_dev, n, stream, 0);
}

hipError_t hw_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height, hipMemcpyKind kind, hipStream_t stream, int sync)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    int dev;
    if (!c)
        return hw_ret(err);
    if (width == 0 || height == 0)
        return hipSuccess;
    if (!dst || !src || width > dpitch || width > spitch)
        return hw_ret(hipErrorInvalidValue);
    if (height > (SIZE_MAX - width) / (dpitch > spitch ? dpitch : spitch))
        return hw_ret(hipErrorInvalidValue);
    size_t dspan = (height - 1) * dpitch + width, sspan = (height - 1) * spitch + width;
    if ((err = classify(dst, src, 1, &kind)) != hipSuccess)
        return hw_ret(err);
    if ((kind == hipMemcpyHostToDevice || kind == hipMemcpyDeviceToDevice) &&
        !is_device(dst, dspan))
        return hw_ret(hipErrorInvalidValue);
    if ((kind == hipMemcpyDeviceToHost || kind == hipMemcpyDeviceToDevice) &&
        !is_device(src, sspan))
        return hw_ret(hipErrorInvalidValue);
    struct hipGraphNode node = { .kind = HW_NODE_MEMCPY_2D,
                                 .u.copy2d = { dst, src, dpitch, spitch, width, height, kind } };
    /* A destroyed or made-up stream is refused before anything reads it. */
    if ((err = hw_stream_check(stream)) != hipSuccess)
        return hw_ret(err);
    int cap = captured(stream, sync, &node, &err);
    if (cap)
        return cap < 0 ? hw_ret(err) : hipSuccess;
    /* Rows travel packed; a copy larger than one message goes in row bands. */
    size_t band = CHUNK / width ? CHUNK / width : 1;
    if (width > CHUNK)
        return hw_ret(hipErrorInvalidValue);
    uint64_t sid = hw_stream_wire_id(stream, &dev);
    if (sync && kind != hipMemcpyHostToHost) {
        int mem = kind == hipMemcpyDeviceToHost ? mem_device(src) : mem_device(dst);
        int from = kind == hipMemcpyDeviceToDevice ? mem_device(src) : -1;
        if ((err = sync_stream(c, stream, mem, from, &sid)) != hipSuccess)
            return hw_ret(err);
    }
    for (size_t row = 0; row < height && err == hipSuccess; row += band) {
        size_t rows = height - row < band ? height - row : band;
        uint8_t *d = (uint8_t *)dst + row * dpitch;
        const uint8_t *s = (const uint8_t *)src + row * spitch;
        if (kind == hipMemcpyHostToDevice) {
            uint8_t *packed = hw_malloc(rows * width);
            if (!packed)
                return hw_ret(hipErrorOutOfMemory);
            for (size_t i = 0; i < rows; i++)
                memcpy(packed + i * width, s + i * spitch, width);
            struct hipr_memcpy2d_h2d m = { .dst = (uint64_t)(uintptr_t)d,
                                           .dpitch = dpitch,
                                           .width = width,
                                           .height = rows,
                                           .stream = sid };
            uint8_t buf[HIPR_memcpy2d_h2d_SIZE];
            hipr_memcpy2d_h2d_encode(buf, &m);
            err = hw_post(c, HIPR_OP_MEMCPY2D_H2D, buf, sizeof buf, packed, rows * width);
            free(packed);
        } else if (kind == hipMemcpyDeviceToHost) {
            uint8_t *packed = hw_malloc(rows * width);
            uint64_t got = 0;
            if (!packed)
                return hw_ret(hipErrorOutOfMemory);
            struct hipr_memcpy2d_d2h m = { .src = (uint64_t)(uintptr_t)s,
                                           .spitch = spitch,
                                           .width = width,
                                           .height = rows,
                                           .stream = sid };
            uint8_t buf[HIPR_memcpy2d_d2h_SIZE];
            hipr_memcpy2d_d2h_encode(buf, &m);
            err = hw_call(c, HIPR_OP_MEMCPY2D_D2H, buf, sizeof buf, NULL, 0, NULL, 0, packed,
                          rows * width, &got);
            if (err == hipSuccess && got != rows * width)
                err = hipErrorLaunchFailure;
            for (size_t i = 0; err == hipSuccess && i < rows; i++)
                memcpy(d + i * dpitch, packed + i * width, width);
            free(packed);
        } else if (kind == hipMemcpyDeviceToDevice) {
            struct hipr_memcpy2d_d2d m = { .dst = (uint64_t)(uintptr_t)d,
                                           .dpitch = dpitch,
                                           .src = (uint64_t)(uintptr_t)s,
                                           .spitch = spitch,
                                           .width = width,
                                           .height = rows,
                                           .stream = sid };
            uint8_t buf[HIPR_memcpy2d_d2d_SIZE];
            hipr_memcpy2d_d2d_encode(buf, &m);
            err = hw_post(c, HIPR_OP_MEMCPY2D_D2D, buf, sizeof buf, NULL, 0);
        } else {
            for (size_t i = 0; i < rows; i++)
                memmove(d + i * dpitch, s + i * spitch, width);
        }
    }
    if (sync && kind == hipMemcpyDeviceToHost && err == hipSuccess)
        err = hw_take_async_error(c);
    else if (sync && kind != hipMemcpyHostToHost)
        err = sync_finish(c, sid, err);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t width, size_t height, hipMemcpyKind kind)
{
    return hw_copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, hipMemcpyKind kind,
                                      hipStream_t stream)
{
    return hw_copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, 0);
}

static void fill_row(uint8_t *p, uint32_t value, uint32_t elem, size_t count)
{
    if (elem == 1) {
        memset(p, (int)(value & 0xff), count);
        return;
    }
    uint16_t v16 = (uint16_t)value;
    for (size_t i = 0; i < count; i++)
        memcpy(p + i * elem, elem == 2 ? (const void *)&v16 : (const void *)&value, elem);
}

/* The rows of a box, in order: *row advances; 0 when done. */
struct box {
    uint8_t *base;
    size_t pitch, height, slice, depth, y, z;
};

static int box_next(struct box *b, uint8_t **row)
{
    if (b->z == b->depth)
        return 0;
    *row = b->base + b->z * b->slice + b->y * b->pitch;
    if (++b->y == b->height) {
        b->y = 0;
        b->z++;
    }
    return 1;
}

hipError_t hw_fill_box(void *dst, uint32_t value, uint32_t elem, size_t count, size_t pitch,
                       size_t height, size_t slice, size_t depth, hipStream_t stream, int sync)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    int dev;
    if (!c)
        return hw_ret(err);
    if (count == 0 || height == 0 || depth == 0)
        return hipSuccess;
    if (!dst || count > SIZE_MAX / elem)
        return hw_ret(hipErrorInvalidValue);
    size_t row = count * elem;
    /* Contiguous rows and slices are one fill. */
    if (height == 1 || pitch == row) {
        if (height > SIZE_MAX / row)
            return hw_ret(hipErrorInvalidValue);
        count *= height;
        row *= height;
        pitch = slice;
        height = depth;
        slice = row;
        depth = 1;
        if (height == 1 || pitch == row) {
            if (height > SIZE_MAX / row)
                return hw_ret(hipErrorInvalidValue);
            count *= height;
            row *= height;
            pitch = row;
            height = 1;
        }
    }
    /* Rows and slices may not overlap, nor the span overflow. */
    if (height > 1 && (pitch < row || height - 1 > (SIZE_MAX - row) / pitch))
        return hw_ret(hipErrorInvalidValue);
    size_t plane = (height - 1) * pitch + row;
    if (depth > 1 && (slice < plane || depth - 1 > (SIZE_MAX - plane) / slice))
        return hw_ret(hipErrorInvalidValue);
    size_t span = (depth - 1) * slice + plane;
    /* Device memory first: a client address can equal a worker's one. */
    int host = !is_device(dst, span);
    if (host && !is_host_known(dst, span))
        return hw_ret(hipErrorInvalidValue);
    struct box b = { dst, pitch, height, slice, depth, 0, 0 };
    uint8_t *r;
    /* A destroyed or made-up stream is refused before anything reads it. */
    if ((err = hw_stream_check(stream)) != hipSuccess)
        return hw_ret(err);
    if (hw_capture_any()) {
        struct hipGraphNode node = { .kind = HW_NODE_MEMSET,
                                     .u.memset = { dst, value, elem, count } };
        int cap = captured(stream, sync, &node, &err);
        if (cap < 0)
            return hw_ret(err);
        if (cap) { /* a capturing stream: one node a row */
            box_next(&b, &r);
            while (box_next(&b, &r)) {
                node.u.memset.dst = r;
                if (captured(stream, sync, &node, &err) < 0)
                    return hw_ret(err);
            }
            return hipSuccess;
        }
    }
    if (host) {
        /* Client memory is filled here, in stream order: after the stream's
         * earlier work (a synchronous fill: the null stream's, which follows
         * the device's blocking streams), so a host callback or a later-built
         * path that reads this memory in stream order cannot see it early. */
        err = stream_wait(c, hw_stream_wire_id(stream, &dev));
        if (err == hipSuccess && sync)
            err = hw_take_async_error(c);
        while (err == hipSuccess && box_next(&b, &r))
            fill_row(r, value, elem, count);
        return hw_ret(err);
    }
    uint64_t sid = hw_stream_wire_id(stream, &dev);
    err = sync ? sync_stream(c, stream, mem_device(dst), -1, &sid) : hipSuccess;
    if (err != hipSuccess)
        return hw_ret(err);
    while (err == hipSuccess && box_next(&b, &r)) {
        struct hipr_memset m = { .dst = (uint64_t)(uintptr_t)r,
                                 .count = count,
                                 .stream = sid,
                                 .value = value,
                                 .elem_size = elem };
        uint8_t buf[HIPR_memset_SIZE];
        hipr_memset_encode(buf, &m);
        err = hw_post(c, HIPR_OP_MEMSET, buf, sizeof buf, NULL, 0);
    }
    return hw_ret(sync ? sync_finish(c, sid, err) : err);
}

hipError_t hw_fill(void *dst, uint32_t value, uint32_t elem, size_t count, hipStream_t stream,
                   int sync)
{
    return hw_fill_box(dst, value, elem, count, 0, 1, 0, 1, stream, sync);
}

HW_EXPORT hipError_t hipMemset(void *dst, int value, size_t n)
{
    return hw_fill(dst, (uint8_t)value, 1, n, NULL, 1);
}

HW_EXPORT hipError_t hipMemsetAsync(void *dst, int value, size_t n, hipStream_t stream)
{
    return hw_fill(dst, (uint8_t)value, 1, n, stream, 0);
}

HW_EXPORT hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count)
{
    return hw_fill(dst, value, 1, count, NULL, 1);
}

HW_EXPORT hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count,
                                      hipStream_t stream)
{
    return hw_fill(dst, value, 1, count, stream, 0);
}

HW_EXPORT hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short value, size_t count)
{
    return hw_fill(dst, value, 2, count, NULL, 1);
}

HW_EXPORT hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short value, size_t count,
                                       hipStream_t stream)
{
    return hw_fill(dst, value, 2, count, stream, 0);
}

HW_EXPORT hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count)
{
    return hw_fill(dst, (uint32_t)value, 4, count, NULL, 1);
}

HW_EXPORT hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count,
                                       hipStream_t stream)
{
    return hw_fill(dst, (uint32_t)value, 4, count, stream, 0);
}

HW_EXPORT hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attr, const void *ptr)
{
    struct hw_mem_range r;
    if (!attr || !ptr)
        return hw_ret(hipErrorInvalidValue);
    if (hw_mem_find((uint64_t)(uintptr_t)ptr, &r) < 0)
        return hw_ret(hipErrorInvalidValue);
    memset(attr, 0, sizeof *attr);
    attr->device = r.device;
    attr->allocationFlags = r.flags;
#if HIP_VERSION_MAJOR >= 6 /* the member was renamed with the enum's values */
#define HW_ATTR_TYPE type
#else
#define HW_ATTR_TYPE memoryType
#endif
    if (r.kind == HW_MEM_DEVICE) {
        attr->HW_ATTR_TYPE = hipMemoryTypeDevice;
        attr->devicePointer = (void *)ptr;
    } else {
        attr->HW_ATTR_TYPE = hipMemoryTypeHost;
        attr->hostPointer = (void *)ptr;
        attr->devicePointer = (void *)ptr; /* as hipHostGetDevicePointer says */
    }
#undef HW_ATTR_TYPE
    return hipSuccess;
}

/*
 * One attribute of ptr into data, sized as AMD's runtime writes it. An
 * address hipwire did not hand out gets the value AMD writes for unknown
 * memory (0, NULL, false; -2 for the device ordinal) and an error.
 */
hipError_t hw_pointer_attribute(void *data, hipPointer_attribute attr, const void *ptr)
{
    struct hw_mem_range r;
    int known = hw_mem_find((uint64_t)(uintptr_t)ptr, &r) == 0;
    int device = known && r.kind == HW_MEM_DEVICE;
    switch (attr) {
    case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(uint32_t *)data = !known ? 0 : device ? hipMemoryTypeDevice : hipMemoryTypeHost;
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(void **)data = known ? (void *)ptr : NULL;
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_HOST_POINTER:
        *(void **)data = known && !device ? (void *)ptr : NULL;
        return known && !device ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        *(bool *)data = false;
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_BUFFER_ID:
        *(uint32_t *)data = known ? (uint32_t)(r.base >> 12) : 0; /* unique per live range */
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_IS_MANAGED:
        *(bool *)data = false;
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = known ? r.device : -2;
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(void **)data = known ? (void *)(uintptr_t)r.base : NULL;
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(uint32_t *)data = known ? (uint32_t)r.size : 0;
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_MAPPED:
        *(bool *)data = known;
        return known ? hipSuccess : hipErrorInvalidValue;
    case HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(uint32_t *)data = known ? r.flags : 0;
        return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_CONTEXT:
    case HIP_POINTER_ATTRIBUTE_P2P_TOKENS:
    case HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE:
    case HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
    case HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: return hipErrorNotSupported;
    }
    return hipErrorInvalidValue;
}

HW_EXPORT hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute,
                                            hipDeviceptr_t ptr)
{
    struct hw_mem_range r;
    if (!data || !ptr)
        return hw_ret(hipErrorInvalidValue);
    /* AMD answers an array handle's memory type (hipMemoryTypeArray) and
     * device; its other attributes are about linear memory. */
    const struct hw_array *a = hw_array_get(ptr);
    if (a && attribute == HIP_POINTER_ATTRIBUTE_MEMORY_TYPE) {
        *(uint32_t *)data = hipMemoryTypeArray;
        return hipSuccess;
    }
    if (a && attribute == HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL) {
        *(int *)data = a->device;
        return hipSuccess;
    }
    if (hw_mem_find((uint64_t)(uintptr_t)ptr, &r) < 0)
        return hw_ret(hipErrorInvalidValue); /* *data untouched */
    return hw_ret(hw_pointer_attribute(data, attribute, ptr));
}
