/*
 * fault_relay - a TCP relay that injects network faults, for tests.
 *
 *   fault_relay [--bind ADDR] [--listen PORT] [--target HOST:PORT] [--port-file PATH]
 *               [--control PATH] [--latency-ms MS] [--latency-us US] [--rate BYTES_PER_S]
 *               [--cut-c2w N] [--cut-w2c N] [--stall-c2w N] [--stall-w2c N]
 *               [--cut-after-ms MS] [--cut-mode rst|fin] [--stats] [-- CMD [ARGS...]]
 *
 * It sits between a client and a hip-worker ("c2w" is client to worker,
 * "w2c" the way back) and forwards bytes exactly, except where told not to:
 * one-way latency, a bandwidth limit, a cut after exactly N more bytes in one
 * direction or MS after a connection opens, a stall (nothing forwarded, both
 * connections left open), and an outage ("down": every connection is cut and
 * new ones are reset until "up"). The same faults can be set while it runs
 * through a line protocol on a Unix socket (--control); docs/testing.md
 * lists the commands and tests/harness/relay_ctl.h is a client for them.
 *
 * The target defaults to TF_WORKER_HOST (its first entry) and TF_WORKER_PORT.
 * With CMD, the relay runs CMD with TF_WORKER_HOST/TF_WORKER_PORT pointing
 * at itself and HIPWIRE_RELAY_CONTROL naming its control socket, and exits
 * with CMD's status; without, it runs until SIGTERM or SIGINT.
 *
 * One thread, one poll loop; the relay reads no more than a bounded amount
 * ahead of what it has delivered, so a slow or stalled side pushes back on
 * the other through TCP, as a slow network would.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hw_net.h"
#include "hw_time.h"

#define CHUNK_MAX (64 * 1024)
#define QUEUE_MAX (4u << 20) /* bytes read ahead of delivery, per direction */
#define CTL_LINE  256
#define MAX_CTL   8
#define BURST_NS  20000000ull /* a rate limit allows bursts of 20 ms worth */

enum { C2W = 0, W2C = 1 };
static const char *const dir_name[2] = { "c2w", "w2c" };

struct chunk {
    struct chunk *next;
    uint64_t due_ns; /* not written before this (latency) */
    size_t len, off;
    uint8_t data[];
};

/* One direction of one link: bytes read from `from`, queued, written to `to`. */
struct flow {
    int from, to;
    struct chunk *head, *tail;
    size_t queued;
    int eof; /* `from` said EOF; shut `to` once the queue is empty */
    int shut;
    int cut_when_drained; /* the cut budget ran out here: cut once delivered */
    double tokens;        /* rate limit bucket, bytes */
    uint64_t refill_ns;
};

struct link {
    struct link *next;
    int cfd, wfd;
    struct flow f[2];
    uint64_t cut_at_ns; /* 0 = no timed cut */
    int dead;
};

struct ctl_client {
    int fd;
    char line[CTL_LINE];
    size_t len;
};

struct relay {
    int lfd, ctl_lfd;
    const char *target_host;
    int target_port;
    struct link *links;
    struct ctl_client ctl[MAX_CTL];

    /* Faults. A budget of -1 is disarmed. */
    uint64_t latency_ns;
    uint64_t rate; /* bytes/s per direction per link; 0 = unlimited */
    int64_t cut_budget[2];
    int64_t stall_budget[2];
    int hold[2];          /* stop reading in this direction */
    int freeze[2];        /* stop writing in this direction */
    int64_t cut_after_ms; /* next accepted link is cut this long after; -1 none */
    int cut_rst;          /* cut with RST (1) or FIN (0) */
    int down;

