/*
 * hostile_ops.c - see hostile_ops.h.
 */
#include "hostile_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int op_h2d(struct raw_conn *c, uint64_t dst, uint64_t stream, const void *data, size_t n)
{
    struct hipr_memcpy_h2d m = { .dst = dst, .stream = stream };
    uint8_t fixed[HIPR_memcpy_h2d_SIZE];
    hipr_memcpy_h2d_encode(fixed, &m);
    return raw_status(c, HIPR_OP_MEMCPY_H2D, fixed, sizeof fixed, data, n);
}

int op_d2h(struct raw_conn *c, uint64_t src, uint64_t size, uint64_t stream, void *out,
           size_t out_cap)
{
    struct hipr_memcpy_d2h m = { .src = src, .size = size, .stream = stream };
    uint8_t fixed[HIPR_memcpy_d2h_SIZE];
    struct raw_reply r;
    hipr_memcpy_d2h_encode(fixed, &m);
    int rc = raw_call(c, HIPR_OP_MEMCPY_D2H, fixed, sizeof fixed, NULL, 0, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0) {
        if (r.body_len != size || size > out_cap)
            rc = RAW_BADREPLY;
        else if (out)
            memcpy(out, r.body, r.body_len);
    } else if (r.body_len != 0) {
        fprintf(stderr, "D2H error reply (status %d) carries %zu bytes of data\n", rc, r.body_len);
        rc = RAW_BADREPLY;
    }
    raw_reply_free(&r);
    return rc;
}

int op_d2d(struct raw_conn *c, uint64_t dst, uint64_t src, uint64_t size, uint64_t stream)
{
    struct hipr_memcpy_d2d m = { .dst = dst, .src = src, .size = size, .stream = stream };
    uint8_t fixed[HIPR_memcpy_d2d_SIZE];
    hipr_memcpy_d2d_encode(fixed, &m);
    return raw_status(c, HIPR_OP_MEMCPY_D2D, fixed, sizeof fixed, NULL, 0);
}

int op_memset(struct raw_conn *c, uint64_t dst, uint64_t count, uint32_t value, uint32_t elem_size,
              uint64_t stream)
{
    struct hipr_memset m = {
        .dst = dst, .count = count, .stream = stream, .value = value, .elem_size = elem_size
    };
    uint8_t fixed[HIPR_memset_SIZE];
    hipr_memset_encode(fixed, &m);
    return raw_status(c, HIPR_OP_MEMSET, fixed, sizeof fixed, NULL, 0);
}

int op_free(struct raw_conn *c, uint64_t ptr)
{
    struct hipr_ptr m = { .ptr = ptr };
    uint8_t fixed[HIPR_ptr_SIZE];
    hipr_ptr_encode(fixed, &m);
    return raw_status(c, HIPR_OP_FREE, fixed, sizeof fixed, NULL, 0);
}

int op_2d_h2d(struct raw_conn *c, uint64_t dst, uint64_t dpitch, uint64_t width, uint64_t height,
              const void *data, size_t n)
{
    struct hipr_memcpy2d_h2d m = {
        .dst = dst, .dpitch = dpitch, .width = width, .height = height, .stream = DEFAULT_STREAM
    };
    uint8_t fixed[HIPR_memcpy2d_h2d_SIZE];
    hipr_memcpy2d_h2d_encode(fixed, &m);
    return raw_status(c, HIPR_OP_MEMCPY2D_H2D, fixed, sizeof fixed, data, n);
}

int op_2d_d2h(struct raw_conn *c, uint64_t src, uint64_t spitch, uint64_t width, uint64_t height)
{
    struct hipr_memcpy2d_d2h m = {
        .src = src, .spitch = spitch, .width = width, .height = height, .stream = DEFAULT_STREAM
    };
    uint8_t fixed[HIPR_memcpy2d_d2h_SIZE];
    struct raw_reply r;
    hipr_memcpy2d_d2h_encode(fixed, &m);
    int rc = raw_call(c, HIPR_OP_MEMCPY2D_D2H, fixed, sizeof fixed, NULL, 0, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc != 0 && r.body_len != 0)
        rc = RAW_BADREPLY;
    raw_reply_free(&r);
    return rc;
}

