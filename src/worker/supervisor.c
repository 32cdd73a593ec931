#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "admission.h"
#include "drain.h"
#include "hw_auth.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_time.h"
#include "hw_worker_list.h"
#include "leak_check.h"
#include "migrate.h"
#include "metrics_http.h"
#include "preauth.h"
#include "prewarm.h"
#include "rtc_cache.h"
#include "rtc_slots.h"
#include "session_main.h"
#include "shared_host.h"
#include "status_table.h"

/* Connections still in their handshake (not yet authenticated, no status
 * slot) are capped separately, so unauthenticated peers can never take the
 * places of sessions; each also has --handshake-timeout to finish. Beyond
 * the cap, up to HELD_MAX connections wait in the supervisor (preauth.h:
 * served fairly across sources, idle handshakes cut when others wait), the
 * rest in the listen backlog. */
#define HANDSHAKE_SLACK 16
#define HELD_MAX        1024
#define SPOKEN_AHEAD    HANDSHAKE_SLACK /* held that have spoken or are fresh */

static volatile sig_atomic_t stop_requested;

/* What the metrics thread reads of the accept loop's state. */
struct sup_view {
    const struct worker_config *cfg;
    struct status_table *table;
    int live; /* connections with a process; atomic */
};

static void read_gauges(void *arg, struct wm_gauges *g)
{
    struct sup_view *v = arg;
    uint64_t bytes = 0;
    int live = __atomic_load_n(&v->live, __ATOMIC_RELAXED);
    uint32_t sessions = status_table_count(v->table, &bytes);
    g->sessions_active = sessions;
    g->sessions_max = (uint32_t)v->cfg->max_sessions;
    uint32_t queued = admission_waiting(v->cfg->admission);
    int pending = live - (int)sessions - (int)queued;
    g->handshakes_pending = pending > 0 ? (uint32_t)pending : 0;
    g->admission_waiting = queued;
    if (v->cfg->rtc_cache) {
        struct rtc_cache_stats cs;
        rtc_cache_stats(v->cfg->rtc_cache, &cs);
        g->rtc_cache = 1;
        g->cache_hits = cs.hits;
        g->cache_misses = cs.misses;
        g->cache_evictions = cs.evictions;
        g->cache_bytes = cs.bytes;
        g->cache_entries = cs.entries;
    }
    g->rtc_slots_busy = v->cfg->rtc_slots ? rtc_slots_busy(v->cfg->rtc_slots) : 0;
    g->sessions_served = __atomic_load_n(&v->table->sessions_served, __ATOMIC_RELAXED);
    g->device_memory_bytes = bytes;
    g->mem_limit = v->cfg->mem_limit;
    g->backend = v->cfg->backend;
}

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

struct child {
    pid_t pid;    /* its process (with --isolation shared, the device process) */
    uint64_t sid; /* the session id it was given */
    struct preauth_source src;
    int in_handshake; /* no session slot or queue place yet (refreshed each round) */
};

/* What preauth_next reads of the children: handshakes per source. */
struct kids_view {
    struct child *kids;
    int nkids;
};

/* By session id: with --isolation shared every connection has the same pid. */
static void mark_handshakes(struct child *kids, int nkids, const struct status_table *table,
                            const struct admission *adm)
{
    for (int i = 0; i < nkids; i++)
        kids[i].in_handshake = kids[i].pid && !status_table_pid_of(table, kids[i].sid) &&
                               !admission_has_session(adm, kids[i].sid);
}

static int handshakes_from(const struct preauth_source *src, void *arg)
{
    const struct kids_view *v = arg;
    int n = 0;
    for (int i = 0; i < v->nkids; i++)
        n += v->kids[i].in_handshake && preauth_same_source(&v->kids[i].src, src);
    return n;
}

/* Once per 5 s at most: an attack would otherwise fill the log. */
static void log_closed_silent(int closed, uint64_t now_ms, int timeout_ms)
{
    static uint64_t logged_ms, unlogged;
    unlogged += (uint64_t)closed;
    if (unlogged && now_ms - logged_ms >= 5000) {
        hw_info("closed %llu connection(s) that sent nothing (within --handshake-timeout %d ms, "
                "or while the %d places for unstarted connections were full)",
                (unsigned long long)unlogged, timeout_ms, HELD_MAX);
        logged_ms = now_ms;
        unlogged = 0;
    }
}

