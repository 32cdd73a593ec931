/*
 * hw_net_win32.c - hw_net.h on Windows: Winsock 2, the client's part only
 * (no listening sockets). Winsock is started once, on the first resolve or
 * connect, never from DllMain (the loader lock); it is never cleaned up, as
 * the process's exit releases it. Winsock's errors become errno values so
 * the callers' messages and checks are the same as on Linux.
 */
#include "hw_net.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

static INIT_ONCE wsa_once = INIT_ONCE_STATIC_INIT;
static int wsa_err;

/* A name getaddrinfo could not resolve, in hw_net.h's resolver range (the
 * value itself is this file's: Windows' resolver codes are WSA errors). */
#define UNKNOWN_HOST HW_NET_EAI(-2)

static BOOL CALLBACK wsa_start(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
    WSADATA d;
    wsa_err = WSAStartup(MAKEWORD(2, 2), &d);
    return TRUE;
}

static int wsa_ready(void)
{
    InitOnceExecuteOnce(&wsa_once, wsa_start, NULL, NULL);
    if (wsa_err) {
        errno = ENETDOWN;
        return -1;
    }
    return 0;
}

static SOCKET sock(int fd)
{
    return (SOCKET)(intptr_t)fd;
}

/* errno for the calling thread's last Winsock error. */
static int wsa_errno(void)
{
    switch (WSAGetLastError()) {
    case WSAETIMEDOUT: return ETIMEDOUT;
    case WSAEWOULDBLOCK: return EAGAIN;
    case WSAEINTR: return EINTR;
    case WSAECONNRESET: return ECONNRESET;
    case WSAECONNABORTED: return ECONNABORTED;
    case WSAECONNREFUSED: return ECONNREFUSED;
    case WSAENETDOWN: return ENETDOWN;
    case WSAENETUNREACH: return ENETUNREACH;
    case WSAEHOSTUNREACH: return EHOSTUNREACH;
    case WSAENOTCONN: return ENOTCONN;
    case WSAESHUTDOWN: return EPIPE;
    case WSAENOBUFS: return ENOBUFS;
    case WSAEINPROGRESS: return EINPROGRESS;
    default: return EIO;
    }
}

void hw_tcp_tune(int fd)
{
    BOOL one = TRUE;
    setsockopt(sock(fd), IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof one);
    int buf = 4 << 20;
    setsockopt(sock(fd), SOL_SOCKET, SO_SNDBUF, (const char *)&buf, sizeof buf);
    setsockopt(sock(fd), SOL_SOCKET, SO_RCVBUF, (const char *)&buf, sizeof buf);
}

static int connect_one(const struct addrinfo *ai, int timeout_ms)
{
    SOCKET s = WSASocketW(ai->ai_family, SOCK_STREAM, IPPROTO_TCP, NULL, 0,
                          WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
    if (s == INVALID_SOCKET)
        return -wsa_errno();
    if ((uint64_t)s > INT_MAX) {
        closesocket(s);
        return -EMFILE;
    }
    u_long nb = 1;
    ioctlsocket(s, FIONBIO, &nb);
    int e = 0;
    if (connect(s, ai->ai_addr, (int)ai->ai_addrlen) == SOCKET_ERROR) {
        if (WSAGetLastError() != WSAEWOULDBLOCK) {
            e = wsa_errno();
            goto fail;
        }
        WSAPOLLFD p = { .fd = s, .events = POLLWRNORM };
        int r = WSAPoll(&p, 1, timeout_ms);
        if (r == 0) {
            e = ETIMEDOUT;
            goto fail;
        }
        if (r < 0) {
            e = wsa_errno();
            goto fail;
        }
        int soerr = 0, sl = sizeof soerr;
        getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&soerr, &sl);
        if (soerr || (p.revents & (POLLERR | POLLHUP))) {
            e = soerr == WSAETIMEDOUT ? ETIMEDOUT : ECONNREFUSED;
            goto fail;
        }
    }
    nb = 0;
    ioctlsocket(s, FIONBIO, &nb);
    hw_tcp_tune((int)s);
    return (int)s;
fail:
    closesocket(s);
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

    if (wsa_ready() < 0)
        return -errno;
    snprintf(portstr, sizeof portstr, "%d", port);
    if (getaddrinfo(host, portstr, &hints, &res) != 0)
        return UNKNOWN_HOST;
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

ssize_t hw_sock_recv(int fd, void *buf, size_t n)
{
    int r = recv(sock(fd), buf, n > INT_MAX ? INT_MAX : (int)n, 0);
    if (r == SOCKET_ERROR) {
        errno = wsa_errno();
        return -1;
    }
    return r;
}

int hw_writev_full(int fd, struct iovec *iov, int iovcnt)
{
    enum { MAXBUF = 64 };
    while (iovcnt > 0) {
        WSABUF b[MAXBUF];
        int nb = 0;
        for (; nb < iovcnt && nb < MAXBUF; nb++) {
            size_t len = iov[nb].iov_len;
            b[nb].buf = iov[nb].iov_base;
            b[nb].len = len > 0x40000000u ? 0x40000000u : (ULONG)len;
            if (b[nb].len != len) {
                nb++;
                break;
            }
        }
        DWORD sent = 0;
        if (WSASend(sock(fd), b, (DWORD)nb, &sent, 0, NULL, NULL) == SOCKET_ERROR) {
            errno = wsa_errno();
            if (errno == EINTR)
                continue;
            return -1;
        }
        size_t w = sent;
        while (iovcnt > 0 && w >= iov->iov_len) {
            w -= iov->iov_len;
            iov++;
            iovcnt--;
        }
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= w;
        }
    }
    return 0;
}

