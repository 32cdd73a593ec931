/*
 * stage_buf.c - see stage_buf.h.
 */
#include "stage_buf.h"

#include "hipr.h"
#include "hw_os.h"

#define BUF_CACHE_MAX (256 * HIPR_MiB)
#define BUF_ALIGN     64

struct buf_hdr {
    uint64_t cap;
    uint8_t pad[BUF_ALIGN - sizeof(uint64_t)];
};

static struct buf_hdr *hdr_of(void *buf)
{
    return (struct buf_hdr *)buf - 1;
}

void stage_buf_init(struct stage_bufs *b)
{
    pthread_mutex_init(&b->lock, NULL);
    for (size_t i = 0; i < sizeof b->cache / sizeof b->cache[0]; i++)
        b->cache[i] = NULL;
    b->cached_bytes = 0;
}

void *stage_buf_get(struct stage_bufs *b, uint64_t n)
{
    struct buf_hdr *h = NULL;
    pthread_mutex_lock(&b->lock);
    /* The smallest cached buffer that fits and is not wastefully large. */
    int best = -1;
    for (int i = 0; i < (int)(sizeof b->cache / sizeof b->cache[0]); i++) {
        struct buf_hdr *c = b->cache[i] ? hdr_of(b->cache[i]) : NULL;
        if (c && c->cap >= n && c->cap / 2 <= n &&
            (best < 0 || c->cap < hdr_of(b->cache[best])->cap))
            best = i;
    }
    if (best >= 0) {
        h = hdr_of(b->cache[best]);
        b->cache[best] = NULL;
        b->cached_bytes -= h->cap;
    }
    pthread_mutex_unlock(&b->lock);
    if (!h) {
        if (n > UINT64_MAX - sizeof *h)
            return NULL;
        h = hw_os_aligned_alloc(BUF_ALIGN, sizeof *h + (n ? (size_t)n : 1));
        if (!h)
            return NULL;
        h->cap = n;
    }
    return h + 1;
}

void stage_buf_put(struct stage_bufs *b, void *buf)
{
    if (!buf)
        return;
    struct buf_hdr *h = hdr_of(buf);
    pthread_mutex_lock(&b->lock);
    if (h->cap >= HIPR_MiB && b->cached_bytes + h->cap <= BUF_CACHE_MAX) {
        for (size_t i = 0; i < sizeof b->cache / sizeof b->cache[0]; i++)
            if (!b->cache[i]) {
                b->cache[i] = buf;
                b->cached_bytes += h->cap;
                h = NULL;
                break;
            }
    }
    pthread_mutex_unlock(&b->lock);
    hw_os_aligned_free(h);
}

void stage_buf_drop_all(struct stage_bufs *b)
{
    for (size_t i = 0; i < sizeof b->cache / sizeof b->cache[0]; i++) {
        if (b->cache[i])
            hw_os_aligned_free(hdr_of(b->cache[i]));
        b->cache[i] = NULL;
    }
    b->cached_bytes = 0;
}
