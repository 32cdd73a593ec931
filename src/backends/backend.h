/*
 * backend.h - the ops table every device backend (cpu, cuda, hip) fills.
 *
 * The worker core owns sessions, handle tables, validation and accounting;
 * a backend only runs work on devices. The table is versioned the way
 * libfabric's and SQLite's are: `size` is sizeof(struct hw_backend_ops) as
 * the backend was compiled, and the core reads a slot only through
 * HW_BACKEND_HAS(), so a table from an older backend that lacks newer slots
 * reports "not supported" instead of jumping through garbage. A NULL slot
 * also means "not supported".
 *
 * Contracts that hold for every slot:
 *  - Return values are hw_status codes (hipError_t values).
 *  - Out-params are written only on success.
 *  - Enqueue slots (memcpy_*, memset, launch, event_record, stream_wait_event,
 *    stream_callback) never block on device work; they return once the
 *    operation is queued in stream order. An error they return means nothing
 *    was queued. Failures during execution go to cfg->on_async_error.
 *  - Device pointers passed in have already been checked by the core against
 *    the session's allocations; backends may trust them.
 *  - Callbacks (hw_done_fn) may run on any thread, must not call back into
 *    the backend's enqueue slots for the same stream, and must be quick or
 *    take their own locks.
 */
#ifndef HW_BACKEND_H
#define HW_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "hipr.h"
#include "hw_status.h"

#define HW_BACKEND_ABI_VERSION 1

struct hw_backend;
struct hw_bstream;
struct hw_bevent;
struct hw_bmodule;
struct hw_bfunction;
struct hw_bstage;

typedef void (*hw_done_fn)(void *arg, int status);

struct hw_param {
    uint32_t offset;
    uint32_t size;
};

/* A kernel's argument layout and attributes, as the client caches them. */
struct hw_func_info {
    uint32_t param_count;
    uint32_t args_size;
    const struct hw_param *params; /* owned by the backend; lives as long as the module */
    int32_t max_threads_per_block;
    int32_t num_regs;
    int32_t shared_size_bytes;
    int32_t const_size_bytes;
    int32_t local_size_bytes;
    int32_t max_dynamic_shared;
    int32_t ptx_version;
    int32_t binary_version;
};

struct hw_backend_config {
    int cpu_devices;    /* cpu backend: number of devices to expose */
    uint64_t mem_limit; /* per-session device memory limit, 0 = none */
    /* Reports an error found while executing queued work (sticky per session). */
    void (*on_async_error)(void *ctx, int status);
    void *ctx;
    /* Other sessions live in this process, each with a backend of its own
     * on the same devices (hip-worker --isolation shared): device contexts
     * are the process's (CUDA's primary context), so a context that is
     * lost is lost for all of them, and the end of one session must wait
     * for its own work only, never end the process. */
    int shared;
};

/*
 * Runtime compilation (hiprtc). Values of hiprtcResult, pinned here because
 * the worker is built without hiprtc.h (tests/unit/status_test.c checks them).
 */
enum hw_rtc_result {
    HW_RTC_SUCCESS = 0,
    HW_RTC_OUT_OF_MEMORY = 1,
    HW_RTC_INVALID_INPUT = 3,
    HW_RTC_INVALID_OPTION = 5,
    HW_RTC_COMPILATION = 6,
    HW_RTC_INTERNAL_ERROR = 11,
};

/* One compile, as the core has checked it. Strings are NUL-terminated. */
struct hw_rtc_input {
    const char *name; /* the program's name, for diagnostics */
    const char *source;
    uint32_t header_count;
    const char *const *header_names; /* relative paths, checked by the core */
    const char *const *headers;
    uint32_t option_count;
    const char *const *options; /* passed the core's option allowlist */
    uint32_t name_count;
    const char *const *name_exprs;
    /* The worker's policy for this compile (docs/hiprtc.md). */
    uint32_t timeout_ms;  /* wall time for the whole compile */
    uint64_t max_output;  /* bytes per file the compiler writes */
    const char *work_dir; /* where a private directory may be made */
    const char *compiler; /* hipcc to run, NULL: search PATH */
    const int *cancel;    /* set (atomically) when the session ends */
    uint64_t max_memory;  /* compiler address space (bytes); 0: the backend's */
};

/* What a compile produced; every buffer is malloc'ed and the caller's. */
struct hw_rtc_output {
    int result; /* enum hw_rtc_result */
    uint8_t *code;
    uint64_t code_size;
    char *log;
    uint64_t log_size;
    char **lowered; /* name_count entries; NULL: not found */
};

struct hw_backend_ops {
    uint32_t size;
    uint32_t abi_version;
    const char *name;

    /* lifetime */
    int (*open)(const struct hw_backend_config *cfg, struct hw_backend **out);
    void (*close)(struct hw_backend *be); /* waits for queued work, frees everything */

