/*
 * hw_shm.h - the same-host transport: HIPR's byte stream through two
 * single-producer single-consumer byte rings in a shared file mapping
 * (docs/protocol.md, "Shared-memory transport").
 *
 * The region is a sealed memfd (it can neither shrink nor grow, so a peer
 * cannot make the other side's accesses fault). The worker creates it after
 * TRANSPORT_SHM OFFER and hands it over a Unix socket it creates in
 * --shm-dir under a random name, only to a connection that first sends the
 * 32-byte nonce the worker gave over the authenticated TCP link; the socket's
 * name is removed as soon as the fd is handed over. Client and worker need
 * only see the same directory (a shared emptyDir, hostPath or /dev/shm).
 *
 * The layout is computed from the ring size each side agreed over TCP;
 * nothing geometric is read back from the region. The only shared words a
 * side trusts are the peer's ring index, which is checked on every use (a
 * producer never more than ring_size ahead of its consumer): a peer that
 * corrupts them gets EPROTO and a clear log line, never an access outside
 * the mapping.
 *
 * Wake-ups: a side that finds its ring empty (or full) spins briefly, then
 * announces itself in a waiter count and sleeps on a sequence word with
 * FUTEX_WAIT; the other side calls FUTEX_WAKE only when someone waits, so
 * two busy sides make no system call. Sleeps are cut into slices in which
 * the TCP connection, kept open for this, is checked: a peer process that
 * died (its socket closed by the kernel) or shut the link is noticed within
 * a slice.
 *
 * POSIX only (Linux futexes); the Windows client never offers it.
 */
#ifndef HW_SHM_H
#define HW_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#ifndef _WIN32
#include <sys/uio.h>
#endif

#include "hw_os.h" /* struct iovec on Windows */

#if !defined(_WIN32)
#define HW_HAVE_SHM 1
#else
#define HW_HAVE_SHM 0
#endif

#define HW_SHM_NONCE_LEN    32
#define HW_SHM_HDR_SIZE     4096u
#define HW_SHM_RING_DEFAULT (UINT64_C(8) << 20)
#define HW_SHM_RING_MIN     (UINT64_C(64) << 10)
#define HW_SHM_RING_MAX     (UINT64_C(256) << 20)
#define HW_SHM_BOOT_ID_LEN  16
#define HW_SHM_SIDE_WORKER  0
#define HW_SHM_SIDE_CLIENT  1

struct hw_shm_link; /* one side's view of a mapped region */

/* The region's size for rings of ring_size bytes each (a power of two
 * between HW_SHM_RING_MIN and HW_SHM_RING_MAX), or 0 when invalid. */
uint64_t hw_shm_region_size(uint64_t ring_size);

/* This host's boot id (/proc/sys/kernel/random/boot_id, shared by every
 * container of a host): 0, or -1 when unreadable. */
int hw_shm_boot_id(uint8_t out[HW_SHM_BOOT_ID_LEN]);

/* Worker: creates and maps a sealed region with rings of ring_size bytes,
 * its header holding nonce (fresh, written to nonce). *memfd: its fd, for
 * hw_shm_give_fd. NULL with a reason in why. */
struct hw_shm_link *hw_shm_create(uint64_t ring_size, uint8_t nonce[HW_SHM_NONCE_LEN], int *memfd,
                                  char *why, size_t why_len);
/* Client: maps the region memfd refers to (the fd stays the caller's);
 * fails unless its size is that of ring_size and its header holds nonce. */
struct hw_shm_link *hw_shm_map(int memfd, uint64_t ring_size, const uint8_t nonce[HW_SHM_NONCE_LEN],
                               char *why, size_t why_len);
/* Says the side is gone (the peer's waits end) and unmaps; the caller's TCP
 * fd is not touched. NULL is fine. */
void hw_shm_free(struct hw_shm_link *l);

/* The hand-over socket. Worker: a listening Unix socket at a fresh random
 * name in dir (path gets it): the fd, or -1 with why. */
int hw_shm_listen(const char *dir, uint64_t session_id, char *path, size_t path_len, char *why,
                  size_t why_len);
/* Worker: accepts one connection on lfd within timeout_ms, reads the
 * nonce from it and, when it matches, sends memfd. 0, or -1 with why.
 * keep non-NULL: the connection stays open and *keep gets it (host regions
 * travel on it later); NULL: it is closed. */
int hw_shm_give_fd(int lfd, int memfd, const uint8_t nonce[HW_SHM_NONCE_LEN], int timeout_ms,
                   int *keep, char *why, size_t why_len);
/* Client: connects to path and sends the nonce: the socket, or -1. */
int hw_shm_dial(const char *path, const uint8_t nonce[HW_SHM_NONCE_LEN], char *why, size_t why_len);
/* Client: the fd the worker sent on sock, within timeout_ms, or -1. */
int hw_shm_take_fd(int sock, int timeout_ms, char *why, size_t why_len);

/* Host regions (docs/protocol.md, "Shared host memory"): client memory from
 * hipHostMalloc that the worker maps too, so copies from and to it need no
 * trip through the rings. */
/* Worker: a sealed memfd of size bytes rounded up to a page, mapped shared:
 * the mapping, its fd in *memfd and its length in *len; NULL on failure. */
void *hw_shm_region_create(uint64_t size, int *memfd, uint64_t *len);
/* Client: maps memfd, which must be exactly len bytes and sealed against
 * shrinking and growing; NULL otherwise. */
void *hw_shm_region_map(int memfd, uint64_t len);
/* Worker: sends memfd on the kept hand-over connection with id as the
 * message, without waiting. 0, or -1. */
int hw_shm_send_region(int sock, int memfd, uint64_t id);
/* Client: the next region fd on sock within timeout_ms (its id in *id),
 * or -1. */
int hw_shm_recv_region(int sock, int timeout_ms, uint64_t *id);

/* Byte stream operations, with hw_transport's meanings; fd is the session's
 * TCP connection, watched while waiting (-1: none). timeout_ms: 0 waits
 * forever, else ETIMEDOUT after it. */
ssize_t hw_shm_recv(struct hw_shm_link *l, int fd, void *buf, size_t n, int timeout_ms);
int hw_shm_writev(struct hw_shm_link *l, int fd, const struct iovec *iov, int iovcnt);
/* 1 when data is waiting (within timeout_ms), 0 when not, -1 on error. */
int hw_shm_poll_readable(struct hw_shm_link *l, int fd, int timeout_ms);
/* Wakes every thread of this process waiting on the region; later
 * operations fail (and the peer sees the side gone). */
void hw_shm_shutdown(struct hw_shm_link *l);
/* The ring size, for log lines. */
uint64_t hw_shm_ring_size(const struct hw_shm_link *l);

/* Test hook for hostile-peer tests: the raw shared words of ring r (0:
 * client to worker, 1: worker to client), head and tail. */
void hw_shm_test_indices(struct hw_shm_link *l, int r, uint64_t **head, uint64_t **tail);

#endif
