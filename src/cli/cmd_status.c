/*
 * cmd_status.c - `hipwire status`: health, sessions and memory of the
 * hip-workers a client would use.
 *
 *   hipwire status [--worker HOST[:PORT]]... [--json] [--timeout MS]
 *
 * Without --worker it asks every worker of TF_WORKER_HOST (TF_WORKER_PORT
 * for entries without a port; src/common/hw_worker_list.h), as the proxy
 * would. Each worker gets two short connections that open no session:
 * WORKER_INFO (version, backend, devices, uptime) and WORKER_STATUS
 * (sessions and the device memory they hold), over TLS and proving the
 * token as the proxy does when TF_WORKER_TLS / TF_WORKER_TOKEN[_FILE] say
 * so. Exit status 0 when every worker answered, 1 when any did not, 2 on
 * bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "commands.h"
#include "hipr.h"
#include "hw_auth.h"
#include "hw_link.h"
#include "hw_net.h"
#include "hw_transport.h"
#include "hw_worker_list.h"
#include "json_writer.h"
#include "status_ask.h"

#define DEFAULT_TIMEOUT_MS 3000

struct report {
    struct hw_worker_addr addr;
    char where[300];
    int up;
    char error[256];
    struct hipr_worker_info_rep info;
    struct hipr_devinfo *devs;
    uint32_t ndev;
    struct hipr_worker_status_rep status;
    struct hipr_session_entry *sessions;
    uint32_t nsess;
    int have_cache; /* the worker answered RTC_CACHE_STATS (newer workers) */
    struct hipr_rtc_cache_stats_rep cache;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hipwire status [--worker HOST[:PORT]]... [--json] [--timeout MS]\n"
            "  Shows each hip-worker's health (reachable, version, backend, devices),\n"
            "  its sessions and the device memory they hold. Without --worker: the\n"
            "  workers of TF_WORKER_HOST (TF_WORKER_PORT, default %d, for entries\n"
            "  without a port). Exit status 1 when any worker does not answer.\n"
            "  --json        machine-readable output\n"
            "  --timeout MS  per worker and request (default %d)\n",
            HIPR_DEFAULT_PORT, DEFAULT_TIMEOUT_MS);
}

int security_from_env(struct status_security *sec, char *err, size_t errlen)
{
    const char *tok = getenv("TF_WORKER_TOKEN"), *tok_file = getenv("TF_WORKER_TOKEN_FILE");
    const char *tls = getenv("TF_WORKER_TLS"), *verify = getenv("TF_WORKER_TLS_VERIFY");
    char why[400];
    memset(sec, 0, sizeof *sec);
    if (tok && *tok && hw_token_from_string(tok, &sec->token, why, sizeof why) < 0) {
        snprintf(err, errlen, "TF_WORKER_TOKEN: %s", why);
        return -1;
    }
    if (!(tok && *tok) && tok_file && *tok_file &&
        hw_token_from_file(tok_file, &sec->token, why, sizeof why) < 0) {
        snprintf(err, errlen, "TF_WORKER_TOKEN_FILE: %s", why);
        return -1;
    }
    if (tls && *tls && strcmp(tls, "0") != 0) {
        sec->tls = hw_tls_client_ctx(getenv("TF_WORKER_CA"), !(verify && !strcmp(verify, "0")), why,
                                     sizeof why);
        if (!sec->tls) {
            snprintf(err, errlen, "TF_WORKER_TLS: %s", why);
            return -1;
        }
    }
    return 0;
}

/*
 * On the fresh connection, before the status request: TLS when
 * TF_WORKER_TLS asks for it, and the token proven by the proxy's
 * challenge-response (a worker with --token-file answers status queries
 * only then). Without either, nothing. 0, or -1 with the reason in err.
 */
static int status_authenticate(struct hw_transport *t, const struct status_security *sec,
                               const struct hw_worker_addr *a, int timeout_ms, char *err,
                               size_t errlen)
{
    if (sec->tls && hw_tls_connect(t, sec->tls, a->host, timeout_ms, err, errlen) < 0)
        return -1;
    if (!sec->token.len)
        return 0;
    uint32_t hb = 0;
    return hw_link_authenticate(t, &sec->token, 0, &hb, NULL, err, errlen);
}