    /* devices */
    int (*device_count)(struct hw_backend *be, int *count);
    int (*device_info)(struct hw_backend *be, int dev, struct hipr_devinfo *out);
    void (*versions)(struct hw_backend *be, int *runtime, int *driver);
    int (*mem_info)(struct hw_backend *be, int dev, uint64_t *free_out, uint64_t *total_out);

    /* memory */
    int (*mem_alloc)(struct hw_backend *be, int dev, uint64_t size, uint64_t *dptr_out);
    /* The caller has drained the device; size is the size given to mem_alloc. */
    int (*mem_free)(struct hw_backend *be, int dev, uint64_t dptr, uint64_t size);
    /* Host address of device memory; a NULL slot or a NULL result: not
     * host-addressable. */
    void *(*host_ptr)(struct hw_backend *be, uint64_t dptr);

    /* streams; the default stream of each device exists from open() on */
    int (*stream_default)(struct hw_backend *be, int dev, struct hw_bstream **out);
    int (*stream_create)(struct hw_backend *be, int dev, uint32_t flags, int priority,
                         struct hw_bstream **out);
    void (*stream_destroy)(struct hw_backend *be, struct hw_bstream *s); /* after queued work */
    int (*stream_query)(struct hw_backend *be, struct hw_bstream *s);    /* HW_OK or HW_ENOTREADY */
    /* fn(arg, status) runs once all work queued on s before it has finished. */
    int (*stream_callback)(struct hw_backend *be, struct hw_bstream *s, hw_done_fn fn, void *arg);

    /* copies and fills, in stream order */
    /* src stays valid until release(release_arg, status) is called. */
    int (*memcpy_h2d)(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, const void *src,
                      uint64_t n, hw_done_fn release, void *release_arg);
    /* dst (host) must stay valid until a later stream_callback on s runs. */
    int (*memcpy_d2h)(struct hw_backend *be, struct hw_bstream *s, void *dst, uint64_t src,
                      uint64_t n);
    int (*memcpy_d2d)(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, uint64_t src,
                      uint64_t n);
    int (*memset)(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, uint32_t value,
                  uint32_t elem_size, uint64_t count);

    /* events */
    int (*event_create)(struct hw_backend *be, int dev, uint32_t flags, struct hw_bevent **out);
    void (*event_destroy)(struct hw_backend *be, struct hw_bevent *e);
    int (*event_record)(struct hw_backend *be, struct hw_bevent *e, struct hw_bstream *s);
    int (*event_query)(struct hw_backend *be, struct hw_bevent *e);
    int (*event_callback)(struct hw_backend *be, struct hw_bevent *e, hw_done_fn fn, void *arg);
    int (*event_elapsed)(struct hw_backend *be, struct hw_bevent *start, struct hw_bevent *stop,
                         float *ms_out);
    int (*stream_wait_event)(struct hw_backend *be, struct hw_bstream *s, struct hw_bevent *e);

    /* modules and launches */
    int (*module_load)(struct hw_backend *be, int dev, const void *image, size_t size,
                       struct hw_bmodule **out);
    void (*module_unload)(struct hw_backend *be, struct hw_bmodule *m);
    int (*module_function)(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                           struct hw_bfunction **out, struct hw_func_info *info_out);
    int (*module_global)(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                         uint64_t *dptr_out, uint64_t *size_out);
    /* args (args_size bytes, laid out per the function's params) is copied before return. */
    int (*launch)(struct hw_backend *be, struct hw_bstream *s, struct hw_bfunction *f,
                  const uint32_t grid[3], const uint32_t block[3], uint32_t shared_mem,
                  const void *args, uint32_t args_size, uint32_t flags);

    /*
     * Staged copies (optional, appended in ABI 1): host memory the backend
     * lends one chunk at a time, which its device copies from and into
     * directly (pinned memory for a GPU). The core receives an H2D payload
     * from the socket straight into stages and queues each stage's copy as
     * soon as it is full, and sends D2H data straight from stages, so the
     * bytes are copied once on the host and the device's copy of one chunk
     * overlaps the network transfer of the next. Backends whose memory is
     * host-addressable (host_ptr) need none of this.
     */
    /* A stage for up to `want` (> 0) bytes: *len_out is 1..want. May wait
     * for earlier staged copies to finish (the pool is bounded). */
    int (*stage_get)(struct hw_backend *be, uint64_t want, struct hw_bstage **out, void **buf_out,
                     size_t *len_out);
    /* Queues the copy of the stage's first n bytes to dst. The stage is the
     * backend's from this call on, also when it fails. */
    int (*stage_h2d)(struct hw_backend *be, struct hw_bstream *s, uint64_t dst,
                     struct hw_bstage *st, size_t n);
    /* Queues the copy of n bytes at src into the stage; it stays the caller's. */
    int (*stage_d2h)(struct hw_backend *be, struct hw_bstream *s, struct hw_bstage *st,
                     uint64_t src, size_t n);
    /* Blocks until the copy last queued into st by stage_d2h has finished
     * and returns its status. Never from a completion callback. */
    int (*stage_wait)(struct hw_backend *be, struct hw_bstage *st);
    /* Gives a stage back once no queued copy uses it (after stage_wait, or a
     * stream_callback queued behind its copy). Any thread, callbacks too. */
    void (*stage_put)(struct hw_backend *be, struct hw_bstage *st);

