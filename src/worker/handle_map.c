#include "handle_map.h"

#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"

#define TOMB UINT64_MAX

static size_t hash(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return (size_t)k;
}

void handle_map_init(struct handle_map *m)
{
    memset(m, 0, sizeof *m);
}

void handle_map_free(struct handle_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static struct handle_slot *find(const struct handle_map *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = hash(key) & (m->cap - 1), n = 0; n < m->cap; i = (i + 1) & (m->cap - 1), n++) {
        if (m->slots[i].key == key)
            return &m->slots[i];
        if (m->slots[i].key == 0)
            return NULL;
    }
    return NULL;
}

void *handle_map_get(const struct handle_map *m, uint64_t key)
{
    if (key == 0 || key == TOMB)
        return NULL;
    struct handle_slot *s = find(m, key);
    return s ? s->value : NULL;
}

static int grow(struct handle_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    if (m->len * 4 < m->cap)
        cap = m->cap; /* mostly tombstones: rehash in place */
    struct handle_slot *old = m->slots;
    size_t oldcap = m->cap;
    struct handle_slot *slots = hw_calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    m->slots = slots;
    m->cap = cap;
    m->len = m->used = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key && old[i].key != TOMB)
            handle_map_put(m, old[i].key, old[i].value);
    free(old);
    return 0;
}

int handle_map_put(struct handle_map *m, uint64_t key, void *value)
{
    if (key == 0 || key == TOMB || handle_map_get(m, key))
        return -1;
    if ((m->used + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return -1;
    size_t i = hash(key) & (m->cap - 1);
    while (m->slots[i].key && m->slots[i].key != TOMB)
        i = (i + 1) & (m->cap - 1);
    if (m->slots[i].key == 0)
        m->used++;
    m->slots[i].key = key;
    m->slots[i].value = value;
    m->len++;
    return 0;
}

void *handle_map_del(struct handle_map *m, uint64_t key)
{
    if (key == 0 || key == TOMB)
        return NULL;
    struct handle_slot *s = find(m, key);
    if (!s)
        return NULL;
    void *v = s->value;
    s->key = TOMB;
    s->value = NULL;
    m->len--;
    return v;
}

int handle_map_next(const struct handle_map *m, size_t *pos, uint64_t *key, void **value)
{
    while (*pos < m->cap) {
        struct handle_slot *s = &m->slots[(*pos)++];
        if (s->key && s->key != TOMB) {
            *key = s->key;
            *value = s->value;
            return 1;
        }
    }
    return 0;
}
