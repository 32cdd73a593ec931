/*
 * worker_list.c - which worker a new client connects to.
 *
 * TF_WORKER_HOST lists one or more workers (src/common/hw_worker_list.h).
 * They are tried in the listed order, every time, and the first whose
 * link setup (TLS, authentication, HELLO) succeeds is kept: no rotation and no randomising, so failover is
 * predictable and the first healthy worker takes every new client (give
 * different clients the list in different orders to spread them). A worker
 * is skipped when it cannot be connected to, refuses the session (it is at
 * --max-sessions), refuses or fails the TLS or authentication handshake, or
 * accepts but does not complete the handshake within TF_CONNECT_TIMEOUT_MS
 * (a hung host, a stalled network path).
 *
 * A worker that queues the client or starts its device says so while the
 * client waits (admission.h): those waits have their own bounds, not the
 * connect timeout. A worker whose admission queue is full says "busy, retry
 * after N ms": the next worker is tried, and when every worker that
 * answered was busy the whole list is tried again after the shortest such
 * wait, up to TF_ADMISSION_TIMEOUT_MS in all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw_alloc.h"
#include "client.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_os.h"
#include "hw_time.h"

#define REASONS_MAX 1024

/* Why a worker that accepted the connection was not used: a timeout, else
 * the reason the link setup gave. */
static const char *handshake_failure(const struct hw_admit *a, hipError_t err, const char *why,
                                     uint64_t elapsed_ms, int timeout_ms)
{
    if (err == hipErrorLaunchOutOfResources)
        return *why ? why : "the worker is at --max-sessions";
    if (err == hipErrorNotSupported)
        return "the worker speaks another protocol version";
    if (a->why[0])
        return a->why;
    if (elapsed_ms >= (uint64_t)timeout_ms)
        return "no handshake within TF_CONNECT_TIMEOUT_MS";
    return *why ? why : "handshake failed";
}

static void appendf(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (len < cap)
        vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* Tries of one worker whose connection broke during the handshake. */
#define SETUP_RETRIES 2

hipError_t hw_connect_first_worker(struct hw_conn *c, hw_open_link_fn open_link)
{
    const char *spec = getenv("TF_WORKER_HOST");
    int port = hw_env_int("TF_WORKER_PORT", HIPR_DEFAULT_PORT, 1, 65535);
    int timeout = hw_env_int("TF_CONNECT_TIMEOUT_MS", HW_CONNECT_TIMEOUT_MS, 1, 3600000);
    int admission_ms = hw_env_int("TF_ADMISSION_TIMEOUT_MS", HW_ADMISSION_TIMEOUT_MS, 0, 86400000);
    uint64_t began_ms = hw_now_ms();
    int busy_said = 0;
    struct hw_worker_addr *list = hw_calloc(HW_WORKER_LIST_MAX, sizeof *list);
    char err[256], where[300], why[512], reasons[REASONS_MAX] = "";
    hipError_t rc = hipErrorNotInitialized;
    int refused_only = 1, unreachable = 0;

    if (!list)
        return hipErrorOutOfMemory;
    int n = hw_worker_list_parse(spec && *spec ? spec : "127.0.0.1", port, list, HW_WORKER_LIST_MAX,
                                 err, sizeof err);
    if (n < 0) {
        fprintf(stderr,
                "hipwire: TF_WORKER_HOST=%s: %s; HIP calls will return "
                "hipErrorNotInitialized\n",
                spec, err);
        goto out;
    }
again:;
    uint32_t busy_ms = 0; /* the shortest "retry after" of the busy workers */
    reasons[0] = '\0';
    refused_only = 1;
    unreachable = 0;
    int setup_retries = 0;
    for (int i = 0; i < n; i++) {
        int fd;
        hw_worker_addr_format(&list[i], where, sizeof where);
        int e = hw_tcp_connect(list[i].host, list[i].port, timeout, &fd);
        if (e < 0) {
            hw_debug("cannot connect to %s: %s", where, hw_net_strerror(e));
            appendf(reasons, sizeof reasons, "%s%s: %s", *reasons ? "; " : "", where,
                    hw_net_strerror(e));
            refused_only = 0;
            unreachable = 1;
            continue;
        }
        hw_tx_init_plain(&c->tx, fd);
        /* A worker that accepts and then says nothing must not hang the
         * application: the handshake gets the connect deadline. */
        hw_tx_set_recv_timeout(&c->tx, timeout);
        uint64_t t0 = hw_now_ns();
        why[0] = '\0';
        hw_admit_init(&c->admit, &c->tx, where);
        hipError_t herr = open_link(c, &list[i], timeout, why, sizeof why);
        if (herr == hipSuccess) {
            hw_tx_set_recv_timeout(&c->tx, 0);
            c->worker = list[i];
            hw_debug("session %016llx on %s, backend %s, %d device(s)",
                     (unsigned long long)c->session_id, where, c->backend, c->device_count);
            rc = hipSuccess;
            goto out;
        }
        const char *reason =
            handshake_failure(&c->admit, herr, why, (hw_now_ns() - t0) / 1000000u, timeout);
        uint32_t retry = herr == hipErrorLaunchOutOfResources ? c->admit.retry_after_ms : 0;
        if (retry && (!busy_ms || retry < busy_ms))
            busy_ms = retry;
        hw_debug("not using %s: %s", where, reason);
        size_t reasons_before = strlen(reasons);
        appendf(reasons, sizeof reasons, "%s%s: %s", *reasons ? "; " : "", where, reason);
        refused_only &= herr == hipErrorLaunchOutOfResources;
        hw_tx_close(&c->tx);
        hw_tx_init_plain(&c->tx, -1);
        pthread_mutex_lock(&c->rlock);
        c->broken = 0; /* the failed handshake marked it; the next worker starts clean */
        pthread_mutex_unlock(&c->rlock);
        /* Cut before the session existed: nothing of it is lost, so the same
         * worker is asked again (twice at most) before the next one. */
        if (c->setup_cut && setup_retries < SETUP_RETRIES) {
            setup_retries++;
            hw_debug("%s: the connection broke during the handshake (%s); connecting again", where,
                     reason);
            reasons[reasons_before] = '\0';
            i--;
            continue;
        }
        setup_retries = 0;
    }
    if (busy_ms) {
        uint64_t spent = hw_now_ms() - began_ms;
        if (!admission_ms || spent + busy_ms < (uint64_t)admission_ms) {
            /* Said once; the retries only with TF_DEBUG. */
            if (!busy_said++)
                fprintf(stderr, "hipwire: %s; retrying in %u ms (up to TF_ADMISSION_TIMEOUT_MS)\n",
                        reasons, busy_ms);
            else
                hw_debug("%s; retrying in %u ms", reasons, busy_ms);
            /* Spread, so clients told the same wait do not all come back at once. */
            uint32_t jitter = (uint32_t)(hw_now_ns() % (busy_ms / 4 + 1));
            struct timespec ts = { (busy_ms + jitter) / 1000,
                                   (long)((busy_ms + jitter) % 1000) * 1000000L };
            while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
            goto again;
        }
    }
    /* The one line a user sees when the proxy cannot do anything. */
    fprintf(stderr,
            "hipwire: %s hip-worker at %s; HIP calls will return hipErrorNotInitialized%s\n",
            refused_only  ? "refused by"
            : unreachable ? "cannot reach"
                          : "cannot use",
            reasons, unreachable ? " (set TF_WORKER_HOST / TF_WORKER_PORT)" : "");
out:
    free(list);
    return rc;
}
