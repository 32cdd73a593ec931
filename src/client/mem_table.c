/*
 * mem_table.c - the client's record of device and pinned-host allocations:
 * classifies hipMemcpyDefault copies and answers pointer attributes without
 * a round trip. The worker keeps its own table and trusts none of this.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "client.h"

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static struct hw_mem_range *ranges;
static size_t len, cap;

static size_t upper_bound(uint64_t ptr)
{
    size_t lo = 0, hi = len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ranges[mid].base <= ptr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int hw_mem_add(const struct hw_mem_range *r)
{
    int rc = -1;
    pthread_rwlock_wrlock(&lock);
    if (len == cap) {
        size_t ncap = cap ? cap * 2 : 256;
        struct hw_mem_range *v = hw_realloc(ranges, ncap * sizeof *v);
        if (!v)
            goto out;
        ranges = v;
        cap = ncap;
    }
    size_t i = upper_bound(r->base);
    memmove(&ranges[i + 1], &ranges[i], (len - i) * sizeof *ranges);
    ranges[i] = *r;
    len++;
    rc = 0;
out:
    pthread_rwlock_unlock(&lock);
    return rc;
}

int hw_mem_remove(uint64_t base, struct hw_mem_range *out)
{
    int rc = -1;
    pthread_rwlock_wrlock(&lock);
    size_t i = upper_bound(base);
    if (i > 0 && ranges[i - 1].base == base) {
        *out = ranges[i - 1];
        memmove(&ranges[i - 1], &ranges[i], (len - i) * sizeof *ranges);
        len--;
        rc = 0;
    }
    pthread_rwlock_unlock(&lock);
    return rc;
}

int hw_mem_find(uint64_t ptr, struct hw_mem_range *out)
{
    int rc = -1;
    pthread_rwlock_rdlock(&lock);
    size_t i = upper_bound(ptr);
    if (i > 0 && ptr - ranges[i - 1].base < ranges[i - 1].size) {
        *out = ranges[i - 1];
        rc = 0;
    }
    pthread_rwlock_unlock(&lock);
    return rc;
}

int hw_mem_first_of_device(int dev, uint64_t *base)
{
    int found = 0;
    pthread_rwlock_rdlock(&lock);
    for (size_t i = 0; i < len && !found; i++)
        if (ranges[i].kind == HW_MEM_DEVICE && ranges[i].device == dev) {
            *base = ranges[i].base;
            found = 1;
        }
    pthread_rwlock_unlock(&lock);
    return found;
}

int hw_mem_host_overlap(uint64_t base, uint64_t size, struct hw_mem_range *out)
{
    int found = 0;
    pthread_rwlock_rdlock(&lock);
    /* Linear: registration is rare, and device ranges (another address
     * space) may sit between client ones in the order. */
    for (size_t i = 0; i < len && !found; i++)
        if (ranges[i].kind != HW_MEM_DEVICE && ranges[i].base < base + size &&
            base < ranges[i].base + ranges[i].size) {
            *out = ranges[i];
            found = 1;
        }
    pthread_rwlock_unlock(&lock);
    return found;
}