int status_ask(const struct hw_worker_addr *a, const struct status_security *sec, int timeout_ms,
               uint16_t opcode, const void *req, size_t req_len, uint8_t **body, size_t *body_len,
               char *err, size_t errlen)
{
    return status_ask_tail(a, sec, timeout_ms, opcode, req, req_len, NULL, 0, body, body_len, err,
                           errlen);
}

int status_ask_tail(const struct hw_worker_addr *a, const struct status_security *sec,
                    int timeout_ms, uint16_t opcode, const void *req, size_t req_len,
                    const void *tail, size_t tail_len_in, uint8_t **body, size_t *body_len,
                    char *err, size_t errlen)
{
    int fd = -1, rc = -1, status = 0;
    struct hw_transport t;
    const struct hipr_op_info *info = hipr_op_lookup(opcode);
    size_t cap = info->reply_size + (size_t)info->reply_tail_cap;
    uint8_t *b = NULL;
    uint64_t tail_len = 0;
    int e = hw_tcp_connect(a->host, a->port, timeout_ms, &fd);
    if (e < 0) {
        snprintf(err, errlen, "%s", hw_net_strerror(e));
        return -1;
    }
    hw_tx_init_plain(&t, fd);
    hw_tx_set_recv_timeout(&t, timeout_ms);
    struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (status_authenticate(&t, sec, a, timeout_ms, err, errlen) < 0)
        goto out;
    b = hw_malloc(cap ? cap : 1);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (hw_link_call(&t, opcode, 3, req, req_len, tail, tail_len_in, b, info->reply_size,
                     b + info->reply_size, info->reply_tail_cap, &tail_len, &status) < 0) {
        snprintf(err, errlen, "%s",
                 errno == ETIMEDOUT || errno == EAGAIN ? "no answer in time"
                 : errno == EPROTO                     ? "not a hip-worker reply"
                 : errno                               ? strerror(errno)
                         : "closed the connection (not a hip-worker, or it wants a token: "
                           "set TF_WORKER_TOKEN or TF_WORKER_TOKEN_FILE)");
        goto out;
    }
    if (status != 0) {
        if (status == 3) /* hipErrorNotInitialized: the worker's refusal before a session */
            snprintf(err, errlen,
                     "%s refused: not authenticated (the worker has a token: set "
                     "TF_WORKER_TOKEN or TF_WORKER_TOKEN_FILE)",
                     info->name);
        else
            snprintf(err, errlen, "%s refused (status %d; an older worker?)", info->name, status);
        goto out;
    }
    *body = b;
    *body_len = info->reply_size + (size_t)tail_len;
    b = NULL;
    rc = 0;
out:
    free(b);
    hw_tx_close(&t);
    return rc;
}

static int ask(const struct hw_worker_addr *a, const struct status_security *sec, int timeout_ms,
               uint16_t opcode, uint8_t **body, size_t *body_len, char *err, size_t errlen)
{
    return status_ask(a, sec, timeout_ms, opcode, NULL, 0, body, body_len, err, errlen);
}

static void query(struct report *r, const struct status_security *sec, int timeout_ms)
{
    uint8_t *body = NULL;
    size_t len = 0;
    hw_worker_addr_format(&r->addr, r->where, sizeof r->where);
    if (ask(&r->addr, sec, timeout_ms, HIPR_OP_WORKER_INFO, &body, &len, r->error,
            sizeof r->error) < 0)
        return;
    if (hipr_worker_info_rep_decode(body, len, &r->info) < 0 ||
        r->info.devinfo_size != HIPR_devinfo_SIZE || r->info.device_count > HIPR_CAP_DEVICES ||
        len != HIPR_worker_info_rep_SIZE + (size_t)r->info.device_count * HIPR_devinfo_SIZE) {
        snprintf(r->error, sizeof r->error, "malformed WORKER_INFO reply");
        free(body);
        return;
    }
    r->devs = hw_calloc(r->info.device_count ? r->info.device_count : 1, sizeof *r->devs);
    for (uint32_t i = 0; r->devs && i < r->info.device_count; i++)
        hipr_devinfo_decode(body + HIPR_worker_info_rep_SIZE + i * HIPR_devinfo_SIZE,
                            HIPR_devinfo_SIZE, &r->devs[r->ndev++]);
    free(body);
    body = NULL;

    if (ask(&r->addr, sec, timeout_ms, HIPR_OP_WORKER_STATUS, &body, &len, r->error,
            sizeof r->error) < 0)
        return;
    if (hipr_worker_status_rep_decode(body, len, &r->status) < 0 ||
        r->status.sessions > HIPR_CAP_SESSIONS ||
        len != HIPR_worker_status_rep_SIZE + (size_t)r->status.sessions * HIPR_session_entry_SIZE) {
        snprintf(r->error, sizeof r->error, "malformed WORKER_STATUS reply");
        free(body);
        return;
    }
    r->sessions = hw_calloc(r->status.sessions ? r->status.sessions : 1, sizeof *r->sessions);
    for (uint32_t i = 0; r->sessions && i < r->status.sessions; i++)
        hipr_session_entry_decode(body + HIPR_worker_status_rep_SIZE + i * HIPR_session_entry_SIZE,
                                  HIPR_session_entry_SIZE, &r->sessions[r->nsess++]);
    free(body);
    r->up = 1;

    /* Workers before the compiled-kernel cache close the connection: the
     * report then has no cache line, and is no less up. */
    char ignored[256];
    body = NULL;
    if (ask(&r->addr, sec, timeout_ms, HIPR_OP_RTC_CACHE_STATS, &body, &len, ignored,
            sizeof ignored) == 0) {
        r->have_cache = len == HIPR_rtc_cache_stats_rep_SIZE &&
                        hipr_rtc_cache_stats_rep_decode(body, len, &r->cache) == 0;
        free(body);
    }
}

