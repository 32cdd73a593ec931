/*
 * prewarm.c - see prewarm.h.
 */
#include "prewarm.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_time.h"
#include "leak_check.h"
#include "session_main.h"

struct warm {
    pid_t pid;              /* 0: an empty place */
    int sock;               /* the supervisor's end of the pair */
    int ready;              /* its device is open */
    uint64_t not_before_ms; /* respawn no earlier (after a failed start) */
    uint64_t started_ms;
};

struct prewarm_pool {
    int n;
    struct warm w[];
};

int prewarm_ready(int sock)
{
    char c = 'R';
    ssize_t r;
    while ((r = send(sock, &c, 1, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    return r == 1 ? 0 : -1;
}

int prewarm_receive(int sock, uint64_t *session_id, int *fd)
{
    uint64_t sid;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = { &sid, sizeof sid };
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf
    };
    ssize_t r;
    while ((r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *c = r == (ssize_t)sizeof sid ? CMSG_FIRSTHDR(&m) : NULL;
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    memcpy(fd, CMSG_DATA(c), sizeof(int));
    *session_id = sid;
    return 0;
}

struct prewarm_pool *prewarm_pool_create(int n)
{
    struct prewarm_pool *p = hw_calloc(1, sizeof *p + (size_t)n * sizeof(struct warm));
    if (!p)
        return NULL;
    p->n = n;
    for (int i = 0; i < n; i++)
        p->w[i].sock = -1;
    return p;
}

void prewarm_pool_close_fds(struct prewarm_pool *p)
{
    for (int i = 0; p && i < p->n; i++)
        if (p->w[i].sock >= 0)
            close(p->w[i].sock);
}

static void spawn(struct prewarm_pool *p, struct warm *w, const struct worker_config *cfg,
                  struct status_table *table, int lfd)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        hw_warn("prewarm: socketpair: %s", strerror(errno));
        w->not_before_ms = hw_now_ms() + 1000;
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(lfd);
        close(sv[0]);
        prewarm_pool_close_fds(p);
        signal(SIGINT, SIG_IGN);  /* as any session process (supervisor.c) */
        signal(SIGTERM, SIG_DFL); /* not the supervisor's handler: nothing to drain yet */
        prctl(PR_SET_DUMPABLE, 0);
        _exit(leak_check_session_exit(session_warm_main(sv[1], cfg, table)));
    }
    close(sv[1]);
    if (pid < 0) {
        hw_warn("prewarm: fork: %s", strerror(errno));
        close(sv[0]);
        w->not_before_ms = hw_now_ms() + 1000;
        return;
    }
    w->pid = pid;
    w->sock = sv[0];
    w->ready = 0;
    w->started_ms = hw_now_ms();
}

void prewarm_pool_fill(struct prewarm_pool *p, const struct worker_config *cfg,
                       struct status_table *table, int lfd, int connections)
{
    if (!p)
        return;
    /* Device contexts are the expensive part (~500 MiB each with CUDA): the
     * pool never takes the connections' processes (sessions, and those that
     * will be: in their handshake or queued) and itself past
     * --max-sessions, since a warm process beyond that could only wait. */
    int room = cfg->max_sessions - connections;
    for (int i = 0; i < p->n; i++)
        room -= p->w[i].pid != 0;
    uint64_t now = hw_now_ms();
    for (int i = 0; i < p->n && room > 0; i++)
        if (!p->w[i].pid && now >= p->w[i].not_before_ms) {
            spawn(p, &p->w[i], cfg, table, lfd);
            room -= p->w[i].pid != 0;
        }
}

int prewarm_pool_pollfds(struct prewarm_pool *p, struct pollfd *pfd, int max)
{
    int k = 0;
    for (int i = 0; p && i < p->n && k < max; i++)
        if (p->w[i].pid && !p->w[i].ready && p->w[i].sock >= 0)
            pfd[k++] = (struct pollfd){ .fd = p->w[i].sock, .events = POLLIN };
    return k;
}

static int count_ready(const struct prewarm_pool *p)
{
    int n = 0;
    for (int i = 0; i < p->n; i++)
        n += p->w[i].pid && p->w[i].ready;
    return n;
}

void prewarm_pool_poll(struct prewarm_pool *p, const struct pollfd *pfd, int n)
{
    for (int k = 0; p && k < n; k++) {
        if (!(pfd[k].revents & POLLIN))
            continue; /* a hang-up shows when the process is reaped */
        for (int i = 0; i < p->n; i++) {
            struct warm *w = &p->w[i];
            char c;
            if (w->sock != pfd[k].fd || w->ready)
                continue;
            if (recv(w->sock, &c, 1, MSG_DONTWAIT) == 1) {
                w->ready = 1;
                hw_info("prewarm: session process %d ready after %llu ms (%d of %d ready)",
                        (int)w->pid, (unsigned long long)(hw_now_ms() - w->started_ms),
                        count_ready(p), p->n);
            }
        }
    }
}

int prewarm_send(int sock, int cfd, uint64_t session_id)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { &session_id, sizeof session_id };
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf
    };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &cfd, sizeof(int));
    ssize_t r;
    while ((r = sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    return r == (ssize_t)sizeof session_id ? 0 : -1;
}

int prewarm_pool_handoff(struct prewarm_pool *p, int cfd, uint64_t session_id, pid_t *pid)
{
    for (int i = 0; p && i < p->n; i++) {
        struct warm *w = &p->w[i];
        if (!w->pid || !w->ready)
            continue;
        int r = prewarm_send(w->sock, cfd, session_id);
        int err = errno;
        close(w->sock);
        w->sock = -1;
        pid_t got = w->pid;
        w->pid = 0;
        w->ready = 0;
        if (r < 0) {
            /* It died meanwhile; the reaper will see it as a session. */
            hw_debug("prewarm: process %d did not take a connection: %s", (int)got, strerror(err));
            continue;
        }
        *pid = got;
        return 0;
    }
    return -1;
}

int prewarm_pool_reaped(struct prewarm_pool *p, pid_t pid, int status)
{
    for (int i = 0; p && i < p->n; i++) {
        struct warm *w = &p->w[i];
        if (w->pid != pid)
            continue;
        if (!w->ready) {
            hw_warn("prewarm: session process %d %s before its device was ready; retrying in "
                    "1 s",
                    (int)pid, WIFSIGNALED(status) ? "was killed" : "exited");
            w->not_before_ms = hw_now_ms() + 1000;
        }
        close(w->sock);
        w->sock = -1;
        w->pid = 0;
        w->ready = 0;
        return 1;
    }
    return 0;
}

void prewarm_pool_destroy(struct prewarm_pool *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        if (p->w[i].pid) {
            close(p->w[i].sock); /* a ready one sees the end and exits */
            kill(p->w[i].pid, SIGTERM);
        }
    for (int i = 0; i < p->n; i++)
        if (p->w[i].pid) {
            int st;
            for (int t = 0; t < 100 && waitpid(p->w[i].pid, &st, WNOHANG) == 0; t++)
                usleep(20 * 1000);
            if (waitpid(p->w[i].pid, &st, WNOHANG) == 0) {
                kill(p->w[i].pid, SIGKILL);
                waitpid(p->w[i].pid, &st, 0);
            }
        }
    free(p);
}