    /* Counters for `stats`. */
    uint64_t accepted, refused, cuts, bytes[2];
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void close_abruptly(int fd, int rst)
{
    if (fd < 0)
        return;
    if (rst) {
        struct linger lg = { 1, 0 }; /* close() sends RST */
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    } else {
        shutdown(fd, SHUT_RDWR);
    }
    close(fd);
}

static void flow_free(struct flow *f)
{
    while (f->head) {
        struct chunk *c = f->head;
        f->head = c->next;
        free(c);
    }
    f->tail = NULL;
    f->queued = 0;
}

/* Ends a link: rst = 1 resets both peers, 0 closes both with FIN. */
static void link_kill(struct link *l, int rst)
{
    if (l->dead)
        return;
    close_abruptly(l->cfd, rst);
    close_abruptly(l->wfd, rst);
    l->cfd = l->wfd = -1;
    flow_free(&l->f[C2W]);
    flow_free(&l->f[W2C]);
    l->dead = 1;
}

static void link_cut(struct relay *r, struct link *l)
{
    if (!l->dead) {
        r->cuts++;
        link_kill(l, r->cut_rst);
    }
}

static void reap_links(struct relay *r)
{
    for (struct link **pp = &r->links; *pp;) {
        struct link *l = *pp;
        if (l->dead) {
            *pp = l->next;
            free(l);
        } else {
            pp = &l->next;
        }
    }
}

static void accept_link(struct relay *r)
{
    int cfd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC);
    if (cfd < 0)
        return;
    r->accepted++;
    if (r->down) {
        r->refused++;
        close_abruptly(cfd, 1);
        return;
    }
    int wfd = -1;
    if (hw_tcp_connect(r->target_host, r->target_port, 5000, &wfd) < 0) {
        /* The worker is not there: the client sees its connection reset. */
        r->refused++;
        close_abruptly(cfd, 1);
        return;
    }
    struct link *l = calloc(1, sizeof *l);
    if (!l) {
        close_abruptly(cfd, 1);
        close_abruptly(wfd, 1);
        return;
    }
    int one = 1;
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    set_nonblock(cfd);
    set_nonblock(wfd);
    l->cfd = cfd;
    l->wfd = wfd;
    l->f[C2W].from = cfd;
    l->f[C2W].to = wfd;
    l->f[W2C].from = wfd;
    l->f[W2C].to = cfd;
    uint64_t now = hw_now_ns();
    for (int d = 0; d < 2; d++)
        l->f[d].refill_ns = now;
    if (r->cut_after_ms >= 0) {
        l->cut_at_ns = now + (uint64_t)r->cut_after_ms * 1000000u;
        r->cut_after_ms = -1;
    }
    l->next = r->links;
    r->links = l;
}

/* How many bytes the budgets let this direction read now (0: none). */
static size_t read_allowance(const struct relay *r, const struct link *l, int d)
{
    const struct flow *f = &l->f[d];
    if (r->hold[d] || f->eof || f->cut_when_drained || f->queued >= QUEUE_MAX)
        return 0;
    size_t n = CHUNK_MAX;
    if (r->cut_budget[d] >= 0 && (uint64_t)r->cut_budget[d] < n)
        n = (size_t)r->cut_budget[d];
    if (r->stall_budget[d] >= 0 && (uint64_t)r->stall_budget[d] < n)
        n = (size_t)r->stall_budget[d];
    return n;
}

/* Reads what the budgets allow; returns -1 when the link must be dropped. */
static int flow_read(struct relay *r, struct link *l, int d)
{
    struct flow *f = &l->f[d];
    size_t n = read_allowance(r, l, d);
    if (n == 0)
        return 0;
    struct chunk *c = malloc(sizeof *c + n);
    if (!c)
        return -1;
    ssize_t got = recv(f->from, c->data, n, 0);
    if (got < 0) {
        free(c);
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        return -1; /* reset by the peer: reset the other side too */
    }
    if (got == 0) {
        free(c);
        f->eof = 1;
        return 0;
    }
    c->next = NULL;
    c->len = (size_t)got;
    c->off = 0;
    c->due_ns = hw_now_ns() + r->latency_ns;
    if (f->tail)
        f->tail->next = c;
    else
        f->head = c;
    f->tail = c;
    f->queued += c->len;
    if (r->cut_budget[d] >= 0) {
        r->cut_budget[d] -= got;
        if (r->cut_budget[d] == 0) {
            r->cut_budget[d] = -1; /* one-shot: a reconnection passes */
            f->cut_when_drained = 1;
        }
    }
    if (r->stall_budget[d] >= 0) {
        r->stall_budget[d] -= got;
        if (r->stall_budget[d] == 0) {
            r->stall_budget[d] = -1;
            r->hold[d] = 1;
        }
    }
    return 0;
}

