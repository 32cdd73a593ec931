/*
 * migrate.c - planned migration: a live session moves to another worker at
 * the same device addresses (docs/worker.md "Migration"; wire rules in
 * docs/protocol.md "Migration").
 *
 * `hipwire drain A --to B` (WORKER_MIGRATE) or SIGTERM of a worker started
 * with --migrate-to records B in the status table and signals every session
 * process (SIGUSR1). A session that can be resumed stops reading at a
 * request boundary, waits for its device, and becomes a client of B: it
 * authenticates with the worker's own token, opens a session with HELLO flag
 * MIGRATE_IN, and sends its state as MIGRATE_STATE pieces - allocations at
 * their addresses (the backend's mem_alloc_at) and their bytes (plain
 * MEMCPY_H2D), module images under their handles, the globals the client was
 * given (the backend makes its own address and the client's one memory),
 * functions, streams and events under their handles, the replies the client
 * has not acknowledged, and at last COMMIT with the counts resume needs.
 * B's session then waits for the client as after a cut. Only when B has
 * taken everything does A send the client MIGRATE (where, and the session's
 * id there) and end; the client resumes at B with its existing resume code,
 * sending again the requests A had not executed. A refusal anywhere before
 * COMMIT's reply leaves the session at A, and the client, whose connection
 * A cuts, resumes it there.
 */
#include "migrate.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>

#include "copy_staged.h"
#include "hw_alloc.h"
#include "hw_link.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_time.h"
#include "module.h"
#include "ops.h"
#include "resume.h"
#include "rtc.h"
#include "session_main.h"

#define MIGRATE_TIMEOUT_MS    30000          /* per request to the target */
#define MIGRATE_CHUNK         (8 * HIPR_MiB) /* bytes of device memory per MEMCPY_H2D */
#define MIGRATE_CLOSE_WAIT_MS 10000          /* for the client to read MIGRATE and close */

/* ---- the worker's side: who moves ---------------------------------------------- */

uint32_t migrate_signal_sessions(struct status_table *t)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->max_sessions; i++) {
        uint32_t pid = __atomic_load_n(&t->slots[i].pid, __ATOMIC_ACQUIRE);
        if (pid && (pid_t)pid != getpid() && kill((pid_t)pid, SIGUSR1) == 0)
            n++;
    }
    return n;
}

int migrate_answer(struct session *s, const struct hipr_header *h, const uint8_t *fixed,
                   const char *host, const char *peer)
{
    struct status_table *t = s->table;
    struct hipr_worker_migrate_req req;
    struct hipr_worker_migrate_rep rep = { 0 };
    hipr_worker_migrate_req_decode(fixed, HIPR_worker_migrate_req_SIZE, &req);
    if (!*host || req.port == 0 || req.port > 65535 || req.flags != 0) {
        slink_reply(&s->link, h->opcode, h->request_id, HW_EINVAL, NULL, 0, NULL, 0);
        return 1;
    }
    /* A shared device process's sessions are threads: SIGUSR1 cannot single
     * one out, and moving one means moving its part of a shared context. */
    if (s->cfg->isolation == WORKER_ISOLATION_SHARED) {
        hw_warn("migration to %s:%u asked by %s: refused, this worker runs --isolation shared "
                "(sessions move only from --isolation process workers)",
                host, req.port, peer);
        slink_reply(&s->link, h->opcode, h->request_id, HW_ENOTSUP, NULL, 0, NULL, 0);
        return 1;
    }
    /* The target is written before anyone is told to read it. */
    snprintf(t->migrate_host, sizeof t->migrate_host, "%s", host);
    __atomic_store_n(&t->migrate_port, req.port, __ATOMIC_RELEASE);
    rep.sessions = migrate_signal_sessions(t);
    hw_info("migration to %s:%u asked by %s: %u session(s) told to move", host, req.port, peer,
            rep.sessions);
    uint8_t out[HIPR_worker_migrate_rep_SIZE];
    hipr_worker_migrate_rep_encode(out, &rep);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return 1;
}

