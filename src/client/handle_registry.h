/*
 * handle_registry.h - the handles this proxy issued to the application, by
 * kind, so that every handle an application passes back can be checked
 * before it is dereferenced: a stream destroyed twice, an event handle used
 * as a stream, or (hipStream_t)0xFFFF gets AMD's error code, never a crash.
 * Thread-safe; O(1) per operation.
 */
#ifndef HW_HANDLE_REGISTRY_H
#define HW_HANDLE_REGISTRY_H

enum hw_handle_kind {
    HW_HANDLE_STREAM = 1,
    HW_HANDLE_EVENT,
    HW_HANDLE_MODULE,
    HW_HANDLE_GRAPH,
    HW_HANDLE_GRAPH_EXEC,
    HW_HANDLE_GRAPH_NODE,
    HW_HANDLE_ARRAY,
    HW_HANDLE_MEM_POOL,
    HW_HANDLE_CONTEXT,
    HW_HANDLE_MIPMAPPED_ARRAY,
    HW_HANDLE_KIND_END
};

/* Records h as a live handle of kind k. 0, or -1 when h is NULL or memory
 * ran out (the caller then frees h and fails with hipErrorOutOfMemory). */
int hw_handle_add(enum hw_handle_kind k, const void *h);
/* 1 when h is a live handle of kind k. */
int hw_handle_valid(enum hw_handle_kind k, const void *h);
/* Forgets h. 1 when it was a live handle of kind k (the caller may now free
 * it); 0 otherwise, e.g. a second destroy, which must then not touch h. */
int hw_handle_remove(enum hw_handle_kind k, const void *h);

#endif