static void refill(const struct relay *r, struct flow *f, uint64_t now)
{
    if (!r->rate)
        return;
    double cap = (double)r->rate * (double)BURST_NS / 1e9;
    if (cap < 1024)
        cap = 1024;
    f->tokens += (double)r->rate * (double)(now - f->refill_ns) / 1e9;
    if (f->tokens > cap)
        f->tokens = cap;
    f->refill_ns = now;
}

/* Writes what is due; -1 when the link must be dropped. */
static int flow_write(struct relay *r, struct link *l, int d, uint64_t now)
{
    struct flow *f = &l->f[d];
    if (r->freeze[d])
        return 0;
    while (f->head && f->head->due_ns <= now) {
        struct chunk *c = f->head;
        size_t n = c->len - c->off;
        if (r->rate) {
            refill(r, f, now);
            if (f->tokens < 1)
                return 0;
            if ((double)n > f->tokens)
                n = (size_t)f->tokens;
        }
        ssize_t w = send(f->to, c->data + c->off, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return 0;
            return -1;
        }
        c->off += (size_t)w;
        f->queued -= (size_t)w;
        r->bytes[d] += (uint64_t)w;
        if (r->rate)
            f->tokens -= (double)w;
        if (c->off < c->len)
            return 0;
        f->head = c->next;
        if (!f->head)
            f->tail = NULL;
        free(c);
    }
    if (!f->head) {
        if (f->cut_when_drained) {
            link_cut(r, l);
            return 0;
        }
        if (f->eof && !f->shut) {
            shutdown(f->to, SHUT_WR);
            f->shut = 1;
        }
    }
    return 0;
}

/* The earliest time something becomes writable or a timer fires. */
static uint64_t next_deadline(const struct relay *r, uint64_t now)
{
    uint64_t best = now + 1000000000ull;
    for (const struct link *l = r->links; l; l = l->next) {
        if (l->dead)
            continue;
        if (l->cut_at_ns && l->cut_at_ns < best)
            best = l->cut_at_ns;
        for (int d = 0; d < 2; d++) {
            const struct flow *f = &l->f[d];
            if (!f->head || r->freeze[d])
                continue;
            uint64_t t = f->head->due_ns;
            if (r->rate && f->tokens < 1) {
                uint64_t wait = (uint64_t)(1e9 / (double)r->rate) + 1000000u;
                if (now + wait > t)
                    t = now + wait;
            }
            if (t < best)
                best = t;
        }
    }
    return best;
}

/* ---- control socket ------------------------------------------------------- */