/* ---- the source's half ------------------------------------------------------------ */

struct target {
    struct hw_transport t;
    uint32_t next_id;
    char why[512];
    uint64_t session_id; /* the target's session, from HELLO */
};

/* One request to the target; 0, or -1 with the reason in tg->why. */
static int call(struct target *tg, uint16_t op, const void *fixed, size_t fixed_len,
                const void *tail, size_t tail_len, void *body, size_t body_cap)
{
    int status = 0;
    uint8_t scratch[4096]; /* a reply's tail (HELLO's devices): not needed, the rest dropped */
    uint64_t got = 0;
    const struct hipr_op_info *info = hipr_op_lookup(op);
    const char *name = info ? info->name : "?";
    if (hw_link_call(&tg->t, op, ++tg->next_id, fixed, fixed_len, tail, tail_len, body, body_cap,
                     scratch, sizeof scratch, &got, &status) < 0) {
        snprintf(tg->why, sizeof tg->why, "%s: %s", name,
                 errno ? strerror(errno) : "the target closed the connection");
        return -1;
    }
    if (status != 0) {
        snprintf(tg->why, sizeof tg->why, "the target refused %s (status %d)", name, status);
        return -1;
    }
    return 0;
}

static int piece(struct target *tg, const struct hipr_migrate_state_req *m, const void *tail,
                 size_t tail_len, struct hipr_migrate_state_rep *rep_out)
{
    uint8_t fixed[HIPR_migrate_state_req_SIZE], body[HIPR_migrate_state_rep_SIZE];
    static const char *const kinds[] = { "?",      "ALLOC", "MODULE", "GLOBAL", "FUNCTION",
                                         "STREAM", "EVENT", "REPLY",  "COMMIT" };
    hipr_migrate_state_req_encode(fixed, m);
    if (call(tg, HIPR_OP_MIGRATE_STATE, fixed, sizeof fixed, tail, tail_len, body, sizeof body) <
        0) {
        size_t n = strlen(tg->why);
        snprintf(tg->why + n, sizeof tg->why - n, " [%s%s]",
                 m->kind < sizeof kinds / sizeof kinds[0] ? kinds[m->kind] : "?",
                 m->kind == HIPR_MIGRATE_ALLOC ? ": the range is taken there, or over its "
                                                 "--mem-limit; its log says which"
                                               : "");
        return -1;
    }
    if (rep_out)
        hipr_migrate_state_rep_decode(body, sizeof body, rep_out);
    return 0;
}

/* n bytes of device memory at src into buf, through the backend's stages
 * (memory that is not host-addressable: a GPU's). */
static int read_device(struct session *s, struct target *tg, int dev, uint64_t src, uint8_t *buf,
                       uint64_t n)
{
    struct hw_bstream *bs;
    if (!copy_staged_available(s) || s->ops->stream_default(s->be, dev, &bs) != HW_OK) {
        snprintf(tg->why, sizeof tg->why,
                 "this backend can neither address nor stage its device memory");
        return -1;
    }
    for (uint64_t off = 0; off < n;) {
        struct hw_bstage *st;
        void *sbuf;
        size_t len;
        int rc = s->ops->stage_get(s->be, n - off, &st, &sbuf, &len);
        if (rc == HW_OK) {
            rc = s->ops->stage_d2h(s->be, bs, st, src + off, len);
            if (rc == HW_OK)
                rc = s->ops->stage_wait(s->be, st);
            if (rc == HW_OK)
                memcpy(buf + off, sbuf, len);
            s->ops->stage_put(s->be, st);
        }
        if (rc != HW_OK) {
            snprintf(tg->why, sizeof tg->why, "reading device memory at 0x%llx: status %d",
                     (unsigned long long)(src + off), rc);
            return -1;
        }
        off += len;
    }
    return 0;
}

