/* ptr_map.c - see ptr_map.h. */
#include "ptr_map.h"

#include <stdlib.h>

#include "hw_alloc.h"

static size_t slot_of(const struct ptr_map *m, uintptr_t key)
{
    /* Fibonacci hashing: code addresses share low and high bits. */
    uint64_t h = (uint64_t)key * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (m->cap - 1);
}

void *ptr_map_get(const struct ptr_map *m, const void *key)
{
    uintptr_t k = (uintptr_t)key;
    if (!m->cap || !k)
        return NULL;
    for (size_t i = slot_of(m, k);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i].key == k)
            return m->slots[i].value;
        if (m->slots[i].key == 0)
            return NULL;
    }
}

static int grow(struct ptr_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    struct ptr_map_slot *v = hw_calloc(cap, sizeof *v);
    if (!v)
        return -1;
    struct ptr_map old = *m;
    m->slots = v;
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.slots[i].key)
            continue;
        size_t j = slot_of(m, old.slots[i].key);
        while (v[j].key)
            j = (j + 1) & (cap - 1);
        v[j] = old.slots[i];
    }
    free(old.slots);
    return 0;
}

int ptr_map_put(struct ptr_map *m, const void *key, void *value)
{
    uintptr_t k = (uintptr_t)key;
    if (!k)
        return -1;
    if ((m->len + 1) * 2 > m->cap && grow(m) < 0)
        return -1;
    size_t i = slot_of(m, k);
    while (m->slots[i].key && m->slots[i].key != k)
        i = (i + 1) & (m->cap - 1);
    if (!m->slots[i].key)
        m->len++;
    m->slots[i].key = k;
    m->slots[i].value = value;
    return 0;
}

void ptr_map_del(struct ptr_map *m, const void *key, const void *value)
{
    uintptr_t k = (uintptr_t)key;
    if (!m->cap || !k)
        return;
    size_t mask = m->cap - 1, i = slot_of(m, k);
    while (m->slots[i].key != k) {
        if (!m->slots[i].key)
            return;
        i = (i + 1) & mask;
    }
    if (m->slots[i].value != value)
        return;
    /* Shift later members of the probe run back over the hole, so lookups
     * never need tombstones. */
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t home = slot_of(m, m->slots[j].key);
        /* j's entry may fill the hole unless its home lies in (i, j]. */
        int in_between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_between) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].key = 0;
    m->slots[i].value = NULL;
    m->len--;
}

void ptr_map_free(struct ptr_map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->len = 0;
}