static int parse_dir(const char *s, int *d)
{
    if (!strcmp(s, "c2w"))
        *d = C2W;
    else if (!strcmp(s, "w2c"))
        *d = W2C;
    else if (!strcmp(s, "both"))
        *d = 2;
    else
        return -1;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int live_links(const struct relay *r)
{
    int n = 0;
    for (const struct link *l = r->links; l; l = l->next)
        n += !l->dead;
    return n;
}

/* The counters, as the `stats` command and --stats print them. */
static void format_stats(const struct relay *r, char *out, size_t cap)
{
    snprintf(out, cap, "accepted=%llu live=%d refused=%llu cuts=%llu c2w=%llu w2c=%llu down=%d",
             (unsigned long long)r->accepted, live_links(r), (unsigned long long)r->refused,
             (unsigned long long)r->cuts, (unsigned long long)r->bytes[C2W],
             (unsigned long long)r->bytes[W2C], r->down);
}

static void cut_all(struct relay *r)
{
    for (struct link *l = r->links; l; l = l->next)
        link_cut(r, l);
}

/* Runs one control command; writes the reply line (no newline) to out. */
static void control_command(struct relay *r, char *line, char *out, size_t cap)
{
    char *save = NULL;
    char *cmd = strtok_r(line, " \t", &save);
    char *a1 = strtok_r(NULL, " \t", &save);
    char *a2 = strtok_r(NULL, " \t", &save);
    uint64_t v = 0;
    int d = 2;

    if (!cmd) {
        snprintf(out, cap, "err empty command");
    } else if (!strcmp(cmd, "stats")) {
        snprintf(out, cap, "ok ");
        format_stats(r, out + strlen(out), cap - strlen(out));
    } else if (!strcmp(cmd, "cut") && !a1) {
        int n = live_links(r);
        cut_all(r);
        snprintf(out, cap, "ok cut %d", n);
    } else if ((!strcmp(cmd, "cut") || !strcmp(cmd, "stall")) && a1 && a2) {
        if (parse_dir(a1, &d) < 0 || d == 2 || parse_u64(a2, &v) < 0 || v > INT64_MAX) {
            snprintf(out, cap, "err usage: %s c2w|w2c BYTES", cmd);
            return;
        }
        if (!strcmp(cmd, "cut"))
            r->cut_budget[d] = (int64_t)v;
        else
            r->stall_budget[d] = (int64_t)v;
        if (v == 0) { /* "after 0 more bytes" means now */
            if (!strcmp(cmd, "cut")) {
                r->cut_budget[d] = -1;
                cut_all(r);
            } else {
                r->stall_budget[d] = -1;
                r->hold[d] = 1;
            }
        }
        snprintf(out, cap, "ok %s %s after %llu bytes", cmd, dir_name[d], (unsigned long long)v);
    } else if (!strcmp(cmd, "cut")) {
        snprintf(out, cap, "err usage: cut [c2w|w2c BYTES]");
    } else if (!strcmp(cmd, "stall")) {
        if (a1 && parse_dir(a1, &d) < 0) {
            snprintf(out, cap, "err usage: stall [c2w|w2c|both] [BYTES]");
            return;
        }
        for (int i = 0; i < 2; i++)
            if (d == 2 || d == i)
                r->hold[i] = r->freeze[i] = 1;
        snprintf(out, cap, "ok stalled %s", d == 2 ? "both" : dir_name[d]);
    } else if (!strcmp(cmd, "resume")) {
        for (int i = 0; i < 2; i++) {
            r->hold[i] = r->freeze[i] = 0;
            r->stall_budget[i] = -1;
        }
        snprintf(out, cap, "ok resumed");
    } else if (!strcmp(cmd, "down")) {
        int n = live_links(r);
        r->down = 1;
        cut_all(r);
        snprintf(out, cap, "ok down, cut %d", n);
    } else if (!strcmp(cmd, "up")) {
        r->down = 0;
        snprintf(out, cap, "ok up");
    } else if (!strcmp(cmd, "latency") && a1 && parse_u64(a1, &v) == 0 && v <= 600000) {
        r->latency_ns = v * 1000000u;
        snprintf(out, cap, "ok latency %llu ms", (unsigned long long)v);
    } else if (!strcmp(cmd, "rate") && a1 && parse_u64(a1, &v) == 0) {
        r->rate = v;
        snprintf(out, cap, "ok rate %llu bytes/s", (unsigned long long)v);
    } else if (!strcmp(cmd, "cut-after-ms") && a1 && parse_u64(a1, &v) == 0 && v <= INT64_MAX) {
        r->cut_after_ms = (int64_t)v;
        snprintf(out, cap, "ok the next connection is cut %llu ms after it opens",
                 (unsigned long long)v);
    } else {
        snprintf(out, cap,
                 "err unknown command '%s' (stats, cut, stall, resume, down, up, "
                 "latency, rate, cut-after-ms)",
                 cmd);
    }
}

static void control_read(struct relay *r, struct ctl_client *cc)
{
    ssize_t n = recv(cc->fd, cc->line + cc->len, sizeof cc->line - 1 - cc->len, 0);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        close(cc->fd);
        cc->fd = -1;
        return;
    }
    cc->len += (size_t)n;
    for (;;) {
        char *nl = memchr(cc->line, '\n', cc->len);
        if (!nl) {
            if (cc->len == sizeof cc->line - 1) { /* a line too long: drop the client */
                close(cc->fd);
                cc->fd = -1;
            }
            return;
        }
        *nl = '\0';
        if (nl > cc->line && nl[-1] == '\r')
            nl[-1] = '\0';
        char reply[CTL_LINE + 64];
        control_command(r, cc->line, reply, sizeof reply - 1);
        strcat(reply, "\n");
        /* Replies are short; the client reads each before the next command. */
        if (hw_write_full(cc->fd, reply, strlen(reply)) < 0) {
            close(cc->fd);
            cc->fd = -1;
            return;
        }
        size_t used = (size_t)(nl - cc->line) + 1;
        memmove(cc->line, cc->line + used, cc->len - used);
        cc->len -= used;
    }
}