/* Device memory's bytes, as plain MEMCPY_H2D on the device's default stream. */
static int send_bytes(struct session *s, struct target *tg, int dev, uint64_t base, uint64_t size)
{
    const uint8_t *direct = ops_host_addr(s, base); /* sent from where it is */
    uint8_t *buf =
        size && !direct ? hw_malloc(size < MIGRATE_CHUNK ? (size_t)size : MIGRATE_CHUNK) : NULL;
    if (size && !direct && !buf) {
        snprintf(tg->why, sizeof tg->why, "out of memory");
        return -1;
    }
    int rc = 0;
    for (uint64_t off = 0; off < size && rc == 0; off += MIGRATE_CHUNK) {
        uint64_t n = size - off < MIGRATE_CHUNK ? size - off : MIGRATE_CHUNK;
        struct hipr_memcpy_h2d m = { .dst = base + off, .stream = (uint64_t)dev };
        uint8_t fixed[HIPR_memcpy_h2d_SIZE];
        hipr_memcpy_h2d_encode(fixed, &m);
        if (!direct)
            rc = read_device(s, tg, dev, base + off, buf, n);
        if (rc == 0)
            rc = call(tg, HIPR_OP_MEMCPY_H2D, fixed, sizeof fixed, direct ? direct + off : buf,
                      (size_t)n, NULL, 0);
    }
    free(buf);
    return rc;
}

struct reply_ctx {
    struct target *tg;
    uint64_t seq;
    int failed;
};

static int send_reply(void *ctx, const void *head, size_t head_len, const void *tail,
                      uint64_t tail_len)
{
    struct reply_ctx *r = ctx;
    uint8_t *buf = hw_malloc(head_len + (size_t)tail_len);
    if (!buf) {
        snprintf(r->tg->why, sizeof r->tg->why, "out of memory");
        return -1;
    }
    memcpy(buf, head, head_len);
    if (tail_len)
        memcpy(buf + head_len, tail, (size_t)tail_len);
    struct hipr_migrate_state_req m = { .kind = HIPR_MIGRATE_REPLY, .a = head_len, .b = ++r->seq };
    int rc = piece(r->tg, &m, buf, head_len + (size_t)tail_len, NULL);
    free(buf);
    return rc;
}

