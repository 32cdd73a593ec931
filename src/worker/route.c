/* route.c - see route.h. */
#include "route.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hipr.h"
#include "hw_log.h"

#define ROUTE_MSG_LEN 12 /* u64 session id, u32 request id */

/* "\0hipwire-<supervisor pid>-<session id>": abstract, so nothing is left
 * on disk by a session that dies. Every session process's parent is the
 * supervisor, so both ends derive the same name. */
static socklen_t route_addr(uint64_t session_id, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "hipwire-%ld-%016llx",
                     (long)getppid(), (unsigned long long)session_id);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int route_listen(uint64_t session_id, int *fd_out)
{
    struct sockaddr_un a;
    socklen_t len = route_addr(session_id, &a);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, len) < 0 || listen(fd, 4) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    *fd_out = fd;
    return 0;
}

int route_send(uint64_t session_id, pid_t session_pid, int conn_fd, uint32_t request_id)
{
    struct sockaddr_un a;
    socklen_t len = route_addr(session_id, &a);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, len) < 0) {
        int e = errno == ECONNREFUSED ? ENOENT : errno;
        close(fd);
        errno = e;
        return -1;
    }
    /* Abstract names have no permissions: anyone may have bound this one
     * after the session's process died. The kernel's word on who listens is
     * checked against the process the supervisor's table holds the session
     * for, before the client's socket (and its data) goes anywhere. */
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cred.uid != getuid() ||
        cred.pid != session_pid) {
        hw_warn("session %016llx: its route is held by pid %ld uid %ld, not the session's "
                "process %ld; not handing the connection over",
                (unsigned long long)session_id, (long)cred.pid, (long)cred.uid, (long)session_pid);
        close(fd);
        errno = EPERM;
        return -1;
    }
    uint8_t msg[ROUTE_MSG_LEN];
    hipr_put_u64(msg, session_id);
    hipr_put_u32(msg + 8, request_id);
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { msg, sizeof msg };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf
    };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &conn_fd, sizeof conn_fd);
    ssize_t r;
    do
        r = sendmsg(fd, &mh, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    int e = errno;
    if (r == (ssize_t)sizeof msg) {
        /* The session's process checks who sent this by our pid's parent in
         * /proc (route_accept): stay until it has closed its end (bounded),
         * or an exit racing its check would refuse a real resume. */
        struct timeval tv = { 2, 0 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        char sink;
        for (;;) {
            ssize_t n = recv(fd, &sink, 1, 0);
            if (n == 0 || (n < 0 && errno != EINTR))
                break;
        }
    }
    close(fd);
    errno = e;
    return r == (ssize_t)sizeof msg ? 0 : -1;
}

/* The parent of process pid, from /proc (the field after the last ')'). */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    long ppid;
    if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
        return -1;
    return (pid_t)ppid;
}

int route_accept(int listen_fd, uint64_t session_id, int *conn_fd_out, uint32_t *request_id_out)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return -1;
    /* Only a sibling (another process of this worker, same user) may hand
     * us a connection; it has already read the client's SESSION_ROUTE. */
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cred.uid != getuid() ||
        parent_of(cred.pid) != getppid()) {
        hw_warn("session %016llx: refusing a connection handed over by pid %ld (not a process "
                "of this worker)",
                (unsigned long long)session_id, (long)cred.pid);
        close(fd);
        errno = EPERM;
        return -1;
    }
    struct timeval tv = { 2, 0 }; /* the sender wrote before connecting returned */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    uint8_t msg[ROUTE_MSG_LEN];
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = { msg, sizeof msg };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf
    };
    ssize_t r;
    do
        r = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    close(fd);
    struct cmsghdr *cm = r > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
    int conn = -1;
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
        cm->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&conn, CMSG_DATA(cm), sizeof conn);
    if (r != (ssize_t)sizeof msg || conn < 0 || hipr_get_u64(msg) != session_id) {
        if (conn >= 0)
            close(conn);
        errno = EPROTO;
        return -1;
    }
    *conn_fd_out = conn;
    *request_id_out = hipr_get_u32(msg + 8);
    return 0;
}
