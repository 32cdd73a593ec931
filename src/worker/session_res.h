/*
 * session_res.h - what a session's client holds: its handles, its
 * allocations, and the staging buffers its copies go through.
 *
 * The second layer of a session (docs/architecture.md, "Inside a
 * session"): plain tables, filled and emptied by the operations above
 * (ops_*.c). Handles are numbers the worker gives out or checks; the
 * client never sees a pointer. The tables are the dispatch thread's;
 * stage_bufs has its own lock, for backend threads.
 */
#ifndef SESSION_RES_H
#define SESSION_RES_H

#include <stdint.h>

#include "alloc_table.h"
#include "backend.h"
#include "handle_map.h"
#include "stage_buf.h"

struct s_stream {
    struct hw_bstream *bs;
    int device;
    uint32_t flags; /* as created: a migration creates it again (migrate.c) */
    int priority;
    uint64_t uncovered; /* inflight.c: charges with no checkpoint yet */
};

struct s_event {
    struct hw_bevent *be;
    int device;
    uint32_t flags;
};

/* A global the client was given the address of (MODULE_GET_GLOBAL). A
 * migrated module's globals keep the addresses the client knows. */
struct s_global {
    char *name;
    uint64_t ptr, size;
};

/* module.c: one of the two is set. */
struct s_module {
    struct hw_bmodule *bm;     /* loaded by the backend */
    struct foreign_module *fm; /* an AMD code object the device cannot run */
    int device;
    /* The image as loaded, kept for a migration to load it again. */
    void *image;
    size_t image_size;
    struct s_global *globals;
    size_t nglobals;
};

struct s_function {
    struct hw_bfunction *bf; /* NULL in a foreign module */
    uint64_t module;
    char *name; /* a second lookup of the name returns this handle */
    struct hw_func_info info;
};

struct sess_res {
    struct alloc_table allocs;
    struct handle_map streams, events, modules, functions;
    uint64_t next_handle;   /* worker-assigned: modules, functions */
    struct stage_bufs bufs; /* staging buffers for copies and kept replies */
};

/* Empty tables. */
void sess_res_init(struct sess_res *r);
/* A fresh worker-assigned handle (modules, functions). */
uint64_t sess_res_new_handle(struct sess_res *r);

#endif
