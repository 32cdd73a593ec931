/* hw_shm.c - see hw_shm.h. Linux only (memfd, futex, SCM_RIGHTS). */
#include "hw_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_auth.h"
#include "hw_log.h"
#include "hw_sha256.h"
#include "hw_time.h"

#define SHM_MAGIC   UINT64_C(0x314d485357504948) /* "HIPWSHM1" */
#define SHM_VERSION 1u

/* Spinning before a sleep: a reply that comes within this is taken without
 * a system call on either side. Longer spins starve the thread that would
 * produce the reply when cores are few (TF_SHM_SPIN_US overrides, 0..1000). */
#define SPIN_NS_DEFAULT (30u * 1000u)
/* A sleeper wakes this often to look at the TCP connection. */
#define SLICE_MS 100
/* After the TCP connection ends, how long the ring may still deliver what
 * the peer wrote before it went (a GOING_AWAY written after its socket was
 * shut down). */
#define HANGUP_GRACE_MS 200
/* A writer publishes at least this often, so the reader starts copying out
 * of the ring while a large write still goes in. */
#define PUBLISH_BYTES (256u * 1024u)

/* One ring's shared words: the producer's index and the consumer's, on
 * separate cache lines, each with the sequence word and waiter count the
 * other side sleeps on. */
struct shm_ring_ctl {
    uint64_t head;         /* bytes ever written (producer) */
    uint32_t data_seq;     /* bumped by the producer for a sleeping consumer */
    uint32_t data_waiters; /* consumers asleep on data_seq */
    uint8_t pad0[112];
    uint64_t tail;          /* bytes ever read (consumer) */
    uint32_t space_seq;     /* bumped by the consumer for a sleeping producer */
    uint32_t space_waiters; /* producers asleep on space_seq */
    uint8_t pad1[112];
};

struct shm_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t reserved;
    uint64_t ring_size;
    uint8_t nonce[HW_SHM_NONCE_LEN];
    uint32_t closed[2]; /* per side: it has left */
    uint8_t pad[256 - 64];
    struct shm_ring_ctl ring[2]; /* 0: client to worker, 1: worker to client */
};

_Static_assert(sizeof(struct shm_ring_ctl) == 256, "ring control is two 128-byte lines");
_Static_assert(sizeof(struct shm_hdr) <= HW_SHM_HDR_SIZE, "header fits its page");

struct hw_shm_link {
    uint8_t *base;
    size_t map_len;
    struct shm_hdr *hdr;
    uint8_t *data[2];
    uint64_t size, mask;
    int side;
    int tx, rx;              /* ring indices this side writes and reads */
    uint64_t head;           /* tx ring: what we have published (we are its only writer) */
    uint64_t tail;           /* rx ring: what we have consumed */
    int down;                /* hw_shm_shutdown was called */
    int corrupt;             /* the peer broke an index: the link is over */
    uint64_t hangup_ms;      /* when the TCP connection was first seen ended; 0: not */
    uint64_t spin_ns;        /* how long a wait spins before it sleeps */
    uint64_t tcp_checked_ms; /* when a busy reader last looked at the socket */
};

uint64_t hw_shm_region_size(uint64_t ring_size)
{
    if (ring_size < HW_SHM_RING_MIN || ring_size > HW_SHM_RING_MAX ||
        (ring_size & (ring_size - 1)) != 0)
        return 0;
    return HW_SHM_HDR_SIZE + 2 * ring_size;
}

uint64_t hw_shm_ring_size(const struct hw_shm_link *l)
{
    return l->size;
}

int hw_shm_boot_id(uint8_t out[HW_SHM_BOOT_ID_LEN])
{
    char text[64];
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    /* A UUID: 32 hex digits and dashes. */
    int k = 0;
    for (ssize_t i = 0; i < n && k < 2 * HW_SHM_BOOT_ID_LEN; i++) {
        char c = text[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0)
            continue;
        if (k % 2 == 0)
            out[k / 2] = (uint8_t)(v << 4);
        else
            out[k / 2] |= (uint8_t)v;
        k++;
    }
    return k == 2 * HW_SHM_BOOT_ID_LEN ? 0 : -1;
}

static void why_set(char *why, size_t why_len, const char *fmt, const char *arg)
{
    if (why && why_len)
        snprintf(why, why_len, fmt, arg);
}

