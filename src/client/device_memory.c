/*
 * device_memory.c - device memory on the worker: allocating (MALLOC) and
 * freeing (FREE), with the client's table of ranges (mem_table.c) kept in
 * step. Below the API files that allocate (api_memory.c, api_array.c,
 * api_mem_pool.c), so none of them calls another's exported hipMalloc or
 * hipFree (docs/architecture.md, "Layers").
 */
#include "client.h"

hipError_t hw_malloc_on(void **ptr, size_t size, int dev)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!ptr)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if ((err = hw_capture_unsafe_call()) != hipSuccess)
        return hw_ret(err);
    if (size == 0) {
        *ptr = NULL;
        return hipSuccess;
    }
    struct hipr_malloc_req m = { .device = hw_wire_device(dev), .size = size };
    uint8_t buf[HIPR_malloc_req_SIZE], body[HIPR_ptr_SIZE];
    hipr_malloc_req_encode(buf, &m);
    err = hw_call(c, HIPR_OP_MALLOC, buf, sizeof buf, NULL, 0, body, sizeof body, NULL, 0, NULL);
    if (err != hipSuccess)
        return hw_ret(err);
    struct hipr_ptr r;
    hipr_ptr_decode(body, sizeof body, &r);
    struct hw_mem_range mr = { r.ptr, size, dev, HW_MEM_DEVICE, 0, 0 };
    if (hw_mem_add(&mr) < 0) {
        uint8_t fb[HIPR_ptr_SIZE];
        hipr_ptr_encode(fb, &r);
        hw_post(c, HIPR_OP_FREE, fb, sizeof fb, NULL, 0);
        return hw_ret(hipErrorOutOfMemory);
    }
    *ptr = (void *)(uintptr_t)r.ptr;
    return hipSuccess;
}

hipError_t hw_device_free(void *ptr, void (*forget)(const void *base))
{
    hipError_t err;
    struct hw_mem_range r;
    if (!ptr)
        return hipSuccess;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_capture_unsafe_call()) != hipSuccess)
        return hw_ret(err);
    if (hw_mem_find((uint64_t)(uintptr_t)ptr, &r) < 0 || r.base != (uint64_t)(uintptr_t)ptr ||
        r.kind != HW_MEM_DEVICE)
        return hw_ret(hipErrorInvalidValue);
    hw_mem_remove(r.base, &r);
    if (forget)
        forget(ptr);
    struct hipr_ptr m = { .ptr = r.base };
    uint8_t buf[HIPR_ptr_SIZE];
    hipr_ptr_encode(buf, &m);
    return hw_ret(hw_post(c, HIPR_OP_FREE, buf, sizeof buf, NULL, 0));
}