static uint64_t new_session_id(uint64_t *counter)
{
    /* Random, so nobody can name a session before it exists (its route
     * name, its resume); the clock and a counter only if that fails. */
    uint64_t r;
    if (hw_random_bytes(&r, sizeof r) == 0 && r)
        return r;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* Unique per worker run and unlikely to repeat across restarts. */
    return ((uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec << 8 ^ (uint64_t)getpid() << 40) +
           ++*counter;
}

/* A process is gone: what its sessions held (a session process has at
 * most one; the device process of --isolation shared any number). */
static void reaped(const struct worker_config *cfg, struct status_table *table, struct child *kids,
                   int nkids, int *live, int *leaked, struct shared_host *sh, pid_t pid, int status)
{
    int host = shared_host_reaped(sh, pid, status);
    uint64_t sid = 0, first_sid = 0, bytes = 0;
    int sessions = 0, idx;
    /* its counters join the totals before anyone can take its slot */
    while ((idx = status_table_index_of(table, pid)) >= 0) {
        worker_metrics_retire(cfg->metrics, (uint32_t)idx);
        bytes += status_table_release_pid(table, pid, &sid);
        if (!sessions++)
            first_sid = sid;
    }
    /* A session that died holding a slot or a place in the queue. */
    admission_forget_pid(cfg->admission, pid);
    if (sessions)
        admission_notify(cfg->admission);
    /* A session that died holding compile slots cannot give them back. */
    uint32_t slots = rtc_slots_release_pid(cfg->rtc_slots, pid);
    if (slots)
        hw_warn("session process %d died holding %u run-time compile slot(s); freed", (int)pid,
                slots);
    int conns = 0;
    for (int i = 0; i < nkids; i++)
        if (kids[i].pid == pid) {
            kids[i].pid = 0;
            (*live)--;
            conns++;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == LEAK_CHECK_EXIT) {
        hw_error("%s (pid %d) leaked memory (LeakSanitizer's report is above); the worker will "
                 "exit non-zero",
                 host ? "the device process" : "a session process", (int)pid);
        *leaked = 1;
    } else if (host && (conns || WIFSIGNALED(status) || WEXITSTATUS(status) != 0)) {
        char how[48];
        if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "died from signal %d", WTERMSIG(status));
        else
            snprintf(how, sizeof how, "exited with %d", WEXITSTATUS(status));
        hw_warn("device process %d %s with %d connection(s) and %d session(s): they are gone "
                "(%llu bytes reclaimed); a new device process serves new clients",
                (int)pid, how, conns, sessions, (unsigned long long)bytes);
    } else if (host)
        hw_debug("device process %d exited", (int)pid);
    else if (WIFSIGNALED(status))
        hw_warn("session %016llx (pid %d) died from signal %d; %llu bytes reclaimed",
                (unsigned long long)first_sid, (int)pid, WTERMSIG(status),
                (unsigned long long)bytes);
    else
        hw_debug("session process %d exited with %d", (int)pid, WEXITSTATUS(status));
}

static void reap(const struct worker_config *cfg, struct status_table *table, struct child *kids,
                 int nkids, int *live, int *leaked, struct prewarm_pool *pool,
                 struct shared_host *sh)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        if (prewarm_pool_reaped(pool, pid, status))
            continue; /* never had a connection */
        reaped(cfg, table, kids, nkids, live, leaked, sh, pid, status);
    }
}

/* --migrate-to at SIGTERM (migrate.c): every session is told to move, and
 * the worker waits (up to --migrate-wait) for the session processes to end:
 * a moved one ends at once, one that cannot move (not resumable, refused)
 * ends with GOING_AWAY MIGRATE_FAILED. Those left after the wait are ended
 * as without --migrate-to. */