static struct hw_shm_link *link_new(uint8_t *base, size_t len, uint64_t ring_size, int side)
{
    struct hw_shm_link *l = hw_calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->base = base;
    l->map_len = len;
    l->hdr = (struct shm_hdr *)base;
    l->data[0] = base + HW_SHM_HDR_SIZE;
    l->data[1] = base + HW_SHM_HDR_SIZE + ring_size;
    l->size = ring_size;
    l->mask = ring_size - 1;
    l->side = side;
    l->tx = side == HW_SHM_SIDE_CLIENT ? 0 : 1;
    l->rx = 1 - l->tx;
    l->spin_ns = SPIN_NS_DEFAULT;
    const char *e = getenv("TF_SHM_SPIN_US");
    if (e && *e) {
        long us = strtol(e, NULL, 10);
        if (us >= 0 && us <= 1000)
            l->spin_ns = (uint64_t)us * 1000u;
    }
    return l;
}

struct hw_shm_link *hw_shm_create(uint64_t ring_size, uint8_t nonce[HW_SHM_NONCE_LEN], int *memfd,
                                  char *why, size_t why_len)
{
    uint64_t len = hw_shm_region_size(ring_size);
    if (!len) {
        why_set(why, why_len, "%s", "bad ring size");
        return NULL;
    }
    int fd = memfd_create("hipwire-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        why_set(why, why_len, "memfd_create: %s", strerror(errno));
        return NULL;
    }
    /* Pages are taken as they are first touched: a session that moves
     * little costs little (a memfd has no size limit of its own; running out
     * is the memory cgroup's OOM, as for any allocation). */
    if (ftruncate(fd, (off_t)len) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
        why_set(why, why_len, "cannot size the region: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        why_set(why, why_len, "mmap: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    struct hw_shm_link *l = link_new(p, (size_t)len, ring_size, HW_SHM_SIDE_WORKER);
    if (!l || hw_random_bytes(nonce, HW_SHM_NONCE_LEN) < 0) {
        why_set(why, why_len, "%s", "out of memory or randomness");
        hw_free(l);
        munmap(p, (size_t)len);
        close(fd);
        return NULL;
    }
    l->hdr->version = SHM_VERSION;
    l->hdr->ring_size = ring_size;
    memcpy(l->hdr->nonce, nonce, HW_SHM_NONCE_LEN);
    __atomic_store_n(&l->hdr->magic, SHM_MAGIC, __ATOMIC_RELEASE);
    *memfd = fd;
    return l;
}

struct hw_shm_link *hw_shm_map(int memfd, uint64_t ring_size, const uint8_t nonce[HW_SHM_NONCE_LEN],
                               char *why, size_t why_len)
{
    uint64_t len = hw_shm_region_size(ring_size);
    struct stat st;
    if (!len) {
        why_set(why, why_len, "%s", "bad ring size");
        return NULL;
    }
    /* Sealed against shrinking: nobody can make our accesses fault later. */
    int seals = fcntl(memfd, F_GET_SEALS);
    if (fstat(memfd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != len || seals < 0 ||
        !(seals & F_SEAL_SHRINK)) {
        why_set(why, why_len, "%s", "the region is not a sealed memfd of the agreed size");
        return NULL;
    }
    void *p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (p == MAP_FAILED) {
        why_set(why, why_len, "mmap: %s", strerror(errno));
        return NULL;
    }
    const struct shm_hdr *h = p;
    if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != SHM_MAGIC || h->version != SHM_VERSION ||
        h->ring_size != ring_size || memcmp(h->nonce, nonce, HW_SHM_NONCE_LEN) != 0) {
        why_set(why, why_len, "%s", "the region is not the one the worker announced");
        munmap(p, (size_t)len);
        return NULL;
    }
    struct hw_shm_link *l = link_new(p, (size_t)len, ring_size, HW_SHM_SIDE_CLIENT);
    if (!l) {
        munmap(p, (size_t)len);
        why_set(why, why_len, "%s", "out of memory");
    }
    return l;
}

/* ---- futex wake-ups -------------------------------------------------------- */

static void futex_wake(uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void futex_wait(uint32_t *word, uint32_t seen, int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &ts, NULL, 0);
}

/* After publishing an index: wake the other side if it sleeps. The fence
 * pairs with the sleeper's (waiter count, then index): one of the two sees
 * the other's store. */
static void notify(uint32_t *seq, uint32_t *waiters)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(waiters, __ATOMIC_RELAXED)) {
        __atomic_add_fetch(seq, 1, __ATOMIC_SEQ_CST);
        futex_wake(seq);
    }
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static int peer_closed(const struct hw_shm_link *l)
{
    return __atomic_load_n(&l->hdr->closed[1 - l->side], __ATOMIC_ACQUIRE) != 0;
}

/* Whether the TCP connection has ended (or carries anything: nothing may
 * come that way once the rings are in use). Past the grace after the first
 * sighting, the link is over. */
static int tcp_gone(struct hw_shm_link *l, int fd)
{
    if (l->hangup_ms)
        return hw_now_ms() - l->hangup_ms >= HANGUP_GRACE_MS;
    if (fd < 0)
        return 0;
    struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
    if (poll(&p, 1, 0) <= 0 || !p.revents)
        return 0;
    l->hangup_ms = hw_now_ms();
    return 0;
}

/*
 * Waits until *idx (the peer's index) is no longer seen. 0 when it moved,
 * 1 when the link is over (shut down here, the peer left, its TCP
 * connection ended), -1 with ETIMEDOUT at deadline_ns (0: none).
 */
static int wait_index(struct hw_shm_link *l, int fd, const uint64_t *idx, uint64_t seen,
                      uint32_t *seq, uint32_t *waiters, uint64_t deadline_ns)
{
    uint64_t t0 = hw_now_ns();
    for (unsigned i = 1;; i++) {
        if (__atomic_load_n(idx, __ATOMIC_ACQUIRE) != seen)
            return 0;
        if ((i & 15) == 0) {
            if (hw_now_ns() - t0 >= l->spin_ns)
                break;
            /* On a busy machine the peer may be waiting for this CPU:
             * an idle one returns at once. */
            sched_yield();
        }
        cpu_relax();
    }
    for (;;) {
        uint32_t sq = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
        __atomic_add_fetch(waiters, 1, __ATOMIC_SEQ_CST);
        int moved = __atomic_load_n(idx, __ATOMIC_SEQ_CST) != seen;
        if (!moved && !__atomic_load_n(&l->down, __ATOMIC_ACQUIRE) && !peer_closed(l)) {
            int ms = l->hangup_ms ? 10 : SLICE_MS;
            if (deadline_ns) {
                uint64_t now = hw_now_ns();
                uint64_t left = deadline_ns > now ? (deadline_ns - now + 999999) / 1000000 : 0;
                if (left < (uint64_t)ms)
                    ms = (int)left;
            }
            if (ms > 0)
                futex_wait(seq, sq, ms);
        }
        __atomic_sub_fetch(waiters, 1, __ATOMIC_RELAXED);
        if (__atomic_load_n(idx, __ATOMIC_ACQUIRE) != seen)
            return 0;
        if (__atomic_load_n(&l->down, __ATOMIC_ACQUIRE) || peer_closed(l) || tcp_gone(l, fd))
            return 1;
        if (deadline_ns && hw_now_ns() >= deadline_ns) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
}

static void corrupted(struct hw_shm_link *l, int ring, uint64_t peer, uint64_t ours)
{
    if (!l->corrupt)
        hw_warn("shared-memory link: the peer corrupted the %s ring's index (%llu against our "
                "%llu, ring %llu bytes): closing the link",
                ring == 0 ? "request" : "reply", (unsigned long long)peer, (unsigned long long)ours,
                (unsigned long long)l->size);
    l->corrupt = 1;
    errno = EPROTO;
}

ssize_t hw_shm_recv(struct hw_shm_link *l, int fd, void *buf, size_t n, int timeout_ms)
{
    struct shm_ring_ctl *c = &l->hdr->ring[l->rx];
    uint64_t deadline = timeout_ms > 0 ? hw_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
    if (n == 0)
        return 0;
    for (;;) {
        if (l->corrupt) {
            errno = EPROTO;
            return -1;
        }
        /* A reader that always finds data never sleeps, so it looks at the
         * socket every 10 ms too: a socket shut down here (the worker's
         * SIGTERM) or by the peer ends the stream like a socket's, after
         * the grace, however busy the ring. */
        uint64_t now_ms = hw_now_ms();
        if (now_ms - l->tcp_checked_ms >= 10) {
            l->tcp_checked_ms = now_ms;
            if (tcp_gone(l, fd)) {
                errno = 0;
                return 0;
            }
        }
        uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
        uint64_t avail = head - l->tail;
        if (avail > l->size) {
            corrupted(l, l->rx, head, l->tail);
            return -1;
        }
        if (avail) {
            size_t k = avail < n ? (size_t)avail : n;
            size_t at = (size_t)(l->tail & l->mask);
            size_t first = l->size - at < k ? (size_t)(l->size - at) : k;
            memcpy(buf, l->data[l->rx] + at, first);
            if (k > first)
                memcpy((uint8_t *)buf + first, l->data[l->rx], k - first);
            l->tail += k;
            __atomic_store_n(&c->tail, l->tail, __ATOMIC_RELEASE);
            notify(&c->space_seq, &c->space_waiters);
            return (ssize_t)k;
        }
        if (__atomic_load_n(&l->down, __ATOMIC_ACQUIRE)) {
            errno = 0;
            return 0;
        }
        int w = wait_index(l, fd, &c->head, head, &c->data_seq, &c->data_waiters, deadline);
        if (w < 0)
            return -1;
        if (w > 0 && __atomic_load_n(&c->head, __ATOMIC_ACQUIRE) == head) {
            errno = 0; /* the end of the stream, as a closed socket reads */
            return 0;
        }
    }
}

/* Makes what was copied visible to the reader. */
static void publish(struct hw_shm_link *l, struct shm_ring_ctl *c)
{
    __atomic_store_n(&c->head, l->head, __ATOMIC_RELEASE);
    notify(&c->data_seq, &c->data_waiters);
}

int hw_shm_writev(struct hw_shm_link *l, int fd, const struct iovec *iov, int iovcnt)
{
    struct shm_ring_ctl *c = &l->hdr->ring[l->tx];
    uint64_t unpublished = 0;
    for (int i = 0; i < iovcnt; i++) {
        const uint8_t *p = iov[i].iov_base;
        size_t len = iov[i].iov_len;
        while (len > 0) {
            if (l->corrupt) {
                errno = EPROTO;
                return -1;
            }
            if (__atomic_load_n(&l->down, __ATOMIC_ACQUIRE)) {
                errno = EPIPE;
                return -1;
            }
            /* A peer that left reads nothing more: what it wrote before
             * (a GOING_AWAY, say) is for the reader to find, as after a
             * socket's peer shut down. */
            if (peer_closed(l))
                return 0;
            uint64_t tail = __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE);
            uint64_t used = l->head - tail;
            if (used > l->size) {
                corrupted(l, l->tx, tail, l->head);
                return -1;
            }
            uint64_t space = l->size - used;
            if (space == 0) {
                if (unpublished) {
                    publish(l, c);
                    unpublished = 0;
                }
                int w = wait_index(l, fd, &c->tail, tail, &c->space_seq, &c->space_waiters, 0);
                if (w != 0 && !peer_closed(l)) {
                    errno = EPIPE;
                    return -1;
                }
                continue;
            }
            size_t k = space < len ? (size_t)space : len;
            if (k > PUBLISH_BYTES)
                k = PUBLISH_BYTES;
            size_t at = (size_t)(l->head & l->mask);
            size_t first = l->size - at < k ? (size_t)(l->size - at) : k;
            memcpy(l->data[l->tx] + at, p, first);
            if (k > first)
                memcpy(l->data[l->tx], p + first, k - first);
            l->head += k;
            p += k;
            len -= k;
            unpublished += k;
            if (unpublished >= PUBLISH_BYTES) {
                publish(l, c);
                unpublished = 0;
            }
        }
    }
    if (unpublished)
        publish(l, c);
    return 0;
}

int hw_shm_poll_readable(struct hw_shm_link *l, int fd, int timeout_ms)
{
    struct shm_ring_ctl *c = &l->hdr->ring[l->rx];
    uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
    if (head != l->tail || l->corrupt)
        return 1; /* data, or an error the read will report */
    if (timeout_ms == 0)
        return __atomic_load_n(&l->down, __ATOMIC_ACQUIRE) || peer_closed(l) || tcp_gone(l, fd);
    uint64_t deadline = timeout_ms > 0 ? hw_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
    int w = wait_index(l, fd, &c->head, head, &c->data_seq, &c->data_waiters, deadline);
    if (w < 0)
        return 0;
    return 1; /* data, or the end the read will find */
}

void hw_shm_shutdown(struct hw_shm_link *l)
{
    if (!l)
        return;
    __atomic_store_n(&l->down, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&l->hdr->closed[l->side], 1, __ATOMIC_RELEASE);
    /* Every sleeper, ours and the peer's. */
    for (int r = 0; r < 2; r++) {
        struct shm_ring_ctl *c = &l->hdr->ring[r];
        __atomic_add_fetch(&c->data_seq, 1, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&c->space_seq, 1, __ATOMIC_SEQ_CST);
        futex_wake(&c->data_seq);
        futex_wake(&c->space_seq);
    }
}

void hw_shm_free(struct hw_shm_link *l)
{
    if (!l)
        return;
    hw_shm_shutdown(l);
    munmap(l->base, l->map_len);
    hw_free(l);
}

void hw_shm_test_indices(struct hw_shm_link *l, int r, uint64_t **head, uint64_t **tail)
{
    *head = &l->hdr->ring[r & 1].head;
    *tail = &l->hdr->ring[r & 1].tail;
}

/* ---- the hand-over socket --------------------------------------------------- */

static int wait_fd(int fd, short events, int timeout_ms)
{
    struct pollfd p = { .fd = fd, .events = events };
    int r;
    do
        r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    return r > 0 ? 0 : -1;
}

int hw_shm_listen(const char *dir, uint64_t session_id, char *path, size_t path_len, char *why,
                  size_t why_len)
{
    uint8_t rnd[8];
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (hw_random_bytes(rnd, sizeof rnd) < 0) {
        why_set(why, why_len, "%s", "no randomness");
        return -1;
    }
    uint64_t r;
    memcpy(&r, rnd, sizeof r);
    int n = snprintf(a.sun_path, sizeof a.sun_path, "%s/hipwire-%016llx-%016llx.sock", dir,
                     (unsigned long long)session_id, (unsigned long long)r);
    if (n < 0 || (size_t)n >= sizeof a.sun_path || (size_t)n >= path_len) {
        why_set(why, why_len, "%s: the directory's name is too long", dir);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        why_set(why, why_len, "socket: %s", strerror(errno));
        return -1;
    }
    /* Only the nonce matters for who gets the region; the mode keeps other
     * users from even trying. */
    mode_t old = umask(077);
    int b = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (b < 0 || listen(fd, 1) < 0) {
        why_set(why, why_len, "cannot listen in %s", dir);
        if (b == 0)
            unlink(a.sun_path);
        close(fd);
        return -1;
    }
    memcpy(path, a.sun_path, (size_t)n + 1);
    return fd;
}

int hw_shm_give_fd(int lfd, int memfd, const uint8_t nonce[HW_SHM_NONCE_LEN], int timeout_ms,
                   int *keep, char *why, size_t why_len)
{
    uint8_t got[HW_SHM_NONCE_LEN];
    size_t have = 0;
    uint64_t end = hw_now_ms() + (uint64_t)timeout_ms;
    if (wait_fd(lfd, POLLIN, timeout_ms) < 0) {
        why_set(why, why_len, "%s", "the client did not connect to the hand-over socket");
        return -1;
    }
    int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (c < 0) {
        why_set(why, why_len, "accept: %s", strerror(errno));
        return -1;
    }
    while (have < sizeof got) {
        uint64_t now = hw_now_ms();
        if (now >= end || wait_fd(c, POLLIN, (int)(end - now)) < 0)
            break;
        ssize_t r = recv(c, got + have, sizeof got - have, 0);
        if (r <= 0 && !(r < 0 && (errno == EINTR || errno == EAGAIN)))
            break;
        if (r > 0)
            have += (size_t)r;
    }
    if (have != sizeof got || !hw_ct_equal(got, nonce, sizeof got)) {
        why_set(why, why_len, "%s", "the hand-over connection did not present the nonce");
        close(c);
        return -1;
    }
    char one = 'M';
    struct iovec iov = { &one, 1 };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf, .msg_controllen = sizeof cm.buf
    };
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(h), &memfd, sizeof(int));
    ssize_t s = sendmsg(c, &m, MSG_NOSIGNAL);
    if (s != 1) {
        why_set(why, why_len, "sendmsg: %s", strerror(errno));
        close(c);
        return -1;
    }
    if (keep)
        *keep = c;
    else
        close(c);
    return 0;
}