/* One unit for every size hipwire prints (GiB); three decimals keep a
 * few MiB visible. JSON carries exact bytes. */
static void human_bytes(uint64_t b, char *buf, size_t len)
{
    snprintf(buf, len, "%.3f GiB", (double)b / (double)(UINT64_C(1) << 30));
}

static void human_uptime(uint64_t ms, char *buf, size_t len)
{
    uint64_t s = ms / 1000;
    if (s >= 86400)
        snprintf(buf, len, "%llud%lluh", (unsigned long long)(s / 86400),
                 (unsigned long long)(s % 86400 / 3600));
    else if (s >= 3600)
        snprintf(buf, len, "%lluh%llum", (unsigned long long)(s / 3600),
                 (unsigned long long)(s % 3600 / 60));
    else if (s >= 60)
        snprintf(buf, len, "%llum%llus", (unsigned long long)(s / 60),
                 (unsigned long long)(s % 60));
    else
        snprintf(buf, len, "%llus", (unsigned long long)s);
}

/* "10.0.0.5:51844", "[fd00::5]:51844", or "?" when the worker did not say. */
static void client_name(const struct hipr_session_entry *e, char *buf, size_t len)
{
    static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    static const uint8_t zero[16];
    char host[INET6_ADDRSTRLEN];

    if (memcmp(e->client_addr, zero, 16) == 0 && e->client_port == 0) {
        snprintf(buf, len, "?");
    } else if (memcmp(e->client_addr, v4map, 12) == 0) {
        inet_ntop(AF_INET, e->client_addr + 12, host, sizeof host);
        snprintf(buf, len, "%s:%u", host, e->client_port);
    } else {
        inet_ntop(AF_INET6, e->client_addr, host, sizeof host);
        snprintf(buf, len, "[%s]:%u", host, e->client_port);
    }
}

static const char *state_name(uint32_t state)
{
    return state == HIPR_SESSION_DETACHED ? "detached, awaiting resume" : "attached";
}