static int control_listen(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "fault_relay: control path too long: %s\n", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 8) < 0) {
        fprintf(stderr, "fault_relay: control socket %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* ---- the loop --------------------------------------------------------------- */

static void poll_once(struct relay *r, int max_wait_ms)
{
    size_t nl = 0;
    for (struct link *l = r->links; l; l = l->next)
        nl++;
    size_t cap = 2 + MAX_CTL + 2 * nl;
    struct pollfd *pf = calloc(cap, sizeof *pf);
    struct link **owner = calloc(cap, sizeof *owner);
    if (!pf || !owner) {
        free(pf);
        free(owner);
        return;
    }
    size_t n = 0;
    uint64_t now = hw_now_ns();
    pf[n++] = (struct pollfd){ .fd = r->lfd, .events = POLLIN };
    pf[n++] = (struct pollfd){ .fd = r->ctl_lfd, .events = r->ctl_lfd >= 0 ? POLLIN : 0 };
    for (int i = 0; i < MAX_CTL; i++)
        pf[n++] = (struct pollfd){ .fd = r->ctl[i].fd, .events = POLLIN };
    size_t first_link = n;
    for (struct link *l = r->links; l; l = l->next) {
        /* pf[k] is the client side, pf[k+1] the worker side. */
        short ev[2] = { 0, 0 };
        for (int d = 0; d < 2; d++) {
            struct flow *f = &l->f[d];
            if (read_allowance(r, l, d))
                ev[d == C2W ? 0 : 1] |= POLLIN;
            refill(r, f, now);
            if (f->head && !r->freeze[d] && f->head->due_ns <= now && (!r->rate || f->tokens >= 1))
                ev[d == C2W ? 1 : 0] |= POLLOUT;
        }
        /* A side with nothing to do is left out: a stalled link must not
         * spin on a hang-up it is not reading yet. */
        owner[n] = l;
        pf[n++] = (struct pollfd){ .fd = ev[0] ? l->cfd : -1, .events = ev[0] };
        owner[n] = l;
        pf[n++] = (struct pollfd){ .fd = ev[1] ? l->wfd : -1, .events = ev[1] };
    }
    /* To the nanosecond: a delay of a fraction of a millisecond (a 1 ms
     * round trip) must not round up to whole milliseconds per chunk. */
    uint64_t deadline = next_deadline(r, now);
    uint64_t wait_ns = deadline > now ? deadline - now : 0;
    if (wait_ns > (uint64_t)max_wait_ms * 1000000u)
        wait_ns = (uint64_t)max_wait_ms * 1000000u;
    struct timespec wait = { (time_t)(wait_ns / 1000000000u), (long)(wait_ns % 1000000000u) };
    int ready = ppoll(pf, (nfds_t)n, &wait, NULL);
    now = hw_now_ns();

    if (ready > 0 && (pf[0].revents & POLLIN))
        accept_link(r);
    if (ready > 0 && r->ctl_lfd >= 0 && (pf[1].revents & POLLIN)) {
        int fd = accept4(r->ctl_lfd, NULL, NULL, SOCK_CLOEXEC);
        int placed = 0;
        for (int i = 0; fd >= 0 && i < MAX_CTL && !placed; i++)
            if (r->ctl[i].fd < 0) {
                r->ctl[i].fd = fd;
                r->ctl[i].len = 0;
                placed = 1;
            }
        if (fd >= 0 && !placed)
            close(fd);
    }
    for (int i = 0; ready > 0 && i < MAX_CTL; i++)
        if (r->ctl[i].fd >= 0 && pf[2 + i].revents)
            control_read(r, &r->ctl[i]);

    for (size_t k = first_link; k < n; k += 2) {
        struct link *l = owner[k];
        if (l->dead)
            continue;
        short crev = pf[k].revents, wrev = pf[k + 1].revents;
        int bad = 0;
        /* Deliver first, then read: a cut budget is then exact per read. */
        if (flow_write(r, l, C2W, now) < 0 || (!l->dead && flow_write(r, l, W2C, now) < 0))
            bad = 1;
        if (!bad && !l->dead && (crev & (POLLIN | POLLHUP | POLLERR)) && flow_read(r, l, C2W) < 0)
            bad = 1;
        if (!bad && !l->dead && (wrev & (POLLIN | POLLHUP | POLLERR)) && flow_read(r, l, W2C) < 0)
            bad = 1;
        if (!bad && !l->dead &&
            (flow_write(r, l, C2W, now) < 0 || (!l->dead && flow_write(r, l, W2C, now) < 0)))
            bad = 1;
        if (bad)
            link_kill(l, 1); /* one side failed: the other sees a reset, as it would */
        else if (!l->dead && l->cut_at_ns && now >= l->cut_at_ns)
            link_cut(r, l);
        else if (!l->dead && l->f[C2W].shut && l->f[W2C].shut)
            link_kill(l, 0); /* both sides finished */
    }
    reap_links(r);
    free(pf);
    free(owner);
}

static int write_port_file(const char *path, int port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "%d\n", port);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

/* "host:port", "[v6]:port", or a bare host (port from TF_WORKER_PORT). */
static int parse_target(char *spec, const char **host, int *port)
{
    char *colon = strrchr(spec, ':');
    if (spec[0] == '[') {
        char *close_br = strchr(spec, ']');
        if (!close_br)
            return -1;
        *close_br = '\0';
        *host = spec + 1;
        colon = close_br[1] == ':' ? close_br + 1 : NULL;
    } else {
        *host = spec;
    }
    if (colon) {
        *colon = '\0';
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (*end || p < 1 || p > 65535)
            return -1;
        *port = (int)p;
    }
    return **host ? 0 : -1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: fault_relay [options] [-- CMD [ARGS...]]\n"
               "  --bind ADDR          address to listen on (default 127.0.0.1)\n"
               "  --listen PORT        port to listen on (default 0: any free one)\n"
               "  --port-file PATH     write the port listened on to PATH\n"
               "  --target HOST:PORT   where to relay (default $TF_WORKER_HOST:$TF_WORKER_PORT)\n"
               "  --control PATH       Unix socket for run-time commands\n"
               "  --latency-ms MS      one-way delay added in each direction\n"
               "  --latency-us US      the same in microseconds\n"
               "  --stats              print the `stats` line on stderr at exit\n"
               "  --rate BYTES         bandwidth limit per direction, bytes/s\n"
               "  --cut-c2w N          cut after exactly N bytes client->worker (once)\n"
               "  --cut-w2c N          cut after exactly N bytes worker->client (once)\n"
               "  --stall-c2w N        stop forwarding client->worker after N bytes\n"
               "  --stall-w2c N        stop forwarding worker->client after N bytes\n"
               "  --cut-after-ms MS    cut the first connection MS after it opens\n"
               "  --cut-mode rst|fin   how a cut closes both sides (default rst)\n");
}

static int run_relay(struct relay *r, pid_t child, int *child_status)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    while (!stop_requested) {
        poll_once(r, child > 0 ? 50 : 1000);
        if (child > 0 && waitpid(child, child_status, WNOHANG) == child)
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct relay r;
    memset(&r, 0, sizeof r);
    r.ctl_lfd = -1;
    r.cut_budget[0] = r.cut_budget[1] = -1;
    r.stall_budget[0] = r.stall_budget[1] = -1;
    r.cut_after_ms = -1;
    r.cut_rst = 1;
    for (int i = 0; i < MAX_CTL; i++)
        r.ctl[i].fd = -1;

    const char *bind_addr = "127.0.0.1", *port_file = NULL, *control = NULL;
    char target[512] = "";
    int listen_port = 0;
    enum {
        O_BIND = 1,
        O_LISTEN,
        O_PORTFILE,
        O_TARGET,
        O_CONTROL,
        O_LAT,
        O_RATE,
        O_CUTC,
        O_CUTW,
        O_STALLC,
        O_STALLW,
        O_CUTMS,
        O_MODE,
        O_LATUS,
        O_STATS,
        O_HELP
    };
    static const struct option opts[] = {
        { "bind", required_argument, NULL, O_BIND },
        { "listen", required_argument, NULL, O_LISTEN },
        { "port-file", required_argument, NULL, O_PORTFILE },
        { "target", required_argument, NULL, O_TARGET },
        { "control", required_argument, NULL, O_CONTROL },
        { "latency-ms", required_argument, NULL, O_LAT },
        { "rate", required_argument, NULL, O_RATE },
        { "cut-c2w", required_argument, NULL, O_CUTC },
        { "cut-w2c", required_argument, NULL, O_CUTW },
        { "stall-c2w", required_argument, NULL, O_STALLC },
        { "stall-w2c", required_argument, NULL, O_STALLW },
        { "cut-after-ms", required_argument, NULL, O_CUTMS },
        { "cut-mode", required_argument, NULL, O_MODE },
        { "latency-us", required_argument, NULL, O_LATUS },
        { "stats", no_argument, NULL, O_STATS },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    /* Delays of tens of microseconds (a 1 ms round trip, split in chunks)
     * must not each pick up the default 50 us of timer slack. */
    prctl(PR_SET_TIMERSLACK, 1UL);
    int print_stats = 0;
    int c;
    uint64_t v;
    /* '+': stop at the first non-option, so CMD's own options are left alone. */
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case O_BIND: bind_addr = optarg; break;
        case O_LISTEN:
            if (parse_u64(optarg, &v) < 0 || v > 65535)
                goto bad;
            listen_port = (int)v;
            break;
        case O_PORTFILE: port_file = optarg; break;
        case O_TARGET: snprintf(target, sizeof target, "%s", optarg); break;
        case O_CONTROL: control = optarg; break;
        case O_LAT:
            if (parse_u64(optarg, &v) < 0 || v > 600000)
                goto bad;
            r.latency_ns = v * 1000000u;
            break;
        case O_LATUS:
            if (parse_u64(optarg, &v) < 0 || v > 600000000)
                goto bad;
            r.latency_ns = v * 1000u;
            break;
        case O_STATS: print_stats = 1; break;
        case O_RATE:
            if (parse_u64(optarg, &r.rate) < 0)
                goto bad;
            break;
        case O_CUTC:
        case O_CUTW:
        case O_STALLC:
        case O_STALLW:
            if (parse_u64(optarg, &v) < 0 || v == 0 || v > INT64_MAX)
                goto bad;
            if (c == O_CUTC || c == O_CUTW)
                r.cut_budget[c == O_CUTC ? C2W : W2C] = (int64_t)v;
            else
                r.stall_budget[c == O_STALLC ? C2W : W2C] = (int64_t)v;
            break;
        case O_CUTMS:
            if (parse_u64(optarg, &v) < 0 || v > INT64_MAX)
                goto bad;
            r.cut_after_ms = (int64_t)v;
            break;
        case O_MODE:
            if (strcmp(optarg, "rst") && strcmp(optarg, "fin"))
                goto bad;
            r.cut_rst = !strcmp(optarg, "rst");
            break;
        case O_HELP:
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    char **cmd = NULL;
    if (optind < argc) {
        if (optind > 0 && !strcmp(argv[optind - 1], "--"))
            cmd = &argv[optind];
        else {
            fprintf(stderr, "fault_relay: unexpected argument '%s' (a command follows --)\n",
                    argv[optind]);
            return 2;
        }
    }

    if (!target[0]) {
        const char *h = getenv("TF_WORKER_HOST"), *p = getenv("TF_WORKER_PORT");
        snprintf(target, sizeof target, "%.*s", (int)strcspn(h && *h ? h : "127.0.0.1", ","),
                 h && *h ? h : "127.0.0.1");
        r.target_port = p && *p ? atoi(p) : 18515;
    }
    if (parse_target(target, &r.target_host, &r.target_port) < 0 || r.target_port <= 0) {
        fprintf(stderr, "fault_relay: bad target '%s' (HOST:PORT)\n", target);
        return 2;
    }

    char ctl_dir[] = "/tmp/hipwire-relay-XXXXXX";
    char ctl_path[sizeof ctl_dir + 8] = "";
    if (!control && cmd) {
        if (!mkdtemp(ctl_dir)) {
            perror("fault_relay: mkdtemp");
            return 1;
        }
        snprintf(ctl_path, sizeof ctl_path, "%s/ctl", ctl_dir);
        control = ctl_path;
    }
    int port = 0, err = hw_tcp_listen(bind_addr, listen_port, &r.lfd, &port);
    if (err < 0) {
        fprintf(stderr, "fault_relay: cannot listen on %s:%d: %s\n", bind_addr, listen_port,
                strerror(-err));
        return 1;
    }
    set_nonblock(r.lfd);
    if (control && (r.ctl_lfd = control_listen(control)) < 0)
        return 1;
    if (port_file && write_port_file(port_file, port) < 0) {
        fprintf(stderr, "fault_relay: cannot write %s: %s\n", port_file, strerror(errno));
        return 1;
    }

    int rc = 0, child_status = 0;
    pid_t child = -1;
    if (cmd) {
        child = fork();
        if (child < 0) {
            perror("fault_relay: fork");
            return 1;
        }
        if (child == 0) {
            char ps[16];
            snprintf(ps, sizeof ps, "%d", port);
            setenv("TF_WORKER_HOST", "127.0.0.1", 1);
            setenv("TF_WORKER_PORT", ps, 1);
            setenv("HIPWIRE_RELAY_CONTROL", control, 1);
            close(r.lfd);
            close(r.ctl_lfd);
            execvp(cmd[0], cmd);
            perror("fault_relay: exec");
            _exit(127);
        }
    }
    int child_done = run_relay(&r, child, &child_status);
    if (child > 0) {
        if (!child_done) {
            kill(child, SIGTERM);
            waitpid(child, &child_status, 0);
        }
        if (WIFSIGNALED(child_status)) {
            fprintf(stderr, "fault_relay: %s died from signal %d\n", cmd[0],
                    WTERMSIG(child_status));
            rc = 1;
        } else {
            rc = WEXITSTATUS(child_status);
        }
    }
    if (print_stats) {
        char line[256];
        format_stats(&r, line, sizeof line);
        fprintf(stderr, "fault_relay: stats %s\n", line);
    }
    for (struct link *l = r.links; l; l = l->next)
        link_kill(l, 0);
    reap_links(&r);
    for (int i = 0; i < MAX_CTL; i++)
        if (r.ctl[i].fd >= 0)
            close(r.ctl[i].fd);
    close(r.lfd);
    if (r.ctl_lfd >= 0) {
        close(r.ctl_lfd);
        unlink(control);
    }
    if (ctl_path[0])
        rmdir(ctl_dir);
    return rc;
bad:
    fprintf(stderr, "fault_relay: bad value '%s' for --%s\n", optarg, opts[c - 1].name);
    return 2;
}