int hw_shm_dial(const char *path, const uint8_t nonce[HW_SHM_NONCE_LEN], char *why, size_t why_len)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) {
        why_set(why, why_len, "%s", "the socket's name is too long");
        return -1;
    }
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        why_set(why, why_len, "socket: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        why_set(why, why_len, "cannot reach the worker's hand-over socket (%s)", strerror(errno));
        close(fd);
        return -1;
    }
    if (send(fd, nonce, HW_SHM_NONCE_LEN, MSG_NOSIGNAL) != HW_SHM_NONCE_LEN) {
        why_set(why, why_len, "send: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int hw_shm_take_fd(int sock, int timeout_ms, char *why, size_t why_len)
{
    char one = 0;
    struct iovec iov = { &one, 1 };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf, .msg_controllen = sizeof cm.buf
    };
    if (wait_fd(sock, POLLIN, timeout_ms) < 0) {
        why_set(why, why_len, "%s", "no region from the worker");
        return -1;
    }
    ssize_t r;
    do
        r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    struct cmsghdr *h = r == 1 ? CMSG_FIRSTHDR(&m) : NULL;
    int fd = -1;
    if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
        h->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&fd, CMSG_DATA(h), sizeof fd);
    if (fd < 0 || one != 'M' || (m.msg_flags & MSG_CTRUNC)) {
        if (fd >= 0)
            close(fd);
        why_set(why, why_len, "%s", "the worker sent no region");
        return -1;
    }
    return fd;
}

