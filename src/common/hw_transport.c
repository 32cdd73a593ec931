/* hw_transport.c - see hw_transport.h. */
#include "hw_transport.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "hw_net.h"
#include "hw_shm.h"
#include "hw_time.h"

void hw_tx_init_plain(struct hw_transport *t, int fd)
{
    memset(t, 0, sizeof *t);
    t->fd = fd;
}

int hw_tx_is_tls(const struct hw_transport *t)
{
    return t->ssl != NULL;
}

int hw_tx_is_shm(const struct hw_transport *t)
{
    return t->shm != NULL;
}

void hw_tx_attach_shm(struct hw_transport *t, struct hw_shm_link *l)
{
    t->shm = l;
}

const char *hw_tx_kind(const struct hw_transport *t)
{
    return t->shm ? "shared memory" : t->ssl ? "TLS" : "plain TCP";
}

int hw_tx_wait_budget(const struct hw_transport *t)
{
    if (!t->deadline_ms)
        return t->timeout_ms;
    uint64_t now = hw_now_ms();
    if (now >= t->deadline_ms) {
        errno = ETIMEDOUT;
        return -1;
    }
    uint64_t left = t->deadline_ms - now;
    if (t->timeout_ms > 0 && (uint64_t)t->timeout_ms < left)
        return t->timeout_ms;
    return left > INT_MAX ? INT_MAX : (int)left;
}

ssize_t hw_tx_recv(struct hw_transport *t, void *buf, size_t n)
{
#if HW_HAVE_SHM
    if (t->shm) {
        int budget = hw_tx_wait_budget(t);
        if (budget < 0)
            return -1;
        return hw_shm_recv(t->shm, t->fd, buf, n, budget);
    }
#endif
    if (t->ssl)
        return hw_tls_recv(t, buf, n);
    for (;;) {
        if (t->deadline_ms) {
            int budget = hw_tx_wait_budget(t);
            if (budget < 0)
                return -1;
            hw_sock_set_rcvtimeo(t->fd, budget);
        }
        ssize_t r = hw_sock_recv(t->fd, buf, n);
        if (r >= 0) {
            if (r == 0)
                errno = 0;
            return r;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            errno = ETIMEDOUT; /* SO_RCVTIMEO passed */
        return -1;
    }
}

int hw_tx_read_full(struct hw_transport *t, void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = hw_tx_recv(t, p, n);
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int hw_tx_discard(struct hw_transport *t, uint64_t n)
{
    uint8_t sink[16384];
    while (n > 0) {
        size_t chunk = n < sizeof sink ? (size_t)n : sizeof sink;
        if (hw_tx_read_full(t, sink, chunk) < 0)
            return -1;
        n -= chunk;
    }
    return 0;
}

int hw_tx_writev_full(struct hw_transport *t, struct iovec *iov, int iovcnt)
{
#if HW_HAVE_SHM
    if (t->shm)
        return hw_shm_writev(t->shm, t->fd, iov, iovcnt);
#endif
    if (t->ssl)
        return hw_tls_writev(t, iov, iovcnt);
    int r = hw_writev_full(t->fd, iov, iovcnt);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        errno = ETIMEDOUT; /* SO_SNDTIMEO: the send timeout passed */
    return r;
}

int hw_tx_write_full(struct hw_transport *t, const void *buf, size_t n)
{
    struct iovec iov = { (void *)buf, n };
    return hw_tx_writev_full(t, &iov, 1);
}

int hw_tx_poll_readable(struct hw_transport *t, int timeout_ms)
{
#if HW_HAVE_SHM
    if (t->shm)
        return hw_shm_poll_readable(t->shm, t->fd, timeout_ms);
#endif
    if (t->ssl && hw_tls_pending(t) > 0)
        return 1;
    return hw_sock_poll_in(t->fd, timeout_ms);
}

void hw_tx_set_recv_timeout(struct hw_transport *t, int ms)
{
    t->timeout_ms = ms;
    if (!t->ssl)
        hw_sock_set_rcvtimeo(t->fd, ms);
}

void hw_tx_set_send_timeout(struct hw_transport *t, int ms)
{
    t->send_timeout_ms = ms;
    if (!t->ssl)
        hw_sock_set_sndtimeo(t->fd, ms);
}

void hw_tx_set_deadline(struct hw_transport *t, int ms)
{
    t->deadline_ms = ms > 0 ? hw_now_ms() + (uint64_t)ms : 0;
    /* Reads outside hw_tx_recv (a peek at the first byte) are bounded too. */
    if (!t->ssl)
        hw_sock_set_rcvtimeo(t->fd, ms > 0 ? ms : t->timeout_ms);
}

int hw_tx_channel_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN])
{
    memset(out, 0, HW_TLS_CHANNEL_BINDING_LEN);
    return t->ssl ? hw_tls_binding(t, out) : -1;
}

void hw_tx_shutdown(struct hw_transport *t)
{
#if HW_HAVE_SHM
    if (t->shm)
        hw_shm_shutdown(t->shm);
#endif
    if (t->fd >= 0)
        hw_sock_shutdown(t->fd);
}

void hw_tx_close(struct hw_transport *t)
{
#if HW_HAVE_SHM
    hw_shm_free(t->shm);
#endif
    t->shm = NULL;
    if (t->ssl)
        hw_tls_free(t);
    if (t->fd >= 0)
        hw_sock_close(t->fd);
    t->fd = -1;
}

int hw_tx_move(struct hw_transport *dst, struct hw_transport *src)
{
    *dst = *src;
    /* A mutex may not be copied: the destination gets a fresh one. */
    if (src->ssl) {
        pthread_mutex_destroy(&src->lock);
        if (pthread_mutex_init(&dst->lock, NULL) != 0) {
            hw_tx_init_plain(src, -1);
            hw_tx_close(dst);
            return -1;
        }
    }
    hw_tx_init_plain(src, -1);
    return 0;
}
