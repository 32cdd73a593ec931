/*
 * api_stream_value.c - hipStreamWriteValue32/64 and hipStreamWaitValue32/64.
 *
 * Stream memory operations on device memory, executed by the worker in
 * stream order (STREAM_WRITE_VALUE, STREAM_WAIT_VALUE): a wait holds its
 * stream, and only it, until the word satisfies the comparison, so work
 * queued behind it waits for a write from another stream, a kernel or a
 * copy. Fire-and-forget like a launch; failures found by the worker surface
 * later as deferred errors.
 *
 * hipHostMalloc memory lives in this process, not on the worker, so no
 * stream there can watch or write it: such a pointer fails with
 * hipErrorNotSupported and one line on stderr saying why (AMD's runtime
 * accepts host memory the GPU can map).
 */
#include <stdatomic.h>
#include <stdio.h>

#include "client.h"

static atomic_flag host_reported = ATOMIC_FLAG_INIT;

static hipError_t stream_value(uint16_t opcode, hipStream_t stream, void *ptr, uint64_t value,
                               uint64_t mask, uint32_t width, unsigned flags)
{
    hipError_t err;
    struct hw_mem_range r;
    int dev;
    if (!ptr)
        return hw_ret(hipErrorInvalidValue);
    if (opcode == HIPR_OP_STREAM_WAIT_VALUE && flags > HIPR_WAIT_VALUE_NOR)
        return hw_ret(hipErrorInvalidValue);
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    uint64_t stream_id;
    if ((err = hw_stream_resolve(stream, &stream_id, &dev)) != hipSuccess)
        return hw_ret(err); /* destroyed or made up: never read */
    uint64_t p = (uint64_t)(uintptr_t)ptr;
    if (hw_mem_find(p, &r) < 0)
        return hw_ret(hipErrorInvalidValue);
    if (r.kind == HW_MEM_HOST) {
        if (!atomic_flag_test_and_set(&host_reported))
            fprintf(stderr, "hipwire: hipStreamWriteValue/hipStreamWaitValue on host memory "
                            "is not supported: hipHostMalloc memory lives in this process and "
                            "the worker's streams cannot reach it; use device memory "
                            "(hipMalloc or hipExtMallocWithFlags)\n");
        return hw_ret(hipErrorNotSupported);
    }
    /* The device accesses the word atomically: it must be aligned and whole. */
    if (p % width != 0 || r.base + r.size - p < width)
        return hw_ret(hipErrorInvalidValue);
    struct hipr_stream_value m = {
        .stream = stream_id,
        .ptr = p,
        .value = value,
        .mask = opcode == HIPR_OP_STREAM_WAIT_VALUE ? mask : 0,
        .width = width,
        .flags = opcode == HIPR_OP_STREAM_WAIT_VALUE ? flags : 0,
    };
    uint8_t buf[HIPR_stream_value_SIZE];
    hipr_stream_value_encode(buf, &m);
    return hw_ret(hw_post(c, opcode, buf, sizeof buf, NULL, 0));
}

HW_EXPORT hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value,
                                          unsigned int flags, uint32_t mask)
{
    return stream_value(HIPR_OP_STREAM_WAIT_VALUE, stream, ptr, value, mask, 4, flags);
}

HW_EXPORT hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value,
                                          unsigned int flags, uint64_t mask)
{
    return stream_value(HIPR_OP_STREAM_WAIT_VALUE, stream, ptr, value, mask, 8, flags);
}

/* flags: AMD's runtime ignores them (none is defined for writes). */
HW_EXPORT hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value,
                                           unsigned int flags)
{
    return stream_value(HIPR_OP_STREAM_WRITE_VALUE, stream, ptr, value, 0, 4, flags);
}

HW_EXPORT hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value,
                                           unsigned int flags)
{
    return stream_value(HIPR_OP_STREAM_WRITE_VALUE, stream, ptr, value, 0, 8, flags);
}
