#include "alloc_table.h"

#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"

void alloc_table_init(struct alloc_table *t)
{
    memset(t, 0, sizeof *t);
}

void alloc_table_free(struct alloc_table *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* Index of the first range with base > ptr. */
static size_t upper_bound(const struct alloc_table *t, uint64_t ptr)
{
    size_t lo = 0, hi = t->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].base <= ptr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int alloc_table_insert(struct alloc_table *t, const struct alloc_range *r)
{
    if (r->size == 0 || r->base + r->size < r->base)
        return -1;
    size_t i = upper_bound(t, r->base);
    if (i > 0 && t->v[i - 1].base + t->v[i - 1].size > r->base)
        return -1;
    if (i < t->len && r->base + r->size > t->v[i].base)
        return -1;
    if (t->len == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        struct alloc_range *v = hw_realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    memmove(&t->v[i + 1], &t->v[i], (t->len - i) * sizeof *t->v);
    t->v[i] = *r;
    t->len++;
    if (r->kind == ALLOC_MALLOC)
        t->malloc_bytes += r->size;
    return 0;
}

const struct alloc_range *alloc_table_find(const struct alloc_table *t, uint64_t ptr, uint64_t len)
{
    size_t i = upper_bound(t, ptr);
    if (i == 0)
        return NULL;
    const struct alloc_range *r = &t->v[i - 1];
    uint64_t off = ptr - r->base; /* ptr >= base here */
    if (off >= r->size)
        return NULL;
    /* Compare against the room left, so ptr + len can never wrap. */
    if (len > r->size - off)
        return NULL;
    return r;
}

int alloc_table_remove(struct alloc_table *t, uint64_t base, struct alloc_range *out)
{
    size_t i = upper_bound(t, base);
    if (i == 0 || t->v[i - 1].base != base)
        return -1;
    i--;
    *out = t->v[i];
    if (out->kind == ALLOC_MALLOC)
        t->malloc_bytes -= out->size;
    memmove(&t->v[i], &t->v[i + 1], (t->len - i - 1) * sizeof *t->v);
    t->len--;
    return 0;
}