/* Everything the client holds, piece by piece; COMMIT last. */
static int send_state(struct session *s, struct target *tg)
{
    size_t pos;
    uint64_t key;
    void *v;
    const struct alloc_table *at = &s->res.allocs;
    for (size_t i = 0; i < at->len; i++) {
        const struct alloc_range *r = &at->v[i];
        if (r->kind != ALLOC_MALLOC)
            continue;
        struct hipr_migrate_state_req m = {
            .kind = HIPR_MIGRATE_ALLOC, .device = r->device, .base = r->base, .size = r->size
        };
        if (piece(tg, &m, NULL, 0, NULL) < 0 || send_bytes(s, tg, r->device, r->base, r->size) < 0)
            return -1;
    }
    for (pos = 0; handle_map_next(&s->res.modules, &pos, &key, &v);) {
        const struct s_module *mod = v;
        if (!mod->image) {
            snprintf(tg->why, sizeof tg->why, "module %llu has no image kept",
                     (unsigned long long)key);
            return -1;
        }
        struct hipr_migrate_state_req m = { .kind = HIPR_MIGRATE_MODULE,
                                            .device = mod->device,
                                            .handle = key };
        if (piece(tg, &m, mod->image, mod->image_size, NULL) < 0)
            return -1;
        for (size_t g = 0; g < mod->nglobals; g++) {
            const struct s_global *gl = &mod->globals[g];
            struct hipr_migrate_state_req q = { .kind = HIPR_MIGRATE_GLOBAL,
                                                .device = mod->device,
                                                .handle = key,
                                                .base = gl->ptr,
                                                .size = gl->size };
            if (piece(tg, &q, gl->name, strlen(gl->name), NULL) < 0 ||
                send_bytes(s, tg, mod->device, gl->ptr, gl->size) < 0)
                return -1;
        }
    }
    for (pos = 0; handle_map_next(&s->res.functions, &pos, &key, &v);) {
        const struct s_function *fn = v;
        struct hipr_migrate_state_req m = { .kind = HIPR_MIGRATE_FUNCTION,
                                            .handle = key,
                                            .a = fn->module };
        if (piece(tg, &m, fn->name, strlen(fn->name), NULL) < 0)
            return -1;
    }
    for (pos = 0; handle_map_next(&s->res.streams, &pos, &key, &v);) {
        const struct s_stream *st = v;
        struct hipr_migrate_state_req m = { .kind = HIPR_MIGRATE_STREAM,
                                            .device = st->device,
                                            .handle = key,
                                            .flags = st->flags,
                                            .priority = st->priority };
        if (piece(tg, &m, NULL, 0, NULL) < 0)
            return -1;
    }
    for (pos = 0; handle_map_next(&s->res.events, &pos, &key, &v);) {
        const struct s_event *ev = v;
        struct hipr_migrate_state_req m = {
            .kind = HIPR_MIGRATE_EVENT, .device = ev->device, .handle = key, .flags = ev->flags
        };
        if (piece(tg, &m, NULL, 0, NULL) < 0)
            return -1;
    }
    /* The replies the client may not have read, then the counts. Nothing
     * sends while the device is idle and no request is read, so the log
     * holds still; send_lock keeps it so. */
    struct sess_link *l = &s->link;
    pthread_mutex_lock(&l->send_lock);
    struct reply_ctx rc = { tg, l->replies.acked, 0 };
    struct hipr_migrate_state_req c = { .kind = HIPR_MIGRATE_COMMIT,
                                        .device = l->heartbeat_ms,
                                        .handle = s->resume_token,
                                        .base = l->replies.acked,
                                        .size = l->replies.sent,
                                        .a = s->requests_executed,
                                        .b = s->res.next_handle,
                                        .flags = (uint32_t)l->async_status };
    int ok = reply_log_has(&l->replies, l->replies.acked) &&
             reply_log_resend(&l->replies, l->replies.acked, send_reply, &rc) == 0;
    pthread_mutex_unlock(&l->send_lock);
    if (!ok)
        return -1;
    struct hipr_migrate_state_rep rep;
    if (piece(tg, &c, NULL, 0, &rep) < 0)
        return -1;
    tg->session_id = rep.session_id;
    return 0;
}

/* The client closes its connection once it has read MIGRATE. Closing ours
 * first could reset the connection (requests it sent that this side no
 * longer read are unread) and a reset can make the client look for the
 * session here before it has read where it went. So this side waits, a
 * bounded time, for the client's close (TCP_INFO: no longer ESTABLISHED;
 * its reads were shut down when the move began). */
