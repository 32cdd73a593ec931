/*
 * handle_map.h - u64 handle -> object, for streams, events, modules and
 * functions of one session. Open addressing with tombstones; handle 0 is
 * never stored.
 */
#ifndef HANDLE_MAP_H
#define HANDLE_MAP_H

#include <stddef.h>
#include <stdint.h>

struct handle_slot {
    uint64_t key; /* 0 empty, UINT64_MAX tombstone */
    void *value;
};

struct handle_map {
    struct handle_slot *slots;
    size_t cap, len, used; /* used counts tombstones too */
};

void handle_map_init(struct handle_map *m);
void handle_map_free(struct handle_map *m);
void *handle_map_get(const struct handle_map *m, uint64_t key);
/* 0, or -1 when key is 0/UINT64_MAX, already present, or memory ran out. */
int handle_map_put(struct handle_map *m, uint64_t key, void *value);
/* The removed value, or NULL when absent. */
void *handle_map_del(struct handle_map *m, uint64_t key);
/* Iterates live entries: start with *pos = 0; returns 0 when done. */
int handle_map_next(const struct handle_map *m, size_t *pos, uint64_t *key, void **value);

#endif
