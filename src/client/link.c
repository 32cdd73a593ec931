/*
 * link.c - the bottom of the proxy's link layer (docs/architecture.md,
 * "Layers"): what the environment asks of a link (TLS, its trust anchors,
 * the token), securing a freshly connected transport, the heartbeat's
 * socket timeouts, and the link's state changes (lost: resume.c brings it
 * back; failed: every call fails). worker_list.c, admission.c and resume.c
 * build on it; conn.c (the call layer: requests and replies) is above all
 * of them and nothing here calls it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "hw_auth.h"
#include "hw_link.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_time.h"
#include "hw_transport.h"

int hw_env_int(const char *name, int dflt, int lo, int hi)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return dflt;
    long x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "hipwire: ignoring %s=%s (not a number in %d..%d)\n", name, v, lo, hi);
        return dflt;
    }
    return (int)x;
}

/* What the environment asks for: TLS, its trust anchors, the token. */
struct conn_security {
    int tls;
    struct hw_tls_ctx *tls_ctx;
    struct hw_token token; /* len 0: none */
};
static struct conn_security the_security;

/* Reads TF_WORKER_TOKEN[_FILE], TF_WORKER_TLS, TF_WORKER_CA and
 * TF_WORKER_TLS_VERIFY. 0, or -1 with the reason in why. */
int hw_link_security_from_env(char *why, size_t why_len)
{
    struct conn_security *sec = &the_security;
    const char *tok = getenv("TF_WORKER_TOKEN");
    const char *tok_file = getenv("TF_WORKER_TOKEN_FILE");
    const char *tls = getenv("TF_WORKER_TLS");
    const char *ca = getenv("TF_WORKER_CA");
    const char *verify = getenv("TF_WORKER_TLS_VERIFY");
    char what[400];
    if (tok && *tok) {
        if (hw_token_from_string(tok, &sec->token, what, sizeof what) < 0) {
            snprintf(why, why_len, "TF_WORKER_TOKEN: %s", what);
            return -1;
        }
    } else if (tok_file && *tok_file) {
        if (hw_token_from_file(tok_file, &sec->token, what, sizeof what) < 0) {
            snprintf(why, why_len, "TF_WORKER_TOKEN_FILE: %s", what);
            return -1;
        }
    }
    sec->tls = tls && *tls && strcmp(tls, "0") != 0;
    if (!sec->tls)
        return 0;
    int check = !(verify && strcmp(verify, "0") == 0);
    if (!check)
        fprintf(stderr, "hipwire: TF_WORKER_TLS_VERIFY=0: the worker's certificate is not "
                        "checked; anyone in the path can pose as the worker\n");
    sec->tls_ctx = hw_tls_client_ctx(ca, check, what, sizeof what);
    if (!sec->tls_ctx) {
        snprintf(why, why_len, "TF_WORKER_TLS: %s", what);
        return -1;
    }
    return 0;
}

int hw_link_secure(struct hw_transport *t, const struct hw_worker_addr *w, uint64_t session,
                   int timeout_ms, uint32_t *heartbeat_ms, struct hw_auth_transcript *tr, char *why,
                   size_t why_len, int *fatal)
{
    const struct conn_security *sec = &the_security;
    *fatal = 0;
    if (sec->tls && hw_tls_connect(t, sec->tls_ctx, w->host, timeout_ms, why, why_len) < 0)
        return -1;
    if (hw_link_authenticate(t, &sec->token, session, heartbeat_ms, tr, why, why_len) < 0) {
        *fatal = strstr(why, "authentication") != NULL || strstr(why, "requires") != NULL ||
                 strstr(why, "token is set") != NULL;
        return -1;
    }
    return 0;
}

void hw_conn_fail(struct hw_conn *c, const char *line)
{
    pthread_mutex_lock(&c->rlock);
    int was = c->broken;
    c->broken = 1;
    c->down = 0;
    /* Said before any waiter wakes: the program may be done a moment later. */
    if (!was && c->opened && *line && !__atomic_load_n(&c->closing, __ATOMIC_ACQUIRE))
        fprintf(stderr, "%s\n", line);
    for (struct hw_waiter *w = c->waiters; w; w = w->next)
        if (!w->done) {
            w->done = 1;
            w->status = hipErrorLaunchFailure;
        }
    pthread_cond_broadcast(&c->rcond);
    pthread_cond_broadcast(&c->resume_cond);
    pthread_mutex_unlock(&c->rlock);
    if (!was)
        hw_tx_shutdown(&c->tx); /* a thread blocked reading or writing returns */
}

void hw_link_lost(struct hw_conn *c, unsigned gen, const char *why)
{
    pthread_mutex_lock(&c->rlock);
    if (c->broken || c->down || gen != c->gen) {
        pthread_mutex_unlock(&c->rlock); /* already known, or about an older link */
        return;
    }
    uint32_t going_away = __atomic_load_n(&c->going_away, __ATOMIC_ACQUIRE);
    if (!c->resumable || going_away || __atomic_load_n(&c->closing, __ATOMIC_ACQUIRE)) {
        pthread_mutex_unlock(&c->rlock);
        char line[640];
        if (going_away)
            snprintf(line, sizeof line,
                     "hipwire: hip-worker at %s:%d is %s (it said so); the remote "
                     "session has ended and HIP calls will fail (hipErrorLaunchFailure); run "
                     "the program again to start a new session on a worker of TF_WORKER_HOST",
                     c->worker.host, c->worker.port,
                     going_away == HIPR_GOING_AWAY_DRAIN ? "drained and its drain timeout ran out"
                     : going_away == HIPR_GOING_AWAY_MIGRATE_FAILED
                         ? "shutting down and could not move the session to another worker "
                           "(--migrate-to; its log says why)"
                         : "shutting down");
        else
            snprintf(line, sizeof line,
                     "hipwire: lost the connection to hip-worker (%s); the "
                     "remote session is gone and HIP calls will fail",
                     why);
        hw_conn_fail(c, line);
        return;
    }
    c->down = 1;
    c->down_since_ms = hw_now_ms();
    snprintf(c->down_why, sizeof c->down_why, "%s", why);
    pthread_cond_broadcast(&c->resume_cond);
    pthread_cond_broadcast(&c->rcond);
    pthread_mutex_unlock(&c->rlock);
    hw_tx_shutdown(&c->tx); /* whoever is blocked on it returns and waits */
}

void hw_heartbeat_link(struct hw_conn *c)
{
    if (!c->heartbeat_ms)
        return;
    int dead_ms = HW_DEAD_AFTER * c->heartbeat_ms;
    hw_tx_set_recv_timeout(&c->tx, dead_ms);
    hw_tcp_user_timeout(c->tx.fd, dead_ms);
    __atomic_store_n(&c->last_send_ms, hw_now_ms(), __ATOMIC_RELAXED);
    __atomic_store_n(&c->last_recv_ms, hw_now_ms(), __ATOMIC_RELAXED);
}
