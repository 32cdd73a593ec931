#include "hw_net.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

void hw_tcp_tune(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* Large buffers let a bulk copy keep the pipe full on loopback and LANs. */
    int buf = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
}

int hw_tcp_listen(const char *bind_addr, int port, int *fd_out, int *port_out)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC,
                              .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
    struct addrinfo *res = NULL;
    char portstr[16];
    int fd = -1, err;

    snprintf(portstr, sizeof portstr, "%d", port);
    err = getaddrinfo(bind_addr, portstr, &hints, &res);
    if (err != 0)
        return -EADDRNOTAVAIL;
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 128) < 0)
        goto fail;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
        goto fail;
    freeaddrinfo(res);
    *port_out = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    *fd_out = fd;
    return 0;
fail:
    err = -errno;
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return err;
}

static int connect_one(const struct addrinfo *ai, int timeout_ms)
{
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        if (errno != EINPROGRESS)
            goto fail;
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        int r = poll(&pfd, 1, timeout_ms);
        if (r == 0) {
            errno = ETIMEDOUT;
            goto fail;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
            goto fail;
        if (soerr) {
            errno = soerr;
            goto fail;
        }
    }
    fcntl(fd, F_SETFL, fl);
    hw_tcp_tune(fd);
    return fd;
fail:;
    int e = errno;
    close(fd);
    return -e;
}

int hw_tcp_connect(const char *host, int port, int timeout_ms, int *fd_out)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC,
                              .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICSERV };
    struct addrinfo *res = NULL;
    char portstr[16];
    int fd = -EHOSTUNREACH;

    snprintf(portstr, sizeof portstr, "%d", port);
    int gai = getaddrinfo(host, portstr, &hints, &res);
    if (gai != 0)
        return gai == EAI_SYSTEM ? -errno : HW_NET_EAI(gai);
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = connect_one(ai, timeout_ms);
        if (fd >= 0)
            break;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return fd;
    *fd_out = fd;
    return 0;
}

const char *hw_net_strerror(int neg)
{
    if (neg > -HW_NET_EAI_BASE + 1000 || neg < -HW_NET_EAI_BASE - 1000)
        return strerror(-neg);
    int eai = neg + HW_NET_EAI_BASE;
    /* the resolver's own words say "Name or service not known", which
     * names neither; say which it is */
    if (eai == EAI_NONAME || eai == EAI_NODATA)
        return "unknown host (the name does not resolve)";
    if (eai == EAI_AGAIN)
        return "cannot resolve the host name now (temporary DNS failure)";
    return gai_strerror(eai);
}

int hw_writev_full(int fd, struct iovec *iov, int iovcnt)
{
    while (iovcnt > 0) {
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
        ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        while (iovcnt > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            iovcnt--;
        }
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

int hw_addr_is_loopback(const char *host)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC,
                              .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE };
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, "0", &hints, &res) != 0)
        return -1;
    int all = 1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *)ai->ai_addr;
            all &= (ntohl(a->sin_addr.s_addr) >> 24) == 127;
        } else if (ai->ai_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ai->ai_addr;
            all &= IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
        } else {
            all = 0;
        }
    }
    freeaddrinfo(res);
    return all;
}

void hw_peer_name(int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
            port = ntohs(a->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
            port = ntohs(a->sin6_port);
        }
    }
    snprintf(buf, len, "%s:%d", host, port);
}

void hw_tcp_user_timeout(int fd, int ms)
{
    unsigned v = ms > 0 ? (unsigned)ms : 0;
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, sizeof v);
}

ssize_t hw_sock_recv(int fd, void *buf, size_t n)
{
    return recv(fd, buf, n, 0);
}

int hw_sock_poll_in(int fd, int timeout_ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int r;
    do
        r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -1 : r > 0;
}

void hw_sock_set_rcvtimeo(int fd, int ms)
{
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

void hw_sock_set_sndtimeo(int fd, int ms)
{
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void hw_sock_shutdown(int fd)
{
    shutdown(fd, SHUT_RDWR);
}

void hw_sock_shutdown_write(int fd)
{
    shutdown(fd, SHUT_WR);
}

void hw_sock_close(int fd)
{
    close(fd);
}
