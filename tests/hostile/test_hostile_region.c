/*
 * test_hostile_region - a same-host client that attacks shared host memory
 * (docs/protocol.md, "Shared host memory"), speaking HIPR through the rings
 * itself.
 *
 *   1. A region is created, handed over and copied to and from (the good
 *      path works, so the refusals below are refusals of the bad inputs).
 *   2. Copies naming an unknown region, an offset or size past its end, an
 *      offset + size that overflows, a range running from one region into
 *      the next, device memory outside the allocation: hipErrorInvalidValue,
 *      both directions, nothing written.
 *   3. FREE, then a copy with the freed region and a second FREE:
 *      hipErrorInvalidValue.
 *   4. ALLOC of 0 bytes, of more than the host has, an unknown op:
 *      refused; ALLOC in a session on TCP: hipErrorNotSupported.
 *   5. Another shared-memory session naming the first one's region id:
 *      hipErrorInvalidValue; the region's memfd is mapped by exactly two
 *      processes (this one and the first session's).
 *   6. A client that never takes its fds: ALLOC is refused once the
 *      hand-over socket is full, instead of the worker waiting.
 *   7. The worker log has no crash, the first session still answers, new
 *      sessions work.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostile_ops.h"
#include "hw_shm.h"
#include "hw_status.h"

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

struct shm_sess {
    struct raw_conn c;
    struct hw_shm_link *l;
    int side; /* the kept hand-over connection */
    uint32_t next_id;
};

static int shm_step(struct raw_conn *c, uint32_t op, struct hipr_transport_shm_rep *rep)
{
    struct hipr_transport_shm_req q;
    uint8_t fixed[HIPR_transport_shm_req_SIZE];
    struct raw_reply r;
    memset(&q, 0, sizeof q);
    q.op = op;
    if (hw_shm_boot_id(q.boot_id) < 0)
        return -100;
    hipr_transport_shm_req_encode(fixed, &q);
    int rc = raw_call(c, HIPR_OP_TRANSPORT_SHM, fixed, sizeof fixed, NULL, 0, &r);
    if (rc != 0)
        return rc;
    int status = r.rh.status;
    if (status == 0 && rep && r.body_len == HIPR_transport_shm_rep_SIZE)
        hipr_transport_shm_rep_decode(r.body, r.body_len, rep);
    raw_reply_free(&r);
    return status;
}

/* A fresh session with `dev_bytes` of device memory (allocated on TCP),
 * then switched to the rings. */
static void open_shm(struct shm_sess *s, uint64_t dev_bytes, uint64_t *dev)
{
    struct hipr_transport_shm_rep rep;
    char why[200] = "";
    memset(s, 0, sizeof *s);
    s->next_id = 1000;
    CHECK(raw_connect(&s->c) == 0 && raw_hello(&s->c) == 0);
    if (dev_bytes)
        CHECK(raw_malloc(&s->c, dev_bytes, dev) == 0);
    CHECK(shm_step(&s->c, HIPR_SHM_OFFER, &rep) == 0);
    s->side = hw_shm_dial(rep.path, rep.nonce, why, sizeof why);
    CHECK(s->side >= 0);
    CHECK(shm_step(&s->c, HIPR_SHM_HANDOVER, NULL) == 0);
    int memfd = hw_shm_take_fd(s->side, 2000, why, sizeof why);
    CHECK(memfd >= 0);
    s->l = hw_shm_map(memfd, rep.ring_size, rep.nonce, why, sizeof why);
    close(memfd);
    CHECK(s->l != NULL);
    CHECK(shm_step(&s->c, HIPR_SHM_COMMIT, NULL) == 0);
}

static void close_shm(struct shm_sess *s)
{
    hw_shm_free(s->l);
    close(s->side);
    raw_close(&s->c);
}

static int read_full(struct shm_sess *s, void *buf, size_t n)
{
    size_t have = 0;
    while (have < n) {
        ssize_t r = hw_shm_recv(s->l, s->c.fd, (uint8_t *)buf + have, n - have, 10000);
        if (r <= 0)
            return -1;
        have += (size_t)r;
    }
    return 0;
}

/* A request through the rings, answered (no NO_REPLY, so ASYNC opcodes
 * answer too): its status, the reply's fixed part in body. -1000: the link
 * failed. */
