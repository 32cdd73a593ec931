/*
 * shm_link.c - the proxy's side of TRANSPORT_SHM (docs/protocol.md,
 * "Shared-memory transport"): right after HELLO, a client on the worker's
 * host moves the session's byte stream into shared-memory rings.
 *
 * TF_TRANSPORT=auto (the default) uses them when the worker offers them
 * (same boot id, --shm-dir reachable) and stays on TCP otherwise;
 * TF_TRANSPORT=shm fails the connection instead; TF_TRANSPORT=tcp never
 * asks. TF_SHM_DIR: where this container sees the worker's --shm-dir, when
 * it is mounted elsewhere. A resumed session runs on TCP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "hw_link.h"
#include "hw_log.h"
#include "hw_shm.h"

#if HW_HAVE_SHM
#include <unistd.h>

#define SHM_REQ_ID       5 /* set-up ids: authentication 1 and 2, HELLO 3, RESUME_ENABLE 4 */
#define HANDOVER_WAIT_MS 2000

/* One TRANSPORT_SHM step: 0 with *status, -1 when the link failed. */
static int step(struct hw_conn *c, uint32_t op, const struct hipr_transport_shm_req *base,
                struct hipr_transport_shm_rep *rep, int *status)
{
    struct hipr_transport_shm_req q = *base;
    uint8_t fixed[HIPR_transport_shm_req_SIZE], body[HIPR_transport_shm_rep_SIZE];
    q.op = op;
    hipr_transport_shm_req_encode(fixed, &q);
    *status = -1;
    if (hw_link_call(&c->tx, HIPR_OP_TRANSPORT_SHM, SHM_REQ_ID, fixed, sizeof fixed, NULL, 0, body,
                     sizeof body, NULL, 0, NULL, status) < 0)
        return -1;
    if (*status == 0 && rep)
        hipr_transport_shm_rep_decode(body, sizeof body, rep);
    return 0;
}

/* 0: the session runs on the rings; 1: it stays on TCP (why says why);
 * -1: the connection failed. */
static int try_shm(struct hw_conn *c, char *why, size_t why_len)
{
    struct hipr_transport_shm_req q;
    struct hipr_transport_shm_rep rep;
    char path[512];
    int status;
    memset(&q, 0, sizeof q);
    if (c->shm_side_fd >= 0) { /* an earlier set-up attempt's */
        close(c->shm_side_fd);
        c->shm_side_fd = -1;
    }
    if (hw_shm_boot_id(q.boot_id) < 0) {
        snprintf(why, why_len, "this host's boot id is unreadable");
        return 1;
    }
    if (step(c, HIPR_SHM_OFFER, &q, &rep, &status) < 0)
        return -1;
    if (status != 0) {
        snprintf(why, why_len,
                 "the worker does not offer it (another host, --no-shm, or an older worker; "
                 "status %d)",
                 status);
        return 1;
    }
    rep.path[sizeof rep.path - 1] = '\0';
    const char *dir = getenv("TF_SHM_DIR");
    const char *base = strrchr(rep.path, '/');
    if (dir && *dir && base)
        snprintf(path, sizeof path, "%s%s", dir, base);
    else
        snprintf(path, sizeof path, "%s", rep.path);
    int sock = hw_shm_dial(path, rep.nonce, why, why_len);
    if (sock < 0) {
        size_t n = strlen(why);
        snprintf(why + n, why_len - n, " at %.200s: is the worker's --shm-dir shared?", path);
        return step(c, HIPR_SHM_DECLINE, &q, NULL, &status) < 0 ? -1 : 1;
    }
    if (step(c, HIPR_SHM_HANDOVER, &q, NULL, &status) < 0) {
        close(sock);
        return -1;
    }
    if (status != 0) {
        close(sock);
        snprintf(why, why_len, "the worker could not hand the region over (status %d)", status);
        return 1;
    }
    int memfd = hw_shm_take_fd(sock, HANDOVER_WAIT_MS, why, why_len);
    struct hw_shm_link *l = NULL;
    if (memfd >= 0) {
        l = hw_shm_map(memfd, rep.ring_size, rep.nonce, why, why_len);
        close(memfd);
    }
    if (!l) {
        close(sock);
        return step(c, HIPR_SHM_DECLINE, &q, NULL, &status) < 0 ? -1 : 1;
    }
    if (step(c, HIPR_SHM_COMMIT, &q, NULL, &status) < 0 || status != 0) {
        close(sock);
        hw_shm_free(l);
        if (status == -1)
            return -1;
        snprintf(why, why_len, "the worker refused the switch (status %d)", status);
        return 1;
    }
    hw_tx_attach_shm(&c->tx, l);
    /* The hand-over connection stays: hipHostMalloc's shared regions come
     * on it (host_region.c). */
    c->shm_side_fd = sock;
    return 0;
}

int hw_shm_negotiate(struct hw_conn *c, char *why, size_t why_len)
{
    const char *mode = getenv("TF_TRANSPORT");
    int required = 0;
    char reason[400] = "";
    if (!mode || !*mode || strcmp(mode, "auto") == 0) {
        required = 0;
    } else if (strcmp(mode, "tcp") == 0) {
        hw_debug("transport: %s (TF_TRANSPORT=tcp)", hw_tx_kind(&c->tx));
        return 0;
    } else if (strcmp(mode, "shm") == 0) {
        required = 1;
    } else {
        snprintf(why, why_len, "TF_TRANSPORT=%s: expected auto, shm or tcp", mode);
        return -1;
    }
    int r = try_shm(c, reason, sizeof reason);
    if (r == 0) {
        hw_debug("transport: shared memory (two %llu KiB rings; TCP kept for liveness)",
                 (unsigned long long)(hw_shm_ring_size(c->tx.shm) >> 10));
        return 0;
    }
    if (r < 0) {
        snprintf(why, why_len, "connection lost while setting up shared memory");
        return -1;
    }
    if (required) {
        snprintf(why, why_len, "TF_TRANSPORT=shm: no shared memory: %s", reason);
        return -1;
    }
    hw_debug("transport: %s (no shared memory: %s)", hw_tx_kind(&c->tx), reason);
    return 0;
}

#else /* Windows: TCP only */

int hw_shm_negotiate(struct hw_conn *c, char *why, size_t why_len)
{
    const char *mode = getenv("TF_TRANSPORT");
    if (mode && strcmp(mode, "shm") == 0) {
        snprintf(why, why_len, "TF_TRANSPORT=shm: not available in this client");
        return -1;
    }
    (void)c;
    return 0;
}

#endif
