/*
 * raw_tcp.c - the reference hipwire is compared against: the same loopback
 * TCP transport with the same socket options, and nothing else.
 *
 * The server is a forked process, like a hip-worker session, so the two
 * sides compete for the CPUs the same way. Every request is one 24-byte frame
 * (the size of a HIPR header):
 *   ECHO  - the frame comes straight back: the floor for any round trip;
 *   PUSH  - `size` payload bytes follow the frame; the server reads them into
 *           its buffer and answers with one frame (an H2D copy's analogue);
 *   PULL  - the server answers with `size` bytes from its buffer (D2H).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define FRAME_SIZE  24
#define FRAME_MAGIC 0x42574152u /* "RAWB" */

enum frame_kind { FRAME_ECHO = 1, FRAME_PUSH = 2, FRAME_PULL = 3 };

struct frame {
    uint32_t magic;
    uint32_t kind;
    uint64_t size;
    uint64_t seq;
};

_Static_assert(sizeof(struct frame) == FRAME_SIZE, "a raw frame is as big as a HIPR header");

void raw_tune(int fd)
{
    /* Exactly what hipwire's hw_tcp_tune() sets on both ends. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int buf = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
}

static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = recv(fd, p, n, 0);
        if (r > 0) {
            p += r;
            n -= (size_t)r;
        } else if (r == 0 || errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

static int writev_full(int fd, struct iovec *iov, int iovcnt)
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

static int write_full(int fd, const void *buf, size_t n)
{
    struct iovec iov = { (void *)buf, n };
    return writev_full(fd, &iov, 1);
}

/* Grows the server's payload buffer and touches it, so page faults happen in
 * the untimed warm-up and not in a timed transfer. */
static int ensure_buffer(uint8_t **buf, size_t *cap, uint64_t need)
{
    if (need <= *cap)
        return 0;
    uint8_t *grown = realloc(*buf, (size_t)need);
    if (!grown)
        return -1;
    memset(grown + *cap, 0x5a, (size_t)need - *cap);
    *buf = grown;
    *cap = (size_t)need;
    return 0;
}

static void serve_connection(int fd)
{
    uint8_t *buf = NULL;
    size_t cap = 0;
    struct frame f;
    while (read_full(fd, &f, sizeof f) == 0 && f.magic == FRAME_MAGIC) {
        int rc = -1;
        switch (f.kind) {
        case FRAME_ECHO: rc = write_full(fd, &f, sizeof f); break;
        case FRAME_PUSH:
            if (ensure_buffer(&buf, &cap, f.size) == 0 && read_full(fd, buf, (size_t)f.size) == 0)
                rc = write_full(fd, &f, sizeof f);
            break;
        case FRAME_PULL:
            if (ensure_buffer(&buf, &cap, f.size) == 0)
                rc = write_full(fd, buf, (size_t)f.size);
            break;
        }
        if (rc < 0)
            break;
    }
    free(buf);
}

int raw_server_start(struct raw_server *srv)
{
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0)
        return -1;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof sa;
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 4) < 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
        close(lfd);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(lfd);
        return -1;
    }
    if (pid == 0) {
        /* One connection at a time until the parent stops us. */
        for (;;) {
            int fd = accept(lfd, NULL, NULL);
            if (fd < 0) {
                if (errno == EINTR)
                    continue;
                _exit(1);
            }
            raw_tune(fd);
            serve_connection(fd);
            close(fd);
        }
    }
    close(lfd);
    srv->pid = (int)pid;
    srv->port = ntohs(sa.sin_port);
    return 0;
}

void raw_server_stop(struct raw_server *srv)
{
    if (srv->pid <= 0)
        return;
    kill((pid_t)srv->pid, SIGTERM);
    waitpid((pid_t)srv->pid, NULL, 0);
    srv->pid = 0;
}

int raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons((uint16_t)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return -1;
    }
    raw_tune(fd);
    return fd;
}

int raw_echo(int fd)
{
    static uint64_t seq;
    struct frame f = { FRAME_MAGIC, FRAME_ECHO, 0, ++seq }, back;
    if (write_full(fd, &f, sizeof f) < 0 || read_full(fd, &back, sizeof back) < 0)
        return -1;
    return back.seq == f.seq ? 0 : -1;
}

int raw_push(int fd, const void *buf, size_t size)
{
    struct frame f = { FRAME_MAGIC, FRAME_PUSH, size, 0 }, ack;
    /* Header and payload in one sendmsg, as hipwire sends a large H2D copy. */
    struct iovec iov[2] = { { &f, sizeof f }, { (void *)buf, size } };
    if (writev_full(fd, iov, 2) < 0 || read_full(fd, &ack, sizeof ack) < 0)
        return -1;
    return ack.kind == FRAME_PUSH ? 0 : -1;
}

int raw_pull(int fd, void *buf, size_t size)
{
    struct frame f = { FRAME_MAGIC, FRAME_PULL, size, 0 };
    if (write_full(fd, &f, sizeof f) < 0 || read_full(fd, buf, size) < 0)
        return -1;
    return 0;
}
