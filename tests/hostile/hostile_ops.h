/*
 * hostile_ops.h - one helper per HIPR request the hostile tests forge.
 *
 * Each sends the request WITHOUT NO_REPLY, so even ASYNC opcodes answer
 * directly, and returns the reply's status (a hipError_t value), or a
 * negative RAW_* value when no well-formed reply came back.
 */
#ifndef HIPWIRE_HOSTILE_OPS_H
#define HIPWIRE_HOSTILE_OPS_H

#include "raw_client.h"

#define DEFAULT_STREAM 0 /* the null stream of device 0 */

int op_h2d(struct raw_conn *c, uint64_t dst, uint64_t stream, const void *data, size_t n);
/* On success copies the data into out (n bytes); a failed D2H must carry no data. */
int op_d2h(struct raw_conn *c, uint64_t src, uint64_t size, uint64_t stream, void *out,
           size_t out_cap);
int op_d2d(struct raw_conn *c, uint64_t dst, uint64_t src, uint64_t size, uint64_t stream);
int op_memset(struct raw_conn *c, uint64_t dst, uint64_t count, uint32_t value, uint32_t elem_size,
              uint64_t stream);
int op_free(struct raw_conn *c, uint64_t ptr);
int op_2d_h2d(struct raw_conn *c, uint64_t dst, uint64_t dpitch, uint64_t width, uint64_t height,
              const void *data, size_t n);
int op_2d_d2h(struct raw_conn *c, uint64_t src, uint64_t spitch, uint64_t width, uint64_t height);
int op_2d_d2d(struct raw_conn *c, uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch,
              uint64_t width, uint64_t height);
/* Requests whose whole fixed part is one u64 handle (stream, event, module). */
int op_handle(struct raw_conn *c, uint16_t opcode, uint64_t handle);
int op_stream_create(struct raw_conn *c, uint64_t stream, int32_t device);
int op_event_create(struct raw_conn *c, uint64_t event, int32_t device);
int op_event_record(struct raw_conn *c, uint64_t event, uint64_t stream);
int op_event_elapsed(struct raw_conn *c, uint64_t start, uint64_t stop);
int op_stream_wait_event(struct raw_conn *c, uint64_t stream, uint64_t event);
int op_device(struct raw_conn *c, uint16_t opcode, int32_t device);
/* MODULE_LOAD; *module on success. */
int op_module_load(struct raw_conn *c, const void *image, size_t n, uint64_t *module);
/* MODULE_LOAD_EX with request flags; *module and *flags on success. */
int op_module_load_ex(struct raw_conn *c, const void *image, size_t n, uint32_t req_flags,
                      uint64_t *module, uint32_t *flags);
/* MODULE_GET_FUNCTION; *function and *args_size on success. */
int op_get_function(struct raw_conn *c, uint64_t module, const char *name, uint64_t *function,
                    uint32_t *args_size);
int op_get_global(struct raw_conn *c, uint64_t module, const char *name);
int op_launch(struct raw_conn *c, uint64_t function, uint64_t stream, uint64_t start_event,
              uint64_t stop_event, uint32_t grid, uint32_t block, const void *args,
              size_t args_len);
/* PING; checks the nonce comes back. Returns the status, *async the reply's
 * async_status. */
int op_ping(struct raw_conn *c, int32_t *async);

/* Reads a whole file (the CPU test kernels); NULL on failure. */
void *read_file(const char *path, size_t *len);

#endif