/* ---- host regions (zero-copy host memory) ------------------------------------ */

void *hw_shm_region_create(uint64_t size, int *memfd, uint64_t *len_out)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t pg = page > 0 ? (uint64_t)page : 4096u;
    if (size == 0 || size > UINT64_MAX - pg || size > (uint64_t)SIZE_MAX / 2)
        return NULL;
    uint64_t len = (size + pg - 1) / pg * pg;
    int fd = memfd_create("hipwire-host", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return NULL;
    /* Sealed before the client sees it: neither side can shrink it under
     * the other's mapping (a SIGBUS in the worker). */
    if (ftruncate(fd, (off_t)len) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    *memfd = fd;
    *len_out = len;
    return p;
}

void *hw_shm_region_map(int memfd, uint64_t len)
{
    struct stat st;
    int seals = fcntl(memfd, F_GET_SEALS);
    if (len == 0 || len > (uint64_t)SIZE_MAX || fstat(memfd, &st) < 0 ||
        (uint64_t)st.st_size != len || seals < 0 ||
        (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
        return NULL;
    void *p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    return p == MAP_FAILED ? NULL : p;
}

int hw_shm_send_region(int sock, int memfd, uint64_t id)
{
    uint8_t word[8];
    memcpy(word, &id, sizeof word);
    struct iovec iov = { word, sizeof word };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf, .msg_controllen = sizeof cm.buf
    };
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(h), &memfd, sizeof(int));
    /* Never waits: a client that does not read its socket only loses the
     * region, it cannot hold the session's dispatch thread. */
    ssize_t r;
    do
        r = sendmsg(sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (r < 0 && errno == EINTR);
    return r == (ssize_t)sizeof word ? 0 : -1;
}

int hw_shm_recv_region(int sock, int timeout_ms, uint64_t *id)
{
    uint8_t word[8];
    struct iovec iov = { word, sizeof word };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf, .msg_controllen = sizeof cm.buf
    };
    if (wait_fd(sock, POLLIN, timeout_ms) < 0)
        return -1;
    ssize_t r;
    do
        r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    while (r < 0 && errno == EINTR);
    struct cmsghdr *h = r > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    int fd = -1;
    if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
        h->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&fd, CMSG_DATA(h), sizeof fd);
    if (fd < 0 || r != (ssize_t)sizeof word || (m.msg_flags & MSG_CTRUNC)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    memcpy(id, word, sizeof word);
    return fd;
}