int op_2d_d2d(struct raw_conn *c, uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch,
              uint64_t width, uint64_t height)
{
    struct hipr_memcpy2d_d2d m = { .dst = dst,
                                   .dpitch = dpitch,
                                   .src = src,
                                   .spitch = spitch,
                                   .width = width,
                                   .height = height,
                                   .stream = DEFAULT_STREAM };
    uint8_t fixed[HIPR_memcpy2d_d2d_SIZE];
    hipr_memcpy2d_d2d_encode(fixed, &m);
    return raw_status(c, HIPR_OP_MEMCPY2D_D2D, fixed, sizeof fixed, NULL, 0);
}

int op_handle(struct raw_conn *c, uint16_t opcode, uint64_t handle)
{
    uint8_t fixed[8];
    hipr_put_u64(fixed, handle);
    return raw_status(c, opcode, fixed, sizeof fixed, NULL, 0);
}

int op_stream_create(struct raw_conn *c, uint64_t stream, int32_t device)
{
    struct hipr_stream_create m = { .stream = stream, .device = device };
    uint8_t fixed[HIPR_stream_create_SIZE];
    hipr_stream_create_encode(fixed, &m);
    return raw_status(c, HIPR_OP_STREAM_CREATE, fixed, sizeof fixed, NULL, 0);
}

int op_event_create(struct raw_conn *c, uint64_t event, int32_t device)
{
    struct hipr_event_create m = { .event = event, .device = device };
    uint8_t fixed[HIPR_event_create_SIZE];
    hipr_event_create_encode(fixed, &m);
    return raw_status(c, HIPR_OP_EVENT_CREATE, fixed, sizeof fixed, NULL, 0);
}

int op_event_record(struct raw_conn *c, uint64_t event, uint64_t stream)
{
    struct hipr_event_record m = { .event = event, .stream = stream };
    uint8_t fixed[HIPR_event_record_SIZE];
    hipr_event_record_encode(fixed, &m);
    return raw_status(c, HIPR_OP_EVENT_RECORD, fixed, sizeof fixed, NULL, 0);
}

int op_event_elapsed(struct raw_conn *c, uint64_t start, uint64_t stop)
{
    struct hipr_event_elapsed_req m = { .start = start, .stop = stop };
    uint8_t fixed[HIPR_event_elapsed_req_SIZE];
    hipr_event_elapsed_req_encode(fixed, &m);
    return raw_status(c, HIPR_OP_EVENT_ELAPSED, fixed, sizeof fixed, NULL, 0);
}

int op_stream_wait_event(struct raw_conn *c, uint64_t stream, uint64_t event)
{
    struct hipr_stream_wait_event m = { .stream = stream, .event = event };
    uint8_t fixed[HIPR_stream_wait_event_SIZE];
    hipr_stream_wait_event_encode(fixed, &m);
    return raw_status(c, HIPR_OP_STREAM_WAIT_EVENT, fixed, sizeof fixed, NULL, 0);
}

int op_device(struct raw_conn *c, uint16_t opcode, int32_t device)
{
    struct hipr_device m = { .device = device };
    uint8_t fixed[HIPR_device_SIZE];
    hipr_device_encode(fixed, &m);
    return raw_status(c, opcode, fixed, sizeof fixed, NULL, 0);
}

