/* hw_net_stream.c - whole reads, writes and skips on a socket, the same on
 * every system: built on hw_net.h's per-system hw_sock_recv and
 * hw_writev_full (hw_net.c, hw_net_win32.c). */
#include <errno.h>

#include "hw_net.h"

int hw_read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = hw_sock_recv(fd, p, n);
        if (r > 0) {
            p += r;
            n -= (size_t)r;
        } else if (r == 0) {
            errno = 0;
            return -1;
        } else if (errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

int hw_write_full(int fd, const void *buf, size_t n)
{
    struct iovec iov = { .iov_base = (void *)buf, .iov_len = n };
    return hw_writev_full(fd, &iov, 1);
}

int hw_discard(int fd, uint64_t n)
{
    char sink[16384];
    while (n > 0) {
        size_t chunk = n < sizeof sink ? (size_t)n : sizeof sink;
        if (hw_read_full(fd, sink, chunk) < 0)
            return -1;
        n -= chunk;
    }
    return 0;
}
