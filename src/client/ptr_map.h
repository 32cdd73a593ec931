/*
 * ptr_map.h - address -> object, for the fat-binary registry: host stubs and
 * host shadow variables to what they were registered as. Open addressing
 * with linear probing and backward-shift deletion (no tombstones), so a
 * program that registers ~100k kernels gets O(1) launches. Not thread-safe:
 * the caller locks.
 */
#ifndef HW_PTR_MAP_H
#define HW_PTR_MAP_H

#include <stddef.h>
#include <stdint.h>

struct ptr_map_slot {
    uintptr_t key; /* 0: empty */
    void *value;
};

struct ptr_map {
    struct ptr_map_slot *slots;
    size_t cap, len; /* cap is a power of two, or 0 */
};

void *ptr_map_get(const struct ptr_map *m, const void *key);
/* 0, or -1 when key is NULL or memory ran out. Replaces an existing value. */
int ptr_map_put(struct ptr_map *m, const void *key, void *value);
/* Removes key when it maps to value (an entry another owner replaced stays). */
void ptr_map_del(struct ptr_map *m, const void *key, const void *value);
void ptr_map_free(struct ptr_map *m);

#endif
