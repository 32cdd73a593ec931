/*
 * stage_buf.h - a session's cache of large staging buffers.
 *
 * Copies stage their data in buffers from here, and a resumable session's
 * reply log keeps reply data in them. Large ones are reused: a fresh 64 MiB
 * malloc is an mmap whose first touch page-faults, which costs more than
 * the copy. A leaf: it calls nothing of the session's.
 */
#ifndef STAGE_BUF_H
#define STAGE_BUF_H

#include <pthread.h>
#include <stdint.h>

struct stage_bufs {
    pthread_mutex_t lock; /* guards the cache below, nothing else */
    void *cache[8];
    uint64_t cached_bytes;
};

void stage_buf_init(struct stage_bufs *b);
/* A buffer of at least n bytes, 64-byte aligned, or NULL (thread-safe). */
void *stage_buf_get(struct stage_bufs *b, uint64_t n);
/* Gives back a buffer from stage_buf_get (NULL accepted; thread-safe). */
void stage_buf_put(struct stage_bufs *b, void *buf);
/* Frees what is cached (at teardown, no other thread left). */
void stage_buf_drop_all(struct stage_bufs *b);

#endif
