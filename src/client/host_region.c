/*
 * host_region.c - hipHostMalloc memory shared with the worker (docs/client.md,
 * "Pinned host memory"; docs/protocol.md, "Shared host memory").
 *
 * On a session that runs on the shared-memory transport, hipHostMalloc asks
 * the worker for a host region (HOST_REGION ALLOC): a sealed memfd the
 * worker has mapped, handed over on the connection TRANSPORT_SHM's fd came
 * on. The proxy maps it too, so copies from and to it name the region and an
 * offset (MEMCPY_REGION_H2D/D2H) and the worker copies straight between the
 * mapping and device memory: the bytes never pass through the rings.
 * Anything else (TCP, an older worker, no memory for it) leaves hipHostMalloc
 * with private memory and copies on the ordinary path, as before.
 *
 * Memory the application allocated itself (hipHostRegister) cannot be made
 * shared after the fact, so it keeps the ordinary path.
 */
#include <string.h>

#include "client.h"
#include "hw_log.h"
#include "hw_shm.h"

#if HW_HAVE_SHM
#include <sys/mman.h>
#include <unistd.h>

#define REGION_WAIT_MS 2000

static hipError_t region_call(struct hw_conn *c, uint32_t op, uint64_t id, uint64_t size,
                              struct hipr_host_region_rep *rep)
{
    struct hipr_host_region_req q = { .op = op, .id = id, .size = size };
    uint8_t fixed[HIPR_host_region_req_SIZE], body[HIPR_host_region_rep_SIZE];
    hipr_host_region_req_encode(fixed, &q);
    hipError_t err = hw_call(c, HIPR_OP_HOST_REGION, fixed, sizeof fixed, NULL, 0, body,
                             sizeof body, NULL, 0, NULL);
    if (err == hipSuccess && rep)
        hipr_host_region_rep_decode(body, sizeof body, rep);
    return err;
}

/* The fd the worker sent for region id: stale ones (a wait that gave up
 * earlier) are closed and skipped. */
static int take_region_fd(struct hw_conn *c, uint64_t id)
{
    for (int tries = 0; tries < 8; tries++) {
        uint64_t got = 0;
        int fd = hw_shm_recv_region(c->shm_side_fd, REGION_WAIT_MS, &got);
        if (fd < 0)
            return -1;
        if (got == id)
            return fd;
        close(fd);
    }
    return -1;
}

void *hw_region_alloc(size_t n, uint64_t *region)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    struct hipr_host_region_rep rep;
    void *p = NULL;
    if (!c || n == 0)
        return NULL;
    pthread_mutex_lock(&c->region_lock);
    if (c->regions_off || c->shm_side_fd < 0 || !hw_tx_is_shm(&c->tx))
        goto out;
    err = region_call(c, HIPR_REGION_ALLOC, 0, n, &rep);
    if (err == hipErrorNotSupported) {
        c->regions_off = 1; /* an older worker, or one with it off */
        hw_debug("hipHostMalloc: private memory (the worker shares none: status %d)", err);
        goto out;
    }
    if (err != hipSuccess)
        goto out;
    int fd = rep.size >= n ? take_region_fd(c, rep.id) : -1;
    if (fd >= 0) {
        p = hw_shm_region_map(fd, rep.size);
        close(fd);
    }
    if (!p) {
        hw_debug("hipHostMalloc: region %llu of %llu bytes could not be mapped here; private "
                 "memory",
                 (unsigned long long)rep.id, (unsigned long long)rep.size);
        region_call(c, HIPR_REGION_FREE, rep.id, 0, NULL);
        goto out;
    }
    *region = rep.id;
out:
    pthread_mutex_unlock(&c->region_lock);
    return p;
}

static size_t mapped_len(size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t pg = page > 0 ? (size_t)page : 4096u;
    return (n + pg - 1) / pg * pg;
}

void hw_region_free(void *p, size_t n, uint64_t region)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    /* The worker drains the session's streams first: no queued copy can
     * still touch it once this returns. A lost session has unmapped it. */
    if (c)
        region_call(c, HIPR_REGION_FREE, region, 0, NULL);
    munmap(p, mapped_len(n));
}

#else /* Windows: no shared memory, hipHostMalloc stays private */

void *hw_region_alloc(size_t n, uint64_t *region)
{
    (void)n;
    (void)region;
    return NULL;
}

void hw_region_free(void *p, size_t n, uint64_t region)
{
    (void)p;
    (void)n;
    (void)region;
}

#endif

int hw_region_of(const void *p, uint64_t n, uint64_t *region, uint64_t *offset)
{
    struct hw_mem_range r;
    uint64_t a = (uint64_t)(uintptr_t)p;
    if (hw_mem_find(a, &r) < 0 || r.kind != HW_MEM_HOST || !r.region || n > r.size - (a - r.base))
        return 0;
    *region = r.region;
    *offset = a - r.base;
    return 1;
}