static int shm_call(struct shm_sess *s, uint16_t opcode, const void *fixed, size_t len, void *body,
                    size_t body_len)
{
    uint8_t frame[HIPR_HEADER_SIZE + 64];
    uint32_t id = s->next_id++;
    struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION, opcode, id, 0, len };
    CHECK(len <= 64);
    hipr_header_encode(frame, &h);
    memcpy(frame + HIPR_HEADER_SIZE, fixed, len);
    struct iovec iov = { frame, HIPR_HEADER_SIZE + len };
    if (hw_shm_writev(s->l, s->c.fd, &iov, 1) < 0)
        return -1000;
    for (;;) {
        uint8_t hb[HIPR_HEADER_SIZE], rest[256];
        struct hipr_header rh;
        if (read_full(s, hb, sizeof hb) < 0)
            return -1000;
        hipr_header_decode(hb, &rh);
        if (rh.payload_length > sizeof rest || read_full(s, rest, rh.payload_length) < 0)
            return -1000;
        if (rh.request_id != id)
            continue; /* a heartbeat, an acknowledgement */
        CHECK(rh.opcode == opcode && rh.payload_length >= HIPR_reply_hdr_SIZE);
        struct hipr_reply_hdr r;
        hipr_reply_hdr_decode(rest, HIPR_reply_hdr_SIZE, &r);
        if (body && r.status == 0) {
            CHECK(rh.payload_length - HIPR_reply_hdr_SIZE >= body_len);
            memcpy(body, rest + HIPR_reply_hdr_SIZE, body_len);
        }
        return r.status;
    }
}

static int region_op(struct shm_sess *s, uint32_t op, uint64_t id, uint64_t size,
                     struct hipr_host_region_rep *rep)
{
    struct hipr_host_region_req q = { .op = op, .id = id, .size = size };
    uint8_t fixed[HIPR_host_region_req_SIZE], body[HIPR_host_region_rep_SIZE];
    hipr_host_region_req_encode(fixed, &q);
    int st = shm_call(s, HIPR_OP_HOST_REGION, fixed, sizeof fixed, body, sizeof body);
    if (st == 0 && rep)
        hipr_host_region_rep_decode(body, sizeof body, rep);
    return st;
}

static int copy(struct shm_sess *s, int d2h, uint64_t region, uint64_t offset, uint64_t dev,
                uint64_t size)
{
    struct hipr_memcpy_region m = {
        .region = region, .offset = offset, .dev = dev, .size = size, .stream = 0
    };
    uint8_t fixed[HIPR_memcpy_region_SIZE];
    hipr_memcpy_region_encode(fixed, &m);
    return shm_call(s, d2h ? HIPR_OP_MEMCPY_REGION_D2H : HIPR_OP_MEMCPY_REGION_H2D, fixed,
                    sizeof fixed, NULL, 0);
}

/* ALLOC, the fd taken and mapped: the mapping, its id and size. */
static uint8_t *alloc_region(struct shm_sess *s, uint64_t size, uint64_t *id, uint64_t *len)
{
    struct hipr_host_region_rep rep;
    uint64_t got = 0;
    CHECK(region_op(s, HIPR_REGION_ALLOC, 0, size, &rep) == 0);
    CHECK(rep.size >= size);
    int fd = hw_shm_recv_region(s->side, 2000, &got);
    CHECK(fd >= 0 && got == rep.id);
    uint8_t *p = hw_shm_region_map(fd, rep.size);
    close(fd);
    CHECK(p != NULL);
    *id = rep.id;
    *len = rep.size;
    return p;
}

static int log_has(const char *needle)
{
    return raw_log_has(needle, NULL);
}

/* How many processes map the file with this inode. */
static int mappers(ino_t ino)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    CHECK(d != NULL);
    while ((e = readdir(d))) {
        char path[300], line[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/maps", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int found = 0;
        while (!found && fgets(line, sizeof line, f)) {
            unsigned long long inode = 0;
            char *name = strstr(line, "hipwire-host");
            if (name && sscanf(line, "%*s %*s %*s %*s %llu", &inode) == 1 && inode == ino)
                found = 1;
        }
        fclose(f);
        n += found;
    }
    closedir(d);
    return n;
}

