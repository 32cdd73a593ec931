/*
 * alloc_table.h - the device memory a session may touch.
 *
 * Every pointer and length a client sends is checked here before a backend
 * sees it (design principle 7). Ranges never overlap; lookups are binary
 * searches over a sorted array.
 */
#ifndef ALLOC_TABLE_H
#define ALLOC_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum alloc_kind {
    ALLOC_MALLOC, /* from hipMalloc: the client may free it */
    ALLOC_GLOBAL, /* a module's __device__ variable: lives with its module */
};

struct alloc_range {
    uint64_t base;
    uint64_t size;
    int device;
    enum alloc_kind kind;
    uint64_t owner; /* module handle for ALLOC_GLOBAL */
};

struct alloc_table {
    struct alloc_range *v;
    size_t len, cap;
    uint64_t malloc_bytes; /* sum of ALLOC_MALLOC sizes */
};

void alloc_table_init(struct alloc_table *t);
void alloc_table_free(struct alloc_table *t);
/* 0, or -1 on overlap (a backend bug or a duplicate global) or no memory. */
int alloc_table_insert(struct alloc_table *t, const struct alloc_range *r);
/* The range holding [ptr, ptr+len), or NULL. len 0 checks ptr alone. */
const struct alloc_range *alloc_table_find(const struct alloc_table *t, uint64_t ptr, uint64_t len);
/* Removes the range starting exactly at base; 0 and *out filled, or -1. */
int alloc_table_remove(struct alloc_table *t, uint64_t base, struct alloc_range *out);

#endif