    /* Appended in ABI 1: runtime compilation. Blocking; runs on a compile
     * thread of the core, concurrently with every other slot, so it must
     * not touch streams. Returns HW_OK when *out is filled (out->result says
     * whether the program compiled); otherwise nothing was allocated. */
    int (*rtc_compile)(struct hw_backend *be, int dev, const struct hw_rtc_input *in,
                       struct hw_rtc_output *out);

    /* Appended in ABI 1: stream memory operations (hipStreamWriteValue*,
     * hipStreamWaitValue*) on a naturally aligned word of `width` (4 or 8)
     * bytes of device memory. Enqueue slots. A write stores value in stream
     * order. A wait holds s, and only s, until the word satisfies op
     * (HIPR_WAIT_VALUE_*, see hw_wait_value_met) against value under mask;
     * it gives up (and the stream goes on) once *cancel is non-zero, read
     * atomically: the core sets it when the session ends, so a wait nobody
     * will ever satisfy cannot hold the session's teardown. */
    int (*stream_write_value)(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                              uint64_t value, uint32_t width);
    int (*stream_wait_value)(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                             uint64_t value, uint64_t mask, uint32_t width, uint32_t op,
                             const int *cancel);
    /* Appended in ABI 1: the device facts DEVINFO does not carry (texture
     * and surface limits, ...). *out arrives zeroed; leave 0 what the
     * device does not have. */
    int (*device_attributes)(struct hw_backend *be, int dev, struct hipr_devattr *out);

    /* Appended in ABI 1: planned migration (docs/worker.md, "Migration"):
     * a session moved from another worker keeps its device addresses.
     * mem_alloc_at: as mem_alloc, but at exactly dptr; HW_ENOMEM when any
     * of that range is taken (nothing is allocated then). mem_alias: from
     * now on [want, want + size) is the same memory as [dptr, dptr + size)
     * (a module's global, which this device placed at dptr, while the
     * migrated client knows it at want); HW_ENOMEM when want's range is
     * taken. An alias lasts as long as the backend. */
    int (*mem_alloc_at)(struct hw_backend *be, int dev, uint64_t size, uint64_t dptr);
    int (*mem_alias)(struct hw_backend *be, int dev, uint64_t dptr, uint64_t want, uint64_t size);
    /* Appended in ABI 1: host memory shared with a client (a host region,
     * ops_region.c), made memory the device copies from and into directly
     * (pinned: cuMemHostRegister, hipHostRegister). Optional: without them,
     * or when host_register fails, copies use memcpy_h2d and memcpy_d2h. */
    int (*host_register)(struct hw_backend *be, void *p, uint64_t n);
    /* After every copy queued from or to it has finished. */
    void (*host_unregister)(struct hw_backend *be, void *p);
    /* Copies between device memory and registered host memory, queued in
     * stream order with no staging: the host memory stays valid and
     * registered until the copy has finished (the core drains first). */
    int (*memcpy_h2d_registered)(struct hw_backend *be, struct hw_bstream *s, uint64_t dst,
                                 const void *src, uint64_t n);
    int (*memcpy_d2h_registered)(struct hw_backend *be, struct hw_bstream *s, void *dst,
                                 uint64_t src, uint64_t n);
};

/* Whether cur, the word a stream waits on, satisfies the wait (HIP's
 * definitions, hip_runtime_api.h; compared in the word's width). */
static inline int hw_wait_value_met(uint64_t cur, uint64_t value, uint64_t mask, uint32_t width,
                                    uint32_t op)
{
    uint64_t all = width == 4 ? UINT64_C(0xffffffff) : UINT64_MAX;
    uint64_t v = cur & mask & all;
    value &= all;
    switch (op) {
    case HIPR_WAIT_VALUE_GTE: return v >= value;
    case HIPR_WAIT_VALUE_EQ: return v == value;
    case HIPR_WAIT_VALUE_AND: return (v & value) != 0;
    case HIPR_WAIT_VALUE_NOR: return (~(v | (value & mask)) & all) != 0;
    }
    return 0;
}

#define HW_BACKEND_HAS(ops, slot)                                                  \
    ((ops)->size >= offsetof(struct hw_backend_ops, slot) + sizeof((ops)->slot) && \
     (ops)->slot != NULL)

/* Registered backends, in the order `--backend auto` tries them. */
const struct hw_backend_ops *hw_backend_find(const char *name);
extern const struct hw_backend_ops hw_cpu_backend_ops;
extern const struct hw_backend_ops hw_hip_backend_ops;
extern const struct hw_backend_ops hw_cuda_backend_ops;

#endif
