/*
 * api_symbol.c - __device__ and __constant__ variables by their host shadow
 * (`hipMemcpyToSymbol(HIP_SYMBOL(table), ...)`).
 *
 * The variable is resolved on the current device, as HIP does, the first
 * time it is used there (fatbin_registry.c); its address and size are cached.
 * Copies are ordinary copies to and from that address, so they follow the
 * same synchronous/asynchronous rules as hipMemcpy and hipMemcpyAsync.
 */
#include "client.h"

static hipError_t resolve(const void *symbol, uint64_t *ptr, uint64_t *size)
{
    if (!symbol)
        return hipErrorInvalidSymbol;
    return hw_fatbin_global(symbol, hw_current_device(), ptr, size);
}

HW_EXPORT hipError_t hipGetSymbolAddress(void **devPtr, const void *symbol)
{
    uint64_t ptr, size;
    if (!devPtr)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err = resolve(symbol, &ptr, &size);
    if (err != hipSuccess)
        return hw_ret(err);
    *devPtr = (void *)(uintptr_t)ptr;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGetSymbolSize(size_t *size, const void *symbol)
{
    uint64_t ptr, bytes;
    if (!size)
        return hw_ret(hipErrorInvalidValue);
    hipError_t err = resolve(symbol, &ptr, &bytes);
    if (err != hipSuccess)
        return hw_ret(err);
    *size = (size_t)bytes;
    return hipSuccess;
}

/* The device range [offset, offset+n) of the symbol. */
static hipError_t symbol_range(const void *symbol, size_t n, size_t offset, void **dev)
{
    uint64_t ptr, size;
    hipError_t err = resolve(symbol, &ptr, &size);
    if (err != hipSuccess)
        return err;
    if (offset > size || n > size - offset)
        return hipErrorInvalidValue;
    *dev = (void *)(uintptr_t)(ptr + offset);
    return hipSuccess;
}

static hipError_t to_symbol(const void *symbol, const void *src, size_t n, size_t offset,
                            hipMemcpyKind kind, hipStream_t stream, int sync)
{
    void *dst;
    if (kind != hipMemcpyHostToDevice && kind != hipMemcpyDeviceToDevice &&
        kind != hipMemcpyDefault)
        return hw_ret(hipErrorInvalidMemcpyDirection);
    hipError_t err = symbol_range(symbol, n, offset, &dst);
    if (err != hipSuccess)
        return hw_ret(err);
    if (n == 0)
        return hipSuccess;
    return sync ? hipMemcpy(dst, src, n, kind) : hipMemcpyAsync(dst, src, n, kind, stream);
}

static hipError_t from_symbol(void *dst, const void *symbol, size_t n, size_t offset,
                              hipMemcpyKind kind, hipStream_t stream, int sync)
{
    void *src;
    if (kind != hipMemcpyDeviceToHost && kind != hipMemcpyDeviceToDevice &&
        kind != hipMemcpyDefault)
        return hw_ret(hipErrorInvalidMemcpyDirection);
    hipError_t err = symbol_range(symbol, n, offset, &src);
    if (err != hipSuccess)
        return hw_ret(err);
    if (n == 0)
        return hipSuccess;
    return sync ? hipMemcpy(dst, src, n, kind) : hipMemcpyAsync(dst, src, n, kind, stream);
}

HW_EXPORT hipError_t hipMemcpyToSymbol(const void *symbol, const void *src, size_t sizeBytes,
                                       size_t offset, hipMemcpyKind kind)
{
    return to_symbol(symbol, src, sizeBytes, offset, kind, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyToSymbolAsync(const void *symbol, const void *src, size_t sizeBytes,
                                            size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
    return to_symbol(symbol, src, sizeBytes, offset, kind, stream, 0);
}

HW_EXPORT hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol, size_t sizeBytes,
                                         size_t offset, hipMemcpyKind kind)
{
    return from_symbol(dst, symbol, sizeBytes, offset, kind, NULL, 1);
}

HW_EXPORT hipError_t hipMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t sizeBytes,
                                              size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
    return from_symbol(dst, symbol, sizeBytes, offset, kind, stream, 0);
}
