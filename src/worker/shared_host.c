/*
 * shared_host.c - see shared_host.h.
 */
#include "shared_host.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_time.h"
#include "leak_check.h"
#include "prewarm.h"
#include "session_main.h"

/* ---- in the device process ------------------------------------------------ */

struct member {
    struct member *next;
    struct host *host;
    struct session *s;
    pthread_t thread;
    int fd;
    uint64_t sid;
};

struct host {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a member finished */
    struct member *live;    /* sessions running */
    struct member *done;    /* finished, to be joined */
    int sock;               /* to the supervisor */
};

/* "This connection is over" (its session id): the supervisor's count of
 * connections. A datagram of the pair, whole or not at all. */
static void tell_done(struct host *h, uint64_t sid)
{
    ssize_t r;
    while ((r = send(h->sock, &sid, sizeof sid, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    (void)r; /* the supervisor is gone: nobody counts any more */
}

static void *member_main(void *arg)
{
    struct member *m = arg;
    struct host *h = m->host;
    session_serve_thread(m->s, m->fd, m->sid);
    /* The session has freed what it held (its slot too) before the
     * supervisor hears of it, so a queued client finds the place free. */
    tell_done(h, m->sid);
    pthread_mutex_lock(&h->lock);
    for (struct member **p = &h->live; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            break;
        }
    m->next = h->done;
    h->done = m;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* Joins the threads of finished sessions and frees what is left of them. */
static void join_done(struct host *h)
{
    pthread_mutex_lock(&h->lock);
    struct member *m = h->done;
    h->done = NULL;
    pthread_mutex_unlock(&h->lock);
    while (m) {
        struct member *next = m->next;
        pthread_join(m->thread, NULL);
        session_free(m->s);
        free(m);
        m = next;
    }
}

static void admit(struct host *h, const struct worker_config *cfg, struct status_table *table,
                  int fd, uint64_t sid)
{
    struct member *m = hw_calloc(1, sizeof *m);
    struct session *s = m ? session_new(cfg, table) : NULL;
    if (!s) {
        hw_error("device process: out of memory for a new session; closing its connection");
        goto fail;
    }
    m->host = h;
    m->s = s;
    m->fd = fd;
    m->sid = sid;
    pthread_mutex_lock(&h->lock);
    m->next = h->live;
    h->live = m;
    int err = pthread_create(&m->thread, NULL, member_main, m);
    if (err != 0) {
        h->live = m->next;
        pthread_mutex_unlock(&h->lock);
        hw_error("device process: cannot start a session thread: %s", strerror(err));
        goto fail;
    }
    pthread_mutex_unlock(&h->lock);
    return;
fail:
    session_free(s);
    free(m);
    close(fd);
    tell_done(h, sid);
}

/* Ends the handshakes past --handshake-timeout; whether one is pending. */
static int check_deadlines(struct host *h)
{
    uint64_t now = hw_now_ms();
    int pending = 0;
    pthread_mutex_lock(&h->lock);
    for (struct member *m = h->live; m; m = m->next)
        pending |= session_check_deadline(m->s, now);
    pthread_mutex_unlock(&h->lock);
    return pending;
}

static void stop_all(struct host *h)
{
    pthread_mutex_lock(&h->lock);
    int n = 0;
    for (struct member *m = h->live; m; m = m->next, n++)
        session_stop(m->s);
    if (n)
        hw_info("device process: stopping: ending %d session(s)", n);
    while (h->live) {
        struct timespec until = hw_deadline_after_ns(CLOCK_MONOTONIC, 50 * 1000000u);
        pthread_cond_timedwait(&h->changed, &h->lock, &until);
        /* one that arrived while stopping was not told yet */
        for (struct member *m = h->live; m; m = m->next)
            session_stop(m->s);
    }
    pthread_mutex_unlock(&h->lock);
    join_done(h);
}

int shared_host_main(int sock, const struct worker_config *cfg, struct status_table *table)
{
    /* SIGTERM is read here, by the main thread, and never interrupts a
     * session's thread (they inherit the mask). */
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, NULL);
    int sfd = signalfd(-1, &term, SFD_CLOEXEC | SFD_NONBLOCK);
    const struct hw_backend_ops *ops = NULL;
    struct hw_backend *be = NULL;
    uint64_t t0 = hw_now_ms();
    int rc = session_device_hold(cfg, &ops, &be);
    if (rc != HW_OK) {
        hw_error("device process: backend %s has no usable device (status %d)", cfg->backend, rc);
        if (sfd >= 0)
            close(sfd);
        return 1;
    }
    struct host h = { .live = NULL, .done = NULL, .sock = sock };
    pthread_mutex_init(&h.lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h.changed, &ca);
    pthread_condattr_destroy(&ca);
    if (prewarm_ready(sock) == 0) {
        hw_info("device process %d: devices open in %llu ms (backend %s); sessions run here as "
                "threads (--isolation shared)",
                (int)getpid(), (unsigned long long)(hw_now_ms() - t0), ops->name);
        for (;;) {
            join_done(&h);
            int pending = check_deadlines(&h);
            pthread_mutex_lock(&h.lock);
            int any = h.live != NULL;
            pthread_mutex_unlock(&h.lock);
            struct pollfd p[2] = { { .fd = sock, .events = POLLIN },
                                   { .fd = sfd, .events = POLLIN } };
            int n = poll(p, sfd >= 0 ? 2 : 1, pending ? 20 : any ? 50 : 200);
            if (n > 0 && sfd >= 0 && (p[1].revents & POLLIN)) {
                struct signalfd_siginfo si;
                ssize_t r = read(sfd, &si, sizeof si);
                (void)r;
                break;
            }
            if (n > 0 && p[0].revents) {
                uint64_t sid;
                int fd;
                if (prewarm_receive(sock, &sid, &fd) < 0)
                    break; /* the supervisor closed its end: it is stopping */
                admit(&h, cfg, table, fd, sid);
            }
        }
    }
    stop_all(&h);
    session_device_release(ops, be);
    pthread_cond_destroy(&h.changed);
    pthread_mutex_destroy(&h.lock);
    if (sfd >= 0)
        close(sfd);
    return 0;
}

/* ---- in the supervisor ----------------------------------------------------- */

struct shared_host {
    pid_t pid; /* 0: none */
    int sock;  /* the supervisor's end of the pair */
    int ready; /* its devices are open */
    uint64_t not_before_ms, started_ms;
};

struct shared_host *shared_host_create(void)
{
    struct shared_host *h = hw_calloc(1, sizeof *h);
    if (h)
        h->sock = -1;
    return h;
}

void shared_host_fill(struct shared_host *h, const struct worker_config *cfg,
                      struct status_table *table, void (*in_child)(void *arg), void *arg)
{
    if (!h || h->pid || hw_now_ms() < h->not_before_ms)
        return;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        hw_warn("device process: socketpair: %s", strerror(errno));
        h->not_before_ms = hw_now_ms() + 1000;
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        if (in_child)
            in_child(arg);
        signal(SIGINT, SIG_IGN); /* a terminal ^C goes to the supervisor */
        signal(SIGTERM, SIG_DFL);
        /* as a session process (supervisor.c): no sibling may read it */
        prctl(PR_SET_DUMPABLE, 0);
        _exit(leak_check_session_exit(shared_host_main(sv[1], cfg, table)));
    }
    close(sv[1]);
    if (pid < 0) {
        hw_warn("device process: fork: %s", strerror(errno));
        close(sv[0]);
        h->not_before_ms = hw_now_ms() + 1000;
        return;
    }
    h->pid = pid;
    h->sock = sv[0];
    h->ready = 0;
    h->started_ms = hw_now_ms();
}

int shared_host_pollfd(struct shared_host *h, struct pollfd *pfd)
{
    if (!h || !h->pid || h->sock < 0)
        return 0;
    *pfd = (struct pollfd){ .fd = h->sock, .events = POLLIN };
    return 1;
}

void shared_host_poll(struct shared_host *h, const struct pollfd *pfd,
                      void (*done)(void *arg, uint64_t session_id), void *arg)
{
    if (!h || h->sock < 0 || pfd->fd != h->sock || !(pfd->revents & POLLIN))
        return; /* a hang-up shows when the process is reaped */
    for (;;) {
        uint64_t msg;
        ssize_t r = recv(h->sock, &msg, sizeof msg, MSG_DONTWAIT);
        if (r == 1 && !h->ready) {
            h->ready = 1;
            hw_info("device process %d ready after %llu ms", (int)h->pid,
                    (unsigned long long)(hw_now_ms() - h->started_ms));
        } else if (r == (ssize_t)sizeof msg) {
            done(arg, msg);
        } else {
            break;
        }
    }
}

int shared_host_ready(const struct shared_host *h)
{
    return h && h->pid && h->ready;
}

int shared_host_alive(const struct shared_host *h)
{
    return h && h->pid;
}

int shared_host_handoff(struct shared_host *h, int cfd, uint64_t session_id, pid_t *pid)
{
    if (!shared_host_ready(h))
        return -1;
    if (prewarm_send(h->sock, cfd, session_id) < 0) {
        hw_debug("device process %d did not take a connection: %s", (int)h->pid, strerror(errno));
        return -1;
    }
    *pid = h->pid;
    return 0;
}

int shared_host_reaped(struct shared_host *h, pid_t pid, int status)
{
    if (!h || !h->pid || h->pid != pid)
        return 0;
    if (!h->ready) {
        hw_warn("device process %d %s before its devices were open; retrying in 1 s", (int)pid,
                WIFSIGNALED(status) ? "was killed" : "exited");
        h->not_before_ms = hw_now_ms() + 1000;
    }
    close(h->sock);
    h->sock = -1;
    h->pid = 0;
    h->ready = 0;
    return 1;
}

void shared_host_stop(struct shared_host *h, int sig)
{
    if (h && h->pid)
        kill(h->pid, sig);
}

void shared_host_destroy(struct shared_host *h)
{
    if (!h)
        return;
    if (h->pid) {
        kill(h->pid, SIGKILL);
        waitpid(h->pid, NULL, 0);
    }
    if (h->sock >= 0)
        close(h->sock);
    free(h);
}
