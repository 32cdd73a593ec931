/* cpu_internal.h - shared state of the CPU device backend. */
#ifndef CPU_INTERNAL_H
#define CPU_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "backend.h"
#include "hipwire/cpu_kernel.h"

struct cpu_device;

/* Work queued on a stream. deps name (stream, seq) pairs that must finish first. */
enum cpu_op_kind {
    CPU_OP_COPY, /* memmove dst <- src, then release */
    CPU_OP_MEMSET,
    CPU_OP_LAUNCH,
    CPU_OP_CALLBACK,
    CPU_OP_RECORD,      /* stamp an event */
    CPU_OP_WAIT,        /* nothing to run: its deps are the point */
    CPU_OP_WRITE_VALUE, /* cpu_stream_value.c */
    CPU_OP_WAIT_VALUE,
};

struct cpu_dep {
    struct hw_bstream *stream;
    uint64_t seq;
};

struct cpu_op {
    struct cpu_op *next;
    enum cpu_op_kind kind;
    uint64_t seq;
    union {
        struct {
            void *dst;
            const void *src;
            uint64_t n;
            hw_done_fn release;
            void *release_arg;
        } copy;
        struct {
            void *dst;
            uint32_t value, elem_size;
            uint64_t count;
        } memset;
        struct {
            const struct hipwire_cpu_kernel *kernel;
            uint32_t grid[3], block[3], shared_mem;
            void *args;
        } launch;
        struct {
            hw_done_fn fn;
            void *arg;
        } callback;
        struct {
            struct hw_bevent *event;
            uint64_t gen;
        } record;
        struct {
            void *addr;
            uint64_t value, mask;
            uint32_t width, op;
            const int *cancel;
        } value;
    } u;
    unsigned ndeps;
    unsigned cap_deps;
    struct cpu_dep deps[];
};

struct hw_bstream {
    struct cpu_device *dev;
    struct hw_bstream *next_in_dev; /* every stream ever made on the device */
    int is_default;
    int blocking; /* syncs with the legacy default stream */
    int priority;
    int live; /* 0 once destroyed; the struct is reused, never freed early */
    int thread_running;
    pthread_t thread;
    pthread_cond_t work; /* signalled when an idle stream gets work */
    int work_init;
    struct cpu_op *head, *tail;
    uint64_t submitted; /* seq of the last op queued */
    uint64_t completed; /* seq of the last op finished */
};

struct cb_node {
    struct cb_node *next;
    uint64_t gen;
    hw_done_fn fn;
    void *arg;
};

struct hw_bevent {
    struct cpu_device *dev;
    uint32_t flags;
    uint64_t record_gen; /* records queued */
    uint64_t done_gen;   /* records executed */
    uint64_t time_ns;
    struct hw_bstream *stream; /* stream of the last record, and its op's seq */
    uint64_t seq;
    struct cb_node *callbacks;
};

struct cpu_device {
    int index;
    /* The backend's one lock and condition (struct cpu_sync), shared by all
     * its devices: every queue change and every completion goes through
     * them, so a stream waiting for another stream's work, on this device
     * or another (hipStreamWaitEvent across devices), is woken by it. */
    pthread_mutex_t *lock;
    pthread_cond_t *changed;    /* broadcast on completions, if anyone waits */
    int *waiters;               /* threads waiting on `changed` */
    struct hw_bstream *streams; /* default stream first */
    uint64_t allocated;
    uint64_t total;
};

struct cpu_sync {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int waiters;
};

struct hw_backend {
    struct hw_backend_config cfg;
    struct cpu_sync sync; /* what every device's lock, changed and waiters point to */
    int ndev;
    struct cpu_device *devs;
    int no_host_ptr; /* HIPWIRE_CPU_NO_HOST_PTR: behave like a GPU (cpu_stage.c) */
    pthread_mutex_t stage_lock;
    pthread_cond_t stage_cond;
    uint64_t staged; /* bytes of stages handed out */
    /* mem_alias: pages made shared with another address (page, alias). */
    pthread_mutex_t alias_lock;
    uint64_t (*aliases)[2];
    size_t nalias, alias_cap;
};

struct hw_bfunction {
    struct hw_bfunction *next; /* in its module */
    const struct hipwire_cpu_kernel *kernel;
    struct hw_param *params;
};

struct hw_bmodule {
    void *dl;
    int dev;
    struct hw_bfunction *functions;
};

/* cpu_stream.c */
/* Waits on d->changed for a completion; called with d->lock held. */
void cpu_wait_completion(struct cpu_device *d);
int cpu_stream_start(struct hw_bstream *s);
void cpu_stream_stop_all(struct cpu_device *d);
/* Queues op on s (takes ownership). Adds the legacy default-stream
 * dependencies. Called without d->lock held. */
int cpu_stream_submit(struct hw_bstream *s, struct cpu_op *op);
struct cpu_op *cpu_op_new(enum cpu_op_kind kind, unsigned extra_deps);

/* cpu_backend.c: queues a memmove; release(release_arg) runs after it. */
int cpu_submit_copy(struct hw_bstream *s, void *dst, const void *src, uint64_t n,
                    hw_done_fn release, void *release_arg);

/* cpu_stage.c: the stage_* slots (backend.h). */
int cpu_stage_get(struct hw_backend *be, uint64_t want, struct hw_bstage **out, void **buf_out,
                  size_t *len_out);
int cpu_stage_h2d(struct hw_backend *be, struct hw_bstream *s, uint64_t dst, struct hw_bstage *st,
                  size_t n);
int cpu_stage_d2h(struct hw_backend *be, struct hw_bstream *s, struct hw_bstage *st, uint64_t src,
                  size_t n);
int cpu_stage_wait(struct hw_backend *be, struct hw_bstage *st);
void cpu_stage_put(struct hw_backend *be, struct hw_bstage *st);

/* cpu_stream_value.c: the stream_write_value and stream_wait_value slots,
 * and the execution of their ops on the stream's thread. */
int cpu_stream_write_value(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                           uint64_t value, uint32_t width);
int cpu_stream_wait_value(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                          uint64_t value, uint64_t mask, uint32_t width, uint32_t op,
                          const int *cancel);
void cpu_run_value_op(const struct cpu_op *op);

/* cpu_module.c */
int cpu_module_load(struct hw_backend *be, int dev, const void *image, size_t size,
                    struct hw_bmodule **out);
void cpu_module_unload(struct hw_backend *be, struct hw_bmodule *m);
int cpu_module_function(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                        struct hw_bfunction **out, struct hw_func_info *info_out);
int cpu_module_global(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                      uint64_t *dptr_out, uint64_t *size_out);

#endif