int op_module_load(struct raw_conn *c, const void *image, size_t n, uint64_t *module)
{
    struct hipr_module_load_req m = { .device = 0 };
    uint8_t fixed[HIPR_module_load_req_SIZE];
    struct raw_reply r;
    struct hipr_module rep;
    hipr_module_load_req_encode(fixed, &m);
    int rc = raw_call(c, HIPR_OP_MODULE_LOAD, fixed, sizeof fixed, image, n, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0 && hipr_module_decode(r.body, r.body_len, &rep) == 0)
        *module = rep.module;
    else if (rc == 0)
        rc = RAW_BADREPLY;
    raw_reply_free(&r);
    return rc;
}

int op_module_load_ex(struct raw_conn *c, const void *image, size_t n, uint32_t req_flags,
                      uint64_t *module, uint32_t *flags)
{
    struct hipr_module_load_req m = { .device = 0, .flags = req_flags };
    uint8_t fixed[HIPR_module_load_req_SIZE];
    struct raw_reply r;
    struct hipr_module_load_rep rep;
    hipr_module_load_req_encode(fixed, &m);
    int rc = raw_call(c, HIPR_OP_MODULE_LOAD_EX, fixed, sizeof fixed, image, n, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0 && hipr_module_load_rep_decode(r.body, r.body_len, &rep) == 0) {
        *module = rep.module;
        *flags = rep.flags;
    } else if (rc == 0) {
        rc = RAW_BADREPLY;
    }
    raw_reply_free(&r);
    return rc;
}

int op_get_function(struct raw_conn *c, uint64_t module, const char *name, uint64_t *function,
                    uint32_t *args_size)
{
    uint8_t fixed[HIPR_module_SIZE];
    struct raw_reply r;
    struct hipr_function_rep rep;
    hipr_put_u64(fixed, module);
    int rc = raw_call(c, HIPR_OP_MODULE_GET_FUNCTION, fixed, sizeof fixed, name, strlen(name), &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (rc == 0 && hipr_function_rep_decode(r.body, r.body_len, &rep) == 0) {
        *function = rep.function;
        *args_size = rep.args_size;
    } else if (rc == 0) {
        rc = RAW_BADREPLY;
    }
    raw_reply_free(&r);
    return rc;
}

int op_get_global(struct raw_conn *c, uint64_t module, const char *name)
{
    uint8_t fixed[HIPR_module_SIZE];
    hipr_put_u64(fixed, module);
    return raw_status(c, HIPR_OP_MODULE_GET_GLOBAL, fixed, sizeof fixed, name, strlen(name));
}

int op_launch(struct raw_conn *c, uint64_t function, uint64_t stream, uint64_t start_event,
              uint64_t stop_event, uint32_t grid, uint32_t block, const void *args, size_t args_len)
{
    struct hipr_launch m = { .function = function,
                             .stream = stream,
                             .start_event = start_event,
                             .stop_event = stop_event,
                             .grid_x = grid,
                             .grid_y = 1,
                             .grid_z = 1,
                             .block_x = block,
                             .block_y = 1,
                             .block_z = 1 };
    uint8_t fixed[HIPR_launch_SIZE];
    hipr_launch_encode(fixed, &m);
    return raw_status(c, HIPR_OP_LAUNCH, fixed, sizeof fixed, args, args_len);
}

int op_ping(struct raw_conn *c, int32_t *async)
{
    static uint64_t nonce = 0x5EED;
    uint8_t fixed[HIPR_ping_SIZE];
    struct raw_reply r;
    struct hipr_ping rep;
    hipr_put_u64(fixed, ++nonce);
    int rc = raw_call(c, HIPR_OP_PING, fixed, sizeof fixed, NULL, 0, &r);
    if (rc < 0)
        return rc;
    rc = r.rh.status;
    if (async)
        *async = r.rh.async_status;
    if (rc == 0 && (hipr_ping_decode(r.body, r.body_len, &rep) < 0 || rep.nonce != nonce))
        rc = RAW_BADREPLY;
    raw_reply_free(&r);
    return rc;
}

void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    void *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0)
        goto out;
    buf = malloc((size_t)n);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        *len = (size_t)n;
out:
    fclose(f);
    return buf;
}