static void print_text(const struct report *r, int n)
{
    char b1[32], b2[32];
    for (int i = 0; i < n; i++) {
        const struct report *w = &r[i];
        if (!w->up) {
            printf("%s  unreachable: %s\n", w->where, w->error);
            continue;
        }
        human_uptime(w->info.uptime_ms, b1, sizeof b1);
        printf("%s  up %s: hip-worker %s, protocol %u, backend %s, isolation %s%s\n", w->where, b1,
               w->info.version, w->info.proto_version, w->info.backend,
               (w->info.flags & HIPR_WORKER_SHARED) ? "shared" : "process",
               (w->info.flags & HIPR_WORKER_DRAINING) ? ", draining (no new sessions)" : "");
        printf("  devices: %u\n", w->ndev);
        for (uint32_t d = 0; d < w->ndev; d++) {
            human_bytes(w->devs[d].total_global_mem, b1, sizeof b1);
            printf("    %u  %s (%s), %s\n", d, w->devs[d].name, w->devs[d].arch_name, b1);
        }
        human_bytes(w->status.bytes_in_use, b1, sizeof b1);
        if (w->status.mem_limit)
            human_bytes(w->status.mem_limit, b2, sizeof b2);
        printf("  sessions: %u of %u (%llu served), device memory in use: %s, per-session "
               "limit: %s\n",
               w->status.sessions, w->status.max_sessions,
               (unsigned long long)w->status.sessions_served, b1,
               w->status.mem_limit ? b2 : "none");
        for (uint32_t s = 0; s < w->nsess; s++) {
            char who[80];
            human_bytes(w->sessions[s].bytes_in_use, b1, sizeof b1);
            client_name(&w->sessions[s], who, sizeof who);
            printf("    session %016llx  client %s  %s  pid %u  %s\n",
                   (unsigned long long)w->sessions[s].session_id, who,
                   state_name(w->sessions[s].state), w->sessions[s].pid, b1);
        }
        if (w->have_cache && !w->cache.enabled) {
            printf("  compiled-kernel cache: off (--rtc-cache-dir)\n");
        } else if (w->have_cache) {
            human_bytes(w->cache.bytes, b1, sizeof b1);
            human_bytes(w->cache.max_bytes, b2, sizeof b2);
            printf("  compiled-kernel cache: %llu hits, %llu misses, %llu entries, %s of %s "
                   "(%llu evicted, %llu damaged)\n",
                   (unsigned long long)w->cache.hits, (unsigned long long)w->cache.misses,
                   (unsigned long long)w->cache.entries, b1, b2,
                   (unsigned long long)w->cache.evictions, (unsigned long long)w->cache.damaged);
        }
    }
}

static void print_json(const struct report *r, int n, int all_up)
{
    json_writer j;
    char id[32];
    jw_init(&j, stdout);
    jw_object_begin(&j);
    jw_key(&j, "all_reachable");
    jw_bool(&j, all_up);
    jw_key(&j, "workers");
    jw_array_begin(&j);
    for (int i = 0; i < n; i++) {
        const struct report *w = &r[i];
        jw_object_begin(&j);
        jw_key(&j, "address");
        jw_string(&j, w->where);
        jw_key(&j, "reachable");
        jw_bool(&j, w->up);
        if (!w->up) {
            jw_key(&j, "error");
            jw_string(&j, w->error);
            jw_object_end(&j);
            continue;
        }
        jw_key(&j, "version");
        jw_string(&j, w->info.version);
        jw_key(&j, "protocol");
        jw_uint(&j, w->info.proto_version);
        jw_key(&j, "backend");
        jw_string(&j, w->info.backend);
        jw_key(&j, "uptime_ms");
        jw_uint(&j, w->info.uptime_ms);
        jw_key(&j, "draining");
        jw_bool(&j, (w->info.flags & HIPR_WORKER_DRAINING) != 0);
        jw_key(&j, "isolation");
        jw_string(&j, (w->info.flags & HIPR_WORKER_SHARED) ? "shared" : "process");
        jw_key(&j, "devices");
        jw_array_begin(&j);
        for (uint32_t d = 0; d < w->ndev; d++) {
            jw_object_begin(&j);
            jw_key(&j, "index");
            jw_uint(&j, d);
            jw_key(&j, "name");
            jw_string(&j, w->devs[d].name);
            jw_key(&j, "arch");
            jw_string(&j, w->devs[d].arch_name);
            jw_key(&j, "total_memory_bytes");
            jw_uint(&j, w->devs[d].total_global_mem);
            jw_object_end(&j);
        }
        jw_array_end(&j);
        jw_key(&j, "sessions");
        jw_uint(&j, w->status.sessions);
        jw_key(&j, "max_sessions");
        jw_uint(&j, w->status.max_sessions);
        jw_key(&j, "sessions_served");
        jw_uint(&j, w->status.sessions_served);
        jw_key(&j, "memory_in_use_bytes");
        jw_uint(&j, w->status.bytes_in_use);
        jw_key(&j, "mem_limit_bytes");
        jw_uint(&j, w->status.mem_limit);
        jw_key(&j, "session_list");
        jw_array_begin(&j);
        for (uint32_t s = 0; s < w->nsess; s++) {
            jw_object_begin(&j);
            snprintf(id, sizeof id, "%016llx", (unsigned long long)w->sessions[s].session_id);
            jw_key(&j, "id");
            jw_string(&j, id);
            char who[80];
            client_name(&w->sessions[s], who, sizeof who);
            jw_key(&j, "client");
            jw_string(&j, who);
            jw_key(&j, "state");
            jw_string(&j, w->sessions[s].state == HIPR_SESSION_DETACHED ? "detached" : "attached");
            jw_key(&j, "pid");
            jw_uint(&j, w->sessions[s].pid);
            jw_key(&j, "memory_in_use_bytes");
            jw_uint(&j, w->sessions[s].bytes_in_use);
            jw_object_end(&j);
        }
        jw_array_end(&j);
        if (w->have_cache) {
            const struct hipr_rtc_cache_stats_rep *c = &w->cache;
            jw_key(&j, "rtc_cache");
            jw_object_begin(&j);
            jw_key(&j, "enabled");
            jw_bool(&j, c->enabled != 0);
            const char *names[] = { "hits",    "misses",  "stores", "evictions",
                                    "damaged", "entries", "bytes",  "max_bytes" };
            const uint64_t vals[] = { c->hits,    c->misses,  c->stores, c->evictions,
                                      c->damaged, c->entries, c->bytes,  c->max_bytes };
            for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
                jw_key(&j, names[k]);
                jw_uint(&j, vals[k]);
            }
            jw_object_end(&j);
        }
        jw_object_end(&j);
    }
    jw_array_end(&j);
    jw_object_end(&j);
    jw_finish(&j);
}