static void migrate_before_stop(const struct worker_config *cfg, struct status_table *table,
                                struct child *kids, int nkids, int *live, int *leaked)
{
    struct hw_worker_addr a;
    char why[128];
    if (hw_worker_list_parse(cfg->migrate_to, HIPR_DEFAULT_PORT, &a, 1, why, sizeof why) != 1)
        return;
    snprintf(table->migrate_host, sizeof table->migrate_host, "%s", a.host);
    __atomic_store_n(&table->migrate_then_stop, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&table->migrate_port, (uint32_t)a.port, __ATOMIC_RELEASE);
    uint32_t told = migrate_signal_sessions(table);
    hw_info("stopping: moving %u session(s) to %s:%d first (--migrate-to; up to %llu ms)", told,
            a.host, a.port, (unsigned long long)cfg->migrate_wait_ms);
    uint64_t deadline = hw_now_ms() + cfg->migrate_wait_ms;
    while (*live > 0 && hw_now_ms() < deadline) {
        reap(cfg, table, kids, nkids, live, leaked, NULL, NULL);
        if (*live > 0)
            usleep(20 * 1000);
    }
}

/* The device process says a connection is over (--isolation shared). */
struct done_ctx {
    struct child *kids;
    int nkids;
    int *live;
};

static void connection_done(void *arg, uint64_t sid)
{
    struct done_ctx *d = arg;
    for (int i = 0; i < d->nkids; i++)
        if (d->kids[i].pid && d->kids[i].sid == sid) {
            d->kids[i].pid = 0;
            (*d->live)--;
            return;
        }
}

/* What a new device process must not hold of the supervisor's. */
struct child_fds {
    int lfd;
    struct metrics_http *mh;
    struct preauth *held;
};

static void close_in_child(void *arg)
{
    struct child_fds *c = arg;
    close(c->lfd);
    if (c->mh)
        close(metrics_http_fd(c->mh));
    preauth_close_all_in_child(c->held);
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
    return rename(tmp, path); /* readers never see a partial file */
}

/* As many connections as the descriptor limit leaves room for (raised to
 * its hard limit first, as most daemons do): another peer's idle sockets
 * are then held here, where the fair order applies, rather than in the
 * listen backlog ahead of everyone. */
static int held_capacity(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 64;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        if (want > rl.rlim_cur) {
            rl.rlim_cur = want;
            setrlimit(RLIMIT_NOFILE, &rl);
            getrlimit(RLIMIT_NOFILE, &rl);
        }
    }
    rlim_t room = rl.rlim_cur / 2;
    return room > HELD_MAX ? HELD_MAX : room < 16 ? 16 : (int)room;
}

/* Gives an accepted connection a process: a prewarmed one if ready, else a
 * new fork. Returns its index in kids, or -1 (the connection is closed). */