static void await_client_close(struct session *s)
{
    int fd = session_tracked_fd();
    uint64_t deadline = hw_now_ms() + MIGRATE_CLOSE_WAIT_MS;
    while (fd >= 0 && hw_now_ms() < deadline) {
        struct tcp_info ti;
        socklen_t len = sizeof ti;
        if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
            ti.tcpi_state != TCP_ESTABLISHED)
            return;
        struct timespec ts = { 0, 5 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (fd >= 0)
        hw_debug("session %016llx: the client had not closed %d ms after MIGRATE",
                 (unsigned long long)s->id, MIGRATE_CLOSE_WAIT_MS);
}

static int open_target(struct session *s, struct target *tg, const char *host, int port)
{
    int fd;
    int e = hw_tcp_connect(host, port, MIGRATE_TIMEOUT_MS, &fd);
    if (e < 0) {
        snprintf(tg->why, sizeof tg->why, "cannot connect: %s", hw_net_strerror(e));
        return -1;
    }
    hw_tx_init_plain(&tg->t, fd);
    hw_tx_set_recv_timeout(&tg->t, MIGRATE_TIMEOUT_MS);
    static const struct hw_token none = { 0 };
    uint32_t hb = (uint32_t)s->link.heartbeat_ms;
    char why[200];
    if (hw_link_authenticate(&tg->t, s->cfg->token ? s->cfg->token : &none, 0, &hb, NULL, why,
                             sizeof why) < 0) {
        snprintf(tg->why, sizeof tg->why,
                 "authentication with the target failed (both workers need the same "
                 "--token-file): %s",
                 why);
        return -1;
    }
    tg->next_id = 2; /* hw_link_authenticate used 1 and 2 */
    struct hipr_hello_req hello = { .proto_min = HIPR_VERSION,
                                    .proto_max = HIPR_VERSION,
                                    .client_pid = (uint32_t)getpid(),
                                    .flags = HIPR_HELLO_MIGRATE_IN,
                                    .resume_token = s->resume_token };
    uint8_t fixed[HIPR_hello_req_SIZE], body[HIPR_hello_rep_SIZE];
    hipr_hello_req_encode(fixed, &hello);
    if (call(tg, HIPR_OP_HELLO, fixed, sizeof fixed, NULL, 0, body, sizeof body) < 0)
        return -1;
    struct hipr_hello_rep rep;
    hipr_hello_rep_decode(body, sizeof body, &rep);
    rep.backend[32] = '\0'; /* for the message; backend names are short */
    if (strcmp(rep.backend, s->ops->name) != 0 || (int)rep.device_count < s->device_count) {
        snprintf(tg->why, sizeof tg->why,
                 "the target runs backend %.32s with %u device(s); this session needs %s with %d",
                 rep.backend, rep.device_count, s->ops->name, s->device_count);
        return -1;
    }
    tg->session_id = rep.session_id;
    return 0;
}

int session_migrate_out(struct session *s)
{
    const struct status_table *t = s->table;
    char host[sizeof t->migrate_host];
    int port = (int)__atomic_load_n(&t->migrate_port, __ATOMIC_ACQUIRE);
    snprintf(host, sizeof host, "%s", t->migrate_host);
    struct target tg;
    memset(&tg, 0, sizeof tg);
    hw_tx_init_plain(&tg.t, -1);
    uint64_t t0 = hw_now_ms();
    int rc = -1;

    pthread_mutex_lock(&s->link.send_lock);
    int attached = s->link.resumable && !s->link.link_down;
    pthread_mutex_unlock(&s->link.send_lock);
    if (!attached || !s->resume_token) {
        snprintf(tg.why, sizeof tg.why, "%s",
                 s->link.resumable ? "its client is not connected"
                                   : "it cannot be resumed (the client did not enable resume)");
        goto out;
    }
    /* Host regions are memory the client and this worker's session share
     * (same host); the target could not map them. */
    if (ops_regions_count(s)) {
        snprintf(tg.why, sizeof tg.why,
                 "its client shares %zu host region(s) with this worker (hipHostMalloc over "
                 "shared memory), which another worker cannot map",
                 ops_regions_count(s));
        goto out;
    }
    /* Completed work only: what runs now finishes here, compiles included
     * (their replies must be in the log that moves). */
    rtc_session_wait(s);
    session_drain(s, -1);
    if (slink_settle_borrowed(&s->link) < 0) {
        snprintf(tg.why, sizeof tg.why, "out of memory keeping a reply");
        goto out;
    }
    if (!port || !*host) {
        snprintf(tg.why, sizeof tg.why, "no target");
        goto out;
    }
    if (open_target(s, &tg, host, port) < 0 || send_state(s, &tg) < 0)
        goto out;
    /* The target has the session: the client is told where it went. */
    struct hipr_migrate m = { .session_id = tg.session_id, .port = (uint32_t)port };
    snprintf(m.host, sizeof m.host, "%s", host);
    uint8_t out[HIPR_migrate_SIZE];
    hipr_migrate_encode(out, &m);
    if (slink_send_unsolicited(&s->link, HIPR_OP_MIGRATE, out, sizeof out) < 0)
        hw_warn("session %016llx: could not tell the client it moved (its connection failed); "
                "it will not find the session here",
                (unsigned long long)s->id);
    else
        await_client_close(s);
    hw_info("session %016llx: moved to %s:%d as session %016llx in %llu ms (%llu requests "
            "executed, %llu bytes of device memory)",
            (unsigned long long)s->id, host, port, (unsigned long long)tg.session_id,
            (unsigned long long)(hw_now_ms() - t0), (unsigned long long)s->requests_executed,
            (unsigned long long)s->res.allocs.malloc_bytes);
    rc = 0;
    hw_tx_shutdown(&s->link.tx); /* the client follows MIGRATE */
out:
    hw_tx_close(&tg.t); /* a target that got no COMMIT ends its half-made session */
    if (rc < 0)
        hw_warn("session %016llx: not moved to %s:%d: %s", (unsigned long long)s->id, host, port,
                tg.why);
    return rc;
}

/* ---- the target's half -------------------------------------------------------------- */

static int read_tail(struct session *s, void **out, size_t *len, int nul)
{
    uint64_t n = s->link.tail_left;
    uint8_t *buf = hw_malloc((size_t)n + 1);
    if (!buf)
        return HW_ENOMEM;
    if (n && slink_read_tail(&s->link, buf, n) < 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    if (nul && (n == 0 || strlen((char *)buf) != n)) {
        free(buf);
        return HW_EINVAL;
    }
    *out = buf;
    *len = (size_t)n;
    return HW_OK;
}

static int take_alloc(struct session *s, const struct hipr_migrate_state_req *m)
{
    if (m->device < 0 || m->device >= s->device_count)
        return HW_EDEVICE;
    if (!HW_BACKEND_HAS(s->ops, mem_alloc_at))
        return HW_ENOTSUP;
    if (s->cfg->mem_limit && m->size > s->cfg->mem_limit - s->res.allocs.malloc_bytes)
        return quota_refuse(&s->lim, QUOTA_MEMORY, "a migrated allocation of %llu bytes",
                            (unsigned long long)m->size);
    if (alloc_table_find(&s->res.allocs, m->base, m->size ? m->size : 1))
        return HW_EINVAL;
    int rc = s->ops->mem_alloc_at(s->be, m->device, m->size, m->base);
    if (rc != HW_OK) {
        hw_warn("session %016llx: cannot place a migrated allocation of %llu bytes at 0x%llx "
                "(the range is taken here)",
                (unsigned long long)s->id, (unsigned long long)m->size,
                (unsigned long long)m->base);
        return rc;
    }
    struct alloc_range ar = { m->base, m->size, m->device, ALLOC_MALLOC, 0 };
    if (alloc_table_insert(&s->res.allocs, &ar) < 0) {
        s->ops->mem_free(s->be, m->device, m->base, m->size);
        return HW_EINVAL;
    }
    session_update_usage(s);
    return HW_OK;
}

static int take_module(struct session *s, const struct hipr_migrate_state_req *m)
{
    void *image;
    size_t n;
    if (m->device < 0 || m->device >= s->device_count)
        return HW_EDEVICE;
    if (!m->handle || handle_map_get(&s->res.modules, m->handle))
        return HW_EHANDLE;
    if (s->link.tail_left > s->cfg->max_module_size)
        return HW_ERESOURCES;
    int rc = quota_handle(&s->lim, &s->res.modules, "modules");
    if (rc != HW_OK)
        return rc;
    if ((rc = read_tail(s, &image, &n, 0)) != HW_OK)
        return rc;
    struct s_module *mod = NULL;
    rc = module_load(s, m->device, image, n, &mod);
    if (rc != HW_OK) {
        free(image);
        return rc;
    }
    mod->image = image;
    mod->image_size = n;
    if (handle_map_put(&s->res.modules, m->handle, mod) < 0) {
        module_unload(s, mod);
        return HW_ENOMEM;
    }
    return HW_OK;
}

static int take_global(struct session *s, const struct hipr_migrate_state_req *m)
{
    void *name;
    size_t n;
    struct s_module *mod = handle_map_get(&s->res.modules, m->handle);
    if (!mod)
        return HW_EHANDLE;
    int rc = read_tail(s, &name, &n, 1);
    if (rc != HW_OK)
        return rc;
    rc = module_global_at(s, mod, name, m->base, m->size);
    free(name);
    if (rc != HW_OK) {
        hw_warn("session %016llx: cannot place a migrated module global at 0x%llx (status %d)",
                (unsigned long long)s->id, (unsigned long long)m->base, rc);
        return rc;
    }
    if (!alloc_table_find(&s->res.allocs, m->base, m->size)) {
        struct alloc_range ar = { m->base, m->size, mod->device, ALLOC_GLOBAL, m->handle };
        if (alloc_table_insert(&s->res.allocs, &ar) < 0)
            return HW_EINVAL;
    }
    return HW_OK;
}

static int take_function(struct session *s, const struct hipr_migrate_state_req *m)
{
    void *name;
    size_t n;
    struct s_module *mod = handle_map_get(&s->res.modules, m->a);
    if (!mod)
        return HW_EHANDLE;
    if (!m->handle || handle_map_get(&s->res.functions, m->handle))
        return HW_EHANDLE;
    int rc = quota_handle(&s->lim, &s->res.functions, "functions");
    if (rc != HW_OK)
        return rc;
    if ((rc = read_tail(s, &name, &n, 1)) != HW_OK)
        return rc;
    struct s_function *fn = hw_calloc(1, sizeof *fn);
    if (!fn) {
        free(name);
        return HW_ENOMEM;
    }
    fn->name = name;
    rc = module_function(s, mod, fn->name, fn);
    if (rc == HW_OK) {
        fn->module = m->a;
        if (handle_map_put(&s->res.functions, m->handle, fn) == 0)
            return HW_OK;
        rc = HW_ENOMEM;
    }
    free(fn->name);
    free(fn);
    return rc;
}

static int take_stream(struct session *s, const struct hipr_migrate_state_req *m)
{
    if (m->handle < HIPR_FIRST_STREAM_ID || handle_map_get(&s->res.streams, m->handle))
        return HW_EHANDLE;
    if (m->device < 0 || m->device >= s->device_count)
        return HW_EDEVICE;
    int rc = quota_stream(&s->lim);
    if (rc != HW_OK)
        return rc;
    struct s_stream *st = hw_calloc(1, sizeof *st);
    if (!st)
        return HW_ENOMEM;
    rc = s->ops->stream_create(s->be, m->device, m->flags, m->priority, &st->bs);
    if (rc != HW_OK) {
        free(st);
        return rc;
    }
    st->device = m->device;
    st->flags = m->flags;
    st->priority = m->priority;
    if (handle_map_put(&s->res.streams, m->handle, st) < 0) {
        s->ops->stream_destroy(s->be, st->bs);
        free(st);
        return HW_ENOMEM;
    }
    quota_streams_changed(&s->lim);
    return HW_OK;
}

/* The source had finished all its work, so the event stands recorded and
 * complete: it is recorded here on an idle default stream. Timings across
 * the move mean nothing (docs/worker.md). */
static int take_event(struct session *s, const struct hipr_migrate_state_req *m)
{
    if (!m->handle || handle_map_get(&s->res.events, m->handle))
        return HW_EHANDLE;
    if (m->device < 0 || m->device >= s->device_count)
        return HW_EDEVICE;
    int rc = quota_handle(&s->lim, &s->res.events, "events");
    if (rc != HW_OK)
        return rc;
    struct s_event *ev = hw_calloc(1, sizeof *ev);
    struct hw_bstream *def;
    if (!ev)
        return HW_ENOMEM;
    rc = s->ops->event_create(s->be, m->device, m->flags, &ev->be);
    if (rc != HW_OK) {
        free(ev);
        return rc;
    }
    ev->device = m->device;
    ev->flags = m->flags;
    if (s->ops->stream_default(s->be, m->device, &def) == HW_OK)
        s->ops->event_record(s->be, ev->be, def);
    if (handle_map_put(&s->res.events, m->handle, ev) < 0) {
        s->ops->event_destroy(s->be, ev->be);
        free(ev);
        return HW_ENOMEM;
    }
    return HW_OK;
}

static int take_reply(struct session *s, const struct hipr_migrate_state_req *m)
{
    void *buf;
    size_t n;
    if (m->a > s->link.tail_left || m->a < HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE)
        return HW_EINVAL;
    int rc = read_tail(s, &buf, &n, 0);
    if (rc != HW_OK)
        return rc;
    struct reply_log *log = &s->link.replies;
    pthread_mutex_lock(&s->link.send_lock);
    if (m->b != log->sent + 1) {
        if (log->first || m->b == 0) {
            pthread_mutex_unlock(&s->link.send_lock);
            free(buf);
            return HW_EINVAL; /* the replies must come in order */
        }
        log->sent = log->acked = m->b - 1;
    }
    rc = reply_log_add(log, buf, (size_t)m->a, NULL, 0, (uint8_t *)buf + m->a, n - m->a,
                       REPLY_TAIL_COPY, NULL) < 0
             ? HW_ENOMEM
             : HW_OK;
    pthread_mutex_unlock(&s->link.send_lock);
    free(buf);
    return rc;
}

static int take_commit(struct session *s, const struct hipr_header *h,
                       const struct hipr_migrate_state_req *m)
{
    struct reply_log *log = &s->link.replies;
    if (m->handle != s->resume_token || !s->resume_token)
        return HW_EINVAL;
    pthread_mutex_lock(&s->link.send_lock);
    int counts_ok = log->first ? log->sent == m->size : m->base == m->size;
    if (counts_ok && !log->first)
        log->sent = log->acked = m->size;
    pthread_mutex_unlock(&s->link.send_lock);
    if (!counts_ok || m->base > m->size)
        return HW_EINVAL;
    int rc = session_resume_adopt(s);
    if (rc != HW_OK)
        return rc;
    struct hipr_migrate_state_rep rep = { .session_id = s->id };
    uint8_t out[HIPR_migrate_state_rep_SIZE];
    hipr_migrate_state_rep_encode(out, &rep);
    /* Answered before the session counts and keeps replies: the answer is
     * the source's, not the client's. */
    if (slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0) < 0)
        return -1;
    s->requests_executed = m->a;
    if (m->b > s->res.next_handle)
        s->res.next_handle = m->b;
    if (m->flags)
        slink_async_error(&s->link, (int)m->flags);
    s->link.heartbeat_ms = m->device > 0 ? m->device : s->link.heartbeat_ms;
    slink_set_resumable(&s->link);
    s->acks = 1;
    s->migrated_in = 1;
    hw_info("session %016llx: moved here from another worker (%zu allocations, %llu requests "
            "executed); waiting for its client",
            (unsigned long long)s->id, s->res.allocs.len, (unsigned long long)m->a);
    return HW_OK;
}

int migrate_state_request(struct session *s, const struct hipr_header *h, const uint8_t *fixed)
{
    struct hipr_migrate_state_req m;
    hipr_migrate_state_req_decode(fixed, HIPR_migrate_state_req_SIZE, &m);
    if (!s->migrate_in || s->migrated_in)
        return HW_EINVAL;
    int rc;
    switch (m.kind) {
    case HIPR_MIGRATE_ALLOC: rc = take_alloc(s, &m); break;
    case HIPR_MIGRATE_MODULE: rc = take_module(s, &m); break;
    case HIPR_MIGRATE_GLOBAL: rc = take_global(s, &m); break;
    case HIPR_MIGRATE_FUNCTION: rc = take_function(s, &m); break;
    case HIPR_MIGRATE_STREAM: rc = take_stream(s, &m); break;
    case HIPR_MIGRATE_EVENT: rc = take_event(s, &m); break;
    case HIPR_MIGRATE_REPLY: rc = take_reply(s, &m); break;
    case HIPR_MIGRATE_COMMIT: return take_commit(s, h, &m); /* answers itself */
    default: rc = HW_EINVAL; break;
    }
    if (rc == HW_OK) {
        struct hipr_migrate_state_rep rep = { .session_id = s->id };
        uint8_t out[HIPR_migrate_state_rep_SIZE];
        hipr_migrate_state_rep_encode(out, &rep);
        slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    }
    return rc;
}