static int env_port(void)
{
    const char *v = getenv("TF_WORKER_PORT");
    char *end;
    long p = v && *v ? strtol(v, &end, 10) : HIPR_DEFAULT_PORT;
    if (v && *v && (*end || p < 1 || p > 65535)) {
        fprintf(stderr, "hipwire status: ignoring TF_WORKER_PORT=%s\n", v);
        p = HIPR_DEFAULT_PORT;
    }
    return (int)p;
}

int cli_status(int argc, char **argv)
{
    struct hw_worker_addr *addrs = hw_calloc(HW_WORKER_LIST_MAX, sizeof *addrs);
    struct report *reports = NULL;
    int n = 0, json = 0, timeout_ms = DEFAULT_TIMEOUT_MS, rc = CLI_EXIT_USAGE;
    int port = env_port();
    char err[512];
    struct status_security sec;
    memset(&sec, 0, sizeof sec);

    if (!addrs)
        return CLI_EXIT_FAILURE;
    static const struct option opts[] = {
        { "json", no_argument, NULL, 'j' },
        { "worker", required_argument, NULL, 'w' },
        { "timeout", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'w': {
            int got = hw_worker_list_parse(optarg, port, addrs + n, HW_WORKER_LIST_MAX - n, err,
                                           sizeof err);
            if (got < 0) {
                fprintf(stderr, "hipwire status: --worker %s: %s\n", optarg, err);
                goto out;
            }
            n += got;
            break;
        }
        case 't': {
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*end || t < 1 || t > 600000) {
                fprintf(stderr, "hipwire status: bad --timeout '%s'\n", optarg);
                goto out;
            }
            timeout_ms = (int)t;
            break;
        }
        case 'h':
            usage(stdout);
            rc = CLI_EXIT_OK;
            goto out;
        default: usage(stderr); goto out;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hipwire status: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        goto out;
    }
    if (n == 0) {
        const char *spec = getenv("TF_WORKER_HOST");
        n = hw_worker_list_parse(spec && *spec ? spec : "127.0.0.1", port, addrs,
                                 HW_WORKER_LIST_MAX, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "hipwire status: TF_WORKER_HOST=%s: %s\n", spec, err);
            goto out;
        }
    }
    if (security_from_env(&sec, err, sizeof err) < 0) {
        fprintf(stderr, "hipwire status: %s\n", err);
        goto out;
    }
    reports = hw_calloc((size_t)n, sizeof *reports);
    if (!reports) {
        rc = CLI_EXIT_FAILURE;
        goto out;
    }
    int all_up = 1;
    for (int i = 0; i < n; i++) {
        reports[i].addr = addrs[i];
        query(&reports[i], &sec, timeout_ms);
        all_up &= reports[i].up;
    }
    if (json)
        print_json(reports, n, all_up);
    else
        print_text(reports, n);
    rc = all_up ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
out:
    for (int i = 0; reports && i < n; i++) {
        free(reports[i].devs);
        free(reports[i].sessions);
    }
    free(reports);
    free(addrs);
    hw_tls_ctx_free(sec.tls);
    hw_token_clear(&sec.token);
    return rc;
}