static int spawn_session(const struct worker_config *cfg, struct status_table *table,
                         struct preauth *held, struct prewarm_pool *pool, struct shared_host *sh,
                         struct metrics_http *mh, int lfd, int cfd, uint64_t *counter,
                         struct child *kids, int nkids)
{
    uint64_t sid = new_session_id(counter);
    /* A process with its device open already, if one is ready. */
    pid_t pid;
    if (sh) { /* --isolation shared: a thread of the device process */
        if (shared_host_handoff(sh, cfd, sid, &pid) < 0)
            pid = -1;
    } else if (prewarm_pool_handoff(pool, cfd, sid, &pid) == 0)
        hw_debug("connection handed to prewarmed session process %d", (int)pid);
    else
        pid = fork();
    if (pid == 0) {
        close(lfd);
        /* only the supervisor serves metrics (its thread is not here) */
        if (mh)
            close(metrics_http_fd(mh));
        prewarm_pool_close_fds(pool);
        preauth_close_all_in_child(held);
        signal(SIGINT, SIG_IGN); /* a terminal ^C goes to the supervisor */
        /* Sessions run one uid; kernels on the cpu backend are the
         * client's code. Not dumpable: no sibling session may read this
         * one's memory through /proc/<pid>/mem or attach to it. */
        prctl(PR_SET_DUMPABLE, 0);
        _exit(leak_check_session_exit(session_main(cfd, cfg, table, sid)));
    }
    close(cfd);
    if (pid < 0) {
        if (sh)
            hw_warn("the device process did not take a connection; closed it");
        else
            hw_error("fork: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < nkids; i++)
        if (!kids[i].pid) {
            kids[i].pid = pid;
            kids[i].sid = sid;
            return i;
        }
    return -1; /* not reached: the caller keeps live below nkids */
}

int supervisor_run(const struct worker_config *config)
{
    int leaked = 0; /* a session process failed LeakSanitizer's check */
    int lfd = -1, port = 0, rc = 1, live = 0;
    /* Sessions, the clients queued for one, and those in their handshake. */
    int nkids = config->max_sessions + (int)config->admission_queue + HANDSHAKE_SLACK;
    uint64_t counter = 0;
    struct worker_config c = *config;
    const struct worker_config *cfg = &c;
    struct metrics_http *mh = NULL;
    struct sup_view view = { .cfg = cfg, .live = 0 };
    struct child *kids = hw_calloc((size_t)nkids, sizeof *kids);
    struct status_table *table =
        status_table_create((uint32_t)cfg->max_sessions, cfg->mem_limit, cfg->backend);
    /* Mapped before any session is forked, so every session shares it. */
    c.admission = admission_create(cfg->admission_queue);
    int shared = cfg->isolation == WORKER_ISOLATION_SHARED;
    /* Shared: one device process with its devices open serves every
     * session; a pool of prewarmed processes would be beside the point. */
    if (shared && cfg->prewarm)
        hw_info("--prewarm %d: not used with --isolation shared (the device process keeps the "
                "devices open for every session)",
                cfg->prewarm);
    int npool = shared ? 0 : cfg->prewarm;
    struct prewarm_pool *pool = npool ? prewarm_pool_create(npool) : NULL;
    struct shared_host *sh = shared ? shared_host_create() : NULL;
    struct pollfd *pfds = hw_calloc((size_t)npool + 2, sizeof *pfds);
    struct preauth *held = preauth_create(held_capacity());
    if (!kids || !table || !c.admission || !pfds || !held || (npool && !pool) || (shared && !sh)) {
        hw_error("out of memory");
        goto out;
    }
    int err = hw_tcp_listen(cfg->bind, cfg->port, &lfd, &port);
    if (err < 0) {
        hw_error("cannot listen on %s:%d: %s", cfg->bind, cfg->port, strerror(-err));
        goto out;
    }
    /* Accepting drains the backlog into the held queue until EAGAIN. */
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    if (cfg->port_file && write_port_file(cfg->port_file, port) < 0) {
        hw_error("cannot write %s: %s", cfg->port_file, strerror(errno));
        goto out;
    }

    view.table = table;
    if (cfg->metrics_listen) {
        int mport = 0;
        mh = metrics_http_start(cfg->metrics_listen, cfg->metrics, read_gauges, &view, &mport);
        if (mh == NULL)
            goto out;
        if (cfg->metrics_port_file && write_port_file(cfg->metrics_port_file, mport) < 0) {
            hw_error("cannot write %s: %s", cfg->metrics_port_file, strerror(errno));
            goto out;
        }
        hw_info("metrics at http://%s/metrics (port %d)", cfg->metrics_listen, mport);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    hw_info("listening on %s:%d (backend %s, max %d sessions, admission queue %u, mem limit "
            "%.3f GiB, isolation %s, %s, %s)",
            cfg->bind, port, cfg->backend, cfg->max_sessions, cfg->admission_queue,
            (double)cfg->mem_limit / (double)(1ull << 30), shared ? "shared" : "process",
            cfg->token ? "token required" : "no authentication",
            cfg->require_tls ? "TLS required"
            : cfg->tls       ? "TLS or plain"
                             : "plain TCP");

    int full_logged = 0;
    uint64_t drain_deadline_ms = 0;
    struct kids_view kv = { kids, nkids };
    struct child_fds cf = { lfd, mh, held };
    while (!stop_requested) {
        uint64_t unused;
        int pending =
            live - (int)status_table_count(table, &unused) - (int)admission_waiting(cfg->admission);
        int full = live >= nkids || pending >= HANDSHAKE_SLACK;
        if (full && !full_logged)
            hw_debug("%d connections, %d still in their handshake: new ones wait", live, pending);
        full_logged = full;
        /* A process forked now would keep the held connections open. */
        if (preauth_count(held) == 0)
            prewarm_pool_fill(pool, cfg, table, lfd, live);
        /* (held connections are closed in it: they wait for it) */
        shared_host_fill(sh, cfg, table, close_in_child, &cf);
        /* Enough held ahead: the rest wait in the backlog (not polled, or
         * the loop would spin on it). */
        int room = preauth_pending(held, hw_now_ms()) < SPOKEN_AHEAD;
        pfds[0] = (struct pollfd){ .fd = room ? lfd : -1, .events = POLLIN };
        int nw = prewarm_pool_pollfds(pool, pfds + 1, npool);
        int nh = shared_host_pollfd(sh, pfds + 1 + nw);
        int waiting = preauth_count(held) > 0;
        /* also the reaping period; short while connections wait for a place */
        int n = poll(pfds, (nfds_t)(nw + nh) + 1, full || waiting ? 20 : 200);
        if (n > 0)
            prewarm_pool_poll(pool, pfds + 1, nw);
        if (n > 0 && nh) {
            struct done_ctx dc = { kids, nkids, &live };
            shared_host_poll(sh, pfds + 1 + nw, connection_done, &dc);
        }
        reap(cfg, table, kids, nkids, &live, &leaked, pool, sh);
        __atomic_store_n(&view.live, live, __ATOMIC_RELAXED);
        if (drain_should_stop(table, live, &drain_deadline_ms))
            break;
        uint64_t now = hw_now_ms();
        int closed = 0;
        if (n > 0 && (pfds[0].revents & POLLIN)) {
            int ahead = preauth_pending(held, now);
            while (ahead < SPOKEN_AHEAD) {
                if (preauth_full(held)) {
                    if (!preauth_make_room(held))
                        break;
                    closed++;
                }
                int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                if (cfd < 0)
                    break;
                hw_tcp_tune(cfd);
                preauth_hold(held, cfd, now);
                ahead = preauth_pending(held, now);
            }
        }
        closed += preauth_expire(held, now, (uint64_t)cfg->handshake_timeout_ms);
        log_closed_silent(closed, now, cfg->handshake_timeout_ms);
        if (preauth_count(held) == 0)
            continue;
        mark_handshakes(kids, nkids, table, cfg->admission);
        pending =
            live - (int)status_table_count(table, &unused) - (int)admission_waiting(cfg->admission);
        /* With --isolation shared, they wait for the device process. */
        while (preauth_count(held) > 0 && live < nkids && pending < HANDSHAKE_SLACK &&
               (!sh || shared_host_ready(sh))) {
            struct preauth_source src;
            int cfd = preauth_next(held, handshakes_from, &kv, &src);
            if (cfd < 0)
                break; /* none has spoken yet */
            int k = spawn_session(cfg, table, held, pool, sh, mh, lfd, cfd, &counter, kids, nkids);
            if (k < 0)
                continue;
            kids[k].src = src;
            kids[k].in_handshake = 1;
            live++;
            pending++;
            __atomic_store_n(&view.live, live, __ATOMIC_RELAXED);
        }
    }

    prewarm_pool_destroy(pool);
    pool = NULL;
    preauth_destroy(held); /* never started: those clients see the worker close */
    held = NULL;
    /* Nobody new gets in, not even into the backlog, while sessions end. */
    close(lfd);
    lfd = -1;
    if (cfg->migrate_to && live > 0)
        migrate_before_stop(cfg, table, kids, nkids, &live, &leaked);
    hw_info("shutting down: ending %d session process(es)", live);
    for (int i = 0; i < nkids; i++)
        if (kids[i].pid)
            kill(kids[i].pid, SIGTERM);
    shared_host_stop(sh, SIGTERM); /* ends its sessions, then itself */
    for (int waited = 0; (live > 0 || shared_host_alive(sh)) && waited < 100; waited++) {
        reap(cfg, table, kids, nkids, &live, &leaked, NULL, sh);
        if (live > 0 || shared_host_alive(sh))
            usleep(50 * 1000);
    }
    for (int i = 0; i < nkids; i++)
        if (kids[i].pid)
            kill(kids[i].pid, SIGKILL);
    shared_host_stop(sh, SIGKILL);
    while (live > 0 || shared_host_alive(sh)) {
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (p <= 0)
            break;
        reaped(cfg, table, kids, nkids, &live, &leaked, sh, p, st);
    }
    rc = leaked ? 1 : 0;
out:
    metrics_http_stop(mh);
    if (lfd >= 0)
        close(lfd);
    status_table_destroy(table);
    admission_destroy(c.admission);
    prewarm_pool_destroy(pool);
    shared_host_destroy(sh);
    preauth_destroy(held);
    free(pfds);
    free(kids);
    return rc;
}