int main(void)
{
    struct shm_sess a, b;
    uint64_t dev, id, len, id2, len2;
    int32_t async = 0;

    /* 1. The good path. */
    open_shm(&a, 1u << 20, &dev);
    uint8_t *r = alloc_region(&a, 100000, &id, &len);
    uint8_t *r2 = alloc_region(&a, 4096, &id2, &len2);
    CHECK(id != id2);
    for (uint64_t i = 0; i < len; i++)
        r[i] = (uint8_t)(i * 7);
    CHECK(copy(&a, 0, id, 5, dev, 90000) == 0);
    memset(r, 0, len);
    CHECK(copy(&a, 1, id, 1000, dev, 90000) == 0);
    for (uint64_t i = 0; i < 90000; i++)
        CHECK(r[1000 + i] == (uint8_t)((i + 5) * 7));
    CHECK(r[999] == 0 && r[91000] == 0);
    printf("region created, handed over, copied both ways: ok\n");

    /* 2. Bad ranges, both directions; the region is left alone. */
    memset(r, 0x3c, len);
    for (int d2h = 0; d2h <= 1; d2h++) {
        CHECK(copy(&a, d2h, id + 100, 0, dev, 16) == HW_EINVAL);       /* unknown region */
        CHECK(copy(&a, d2h, 0, 0, dev, 16) == HW_EINVAL);              /* id 0 */
        CHECK(copy(&a, d2h, id, len + 1, dev, 0) == HW_EINVAL);        /* offset past the end */
        CHECK(copy(&a, d2h, id, 1, dev, len) == HW_EINVAL);            /* one byte past */
        CHECK(copy(&a, d2h, id, len - 8, dev, 9) == HW_EINVAL);        /* into the next page */
        CHECK(copy(&a, d2h, id, UINT64_MAX - 1, dev, 4) == HW_EINVAL); /* wraps */
        CHECK(copy(&a, d2h, id, 16, dev, UINT64_MAX - 8) == HW_EINVAL);
        CHECK(copy(&a, d2h, id2, 0, dev, len2 + 4096) == HW_EINVAL); /* into another region */
        CHECK(copy(&a, d2h, id, 0, dev + (1u << 20) - 10, 100) == HW_EINVAL); /* device range */
        CHECK(copy(&a, d2h, id, 0, 0x1000, 100) == HW_EINVAL); /* not device memory */
        CHECK(copy(&a, d2h, id, 0, dev, 0) == 0);              /* empty: fine */
    }
    for (uint64_t i = 0; i < len; i++)
        CHECK(r[i] == 0x3c);
    printf("out-of-range offsets and sizes, overflow, across regions: refused: ok\n");

    /* 3. Freed, then used. */
    CHECK(region_op(&a, HIPR_REGION_FREE, id2, 0, NULL) == 0);
    CHECK(copy(&a, 0, id2, 0, dev, 16) == HW_EINVAL);
    CHECK(copy(&a, 1, id2, 0, dev, 16) == HW_EINVAL);
    CHECK(region_op(&a, HIPR_REGION_FREE, id2, 0, NULL) == HW_EINVAL);
    CHECK(region_op(&a, HIPR_REGION_FREE, 777777, 0, NULL) == HW_EINVAL);
    munmap(r2, len2);
    printf("freed region used and freed again: refused: ok\n");

    /* 4. Bad allocations. */
    CHECK(region_op(&a, HIPR_REGION_ALLOC, 0, 0, NULL) == HW_EINVAL);
    CHECK(region_op(&a, HIPR_REGION_ALLOC, 0, UINT64_C(1) << 62, NULL) == HW_ENOMEM);
    CHECK(region_op(&a, 99, 0, 4096, NULL) == HW_EINVAL);
    {
        struct raw_conn t;
        struct hipr_host_region_req q = { .op = HIPR_REGION_ALLOC, .size = 4096 };
        uint8_t fixed[HIPR_host_region_req_SIZE];
        hipr_host_region_req_encode(fixed, &q);
        CHECK(raw_connect(&t) == 0 && raw_hello(&t) == 0);
        CHECK(raw_status(&t, HIPR_OP_HOST_REGION, fixed, sizeof fixed, NULL, 0) == HW_ENOTSUP);
        raw_close(&t);
    }
    printf("bad allocations refused; none on TCP: ok\n");

    /* 5. Another session cannot name it, and does not map it. */
    uint64_t devb;
    open_shm(&b, 4096, &devb);
    CHECK(copy(&b, 0, id, 0, devb, 16) == HW_EINVAL);
    CHECK(copy(&b, 1, id, 0, devb, 16) == HW_EINVAL);
    CHECK(region_op(&b, HIPR_REGION_FREE, id, 0, NULL) == HW_EINVAL);
    struct stat st;
    {
        /* The inode of a's region, from our own mapping of it. */
        FILE *f = fopen("/proc/self/maps", "r");
        char line[512];
        unsigned long long inode = 0;
        CHECK(f != NULL);
        while (fgets(line, sizeof line, f)) {
            unsigned long lo;
            if (strstr(line, "hipwire-host") && sscanf(line, "%lx-", &lo) == 1 &&
                lo == (unsigned long)(uintptr_t)r)
                CHECK(sscanf(line, "%*s %*s %*s %*s %llu", &inode) == 1);
        }
        fclose(f);
        CHECK(inode != 0);
        st.st_ino = (ino_t)inode;
    }
    CHECK(mappers(st.st_ino) == 2);
    close_shm(&b);
    printf("another session cannot reach the region; two processes map it: ok\n");

    /* 6. Never taking the fds: the socket fills, ALLOC is refused, the
     * dispatch thread never waits. */
    int refused = 0;
    for (int i = 0; i < 3000 && !refused; i++) {
        int rc = region_op(&a, HIPR_REGION_ALLOC, 0, 4096, NULL);
        CHECK(rc == 0 || rc == HW_ENOMEM);
        refused = rc == HW_ENOMEM;
    }
    CHECK(refused);
    CHECK(copy(&a, 0, id, 0, dev, 64) == 0);
    printf("fds not taken: ALLOC refused once the socket is full: ok\n");

    /* 7. Nobody died. */
    CHECK(region_op(&a, HIPR_REGION_FREE, id, 0, NULL) == 0);
    munmap(r, len);
    close_shm(&a);
    CHECK(!log_has("died from signal"));
    struct raw_conn c;
    CHECK(raw_connect(&c) == 0 && raw_hello(&c) == 0);
    CHECK(op_ping(&c, &async) == 0);
    raw_close(&c);
    printf("hostile region: ok\n");
    return 0;
}