/* Windows has no TCP_USER_TIMEOUT: TCP_MAXRT (seconds) bounds the
 * retransmissions of unacknowledged data the same way. mingw's headers
 * lack it; 5 is its value in Windows' ws2ipdef.h. */
#ifndef TCP_MAXRT
#define TCP_MAXRT 5
#endif
void hw_tcp_user_timeout(int fd, int ms)
{
    DWORD s = ms > 0 ? (DWORD)((ms + 999) / 1000) : 0;
    setsockopt(sock(fd), IPPROTO_TCP, TCP_MAXRT, (const char *)&s, sizeof s);
}

int hw_addr_is_loopback(const char *host)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC,
                              .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE };
    struct addrinfo *res = NULL;
    if (wsa_ready() < 0 || getaddrinfo(host, "0", &hints, &res) != 0)
        return -1;
    int all = 1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *)ai->ai_addr;
            all &= (ntohl(a->sin_addr.s_addr) >> 24) == 127;
        } else if (ai->ai_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ai->ai_addr;
            all &= IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) != 0;
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
    int sl = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (getpeername(sock(fd), (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
            port = ntohs(a->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
            port = ntohs(a->sin6_port);
        }
    }
    snprintf(buf, len, "%s:%d", host, port);
}

int hw_sock_poll_in(int fd, int timeout_ms)
{
    WSAPOLLFD p = { .fd = sock(fd), .events = POLLRDNORM };
    int r = WSAPoll(&p, 1, timeout_ms);
    if (r == SOCKET_ERROR) {
        errno = wsa_errno();
        return -1;
    }
    return r > 0;
}

void hw_sock_set_rcvtimeo(int fd, int ms)
{
    DWORD v = ms > 0 ? (DWORD)ms : 0;
    setsockopt(sock(fd), SOL_SOCKET, SO_RCVTIMEO, (const char *)&v, sizeof v);
}

void hw_sock_set_sndtimeo(int fd, int ms)
{
    DWORD v = ms > 0 ? (DWORD)ms : 0;
    setsockopt(sock(fd), SOL_SOCKET, SO_SNDTIMEO, (const char *)&v, sizeof v);
}

void hw_sock_shutdown(int fd)
{
    shutdown(sock(fd), SD_BOTH);
}

void hw_sock_shutdown_write(int fd)
{
    shutdown(sock(fd), SD_SEND);
}

void hw_sock_close(int fd)
{
    closesocket(sock(fd));
}

const char *hw_net_strerror(int neg)
{
    if (neg == UNKNOWN_HOST)
        return "unknown host (the name does not resolve)";
    return hw_os_strerror(-neg);
}
