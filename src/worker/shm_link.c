/*
 * shm_link.c - TRANSPORT_SHM: the worker's side of the same-host
 * shared-memory transport (docs/protocol.md, "Shared-memory transport").
 *
 * OFFER creates a sealed region and a hand-over socket in --shm-dir;
 * HANDOVER gives the region to the connection that presents the offer's
 * nonce and removes the socket's name; COMMIT answers on TCP and switches
 * the session's transport to the rings under the send lock, so no reply
 * can go out on the old path afterwards. The TCP connection stays open:
 * its end is how either side learns that the other is gone. Only a fresh
 * session may switch (before RESUME_ENABLE): a resumed one stays on TCP.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_shm.h"
#include "session.h"
#include "shm_link.h"

#define HANDOVER_TIMEOUT_MS 2000

struct shm_offer {
    struct hw_shm_link *link;
    int memfd; /* until handed over */
    int lfd;   /* the hand-over socket, until used */
    int side;  /* the hand-over connection, kept for host regions */
    int handed;
    uint8_t nonce[HW_SHM_NONCE_LEN];
    char path[256];
};

static void close_socket(struct shm_offer *o)
{
    if (o->lfd >= 0) {
        close(o->lfd);
        unlink(o->path);
        o->lfd = -1;
    }
}

void shm_link_drop(struct session *s)
{
    struct shm_offer *o = s->shm_offer;
    if (!o)
        return;
    close_socket(o);
    if (o->memfd >= 0)
        close(o->memfd);
    if (o->side >= 0)
        close(o->side);
    hw_shm_free(o->link);
    hw_free(o);
    s->shm_offer = NULL;
}

static int reply(struct session *s, const struct hipr_header *h,
                 const struct hipr_transport_shm_rep *r)
{
    uint8_t out[HIPR_transport_shm_rep_SIZE];
    hipr_transport_shm_rep_encode(out, r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

static int offer(struct session *s, const struct hipr_header *h,
                 const struct hipr_transport_shm_req *q)
{
    struct hipr_transport_shm_rep r;
    char why[160] = "";
    memset(&r, 0, sizeof r);
    shm_link_drop(s);
    if (s->cfg->no_shm) {
        hw_debug("session %016llx: shared memory refused (--no-shm)", (unsigned long long)s->id);
        return HW_ENOTSUP;
    }
    if (hw_tx_is_shm(&s->link.tx) || s->link.resumable)
        return HW_EINVAL;
    if (hw_shm_boot_id(r.boot_id) < 0 || memcmp(r.boot_id, q->boot_id, sizeof r.boot_id) != 0) {
        hw_debug("session %016llx: shared memory refused: the client runs on another host",
                 (unsigned long long)s->id);
        return HW_ENOTSUP;
    }
    uint64_t ring =
        q->ring_size && hw_shm_region_size(q->ring_size) ? q->ring_size : s->cfg->shm_ring;
    struct shm_offer *o = hw_calloc(1, sizeof *o);
    if (!o)
        return HW_ENOMEM;
    o->memfd = o->lfd = o->side = -1;
    s->shm_offer = o;
    o->link = hw_shm_create(ring, o->nonce, &o->memfd, why, sizeof why);
    if (o->link)
        o->lfd = hw_shm_listen(s->cfg->shm_dir, s->id, o->path, sizeof o->path, why, sizeof why);
    if (!o->link || o->lfd < 0) {
        hw_info("session %016llx: no shared-memory transport: %s", (unsigned long long)s->id, why);
        shm_link_drop(s);
        return HW_ENOTSUP;
    }
    r.op = HIPR_SHM_OFFER;
    r.ring_size = ring;
    memcpy(r.nonce, o->nonce, sizeof r.nonce);
    memcpy(r.path, o->path, sizeof r.path < sizeof o->path ? sizeof r.path : sizeof o->path);
    return reply(s, h, &r);
}

static int handover(struct session *s, const struct hipr_header *h)
{
    struct shm_offer *o = s->shm_offer;
    char why[160] = "";
    if (!o || o->handed)
        return HW_EINVAL;
    int rc =
        hw_shm_give_fd(o->lfd, o->memfd, o->nonce, HANDOVER_TIMEOUT_MS, &o->side, why, sizeof why);
    close_socket(o); /* one try: nobody else may come for it */
    if (rc < 0) {
        hw_warn("session %016llx: shared-memory hand-over failed: %s", (unsigned long long)s->id,
                why);
        shm_link_drop(s);
        return HW_EINVAL;
    }
    close(o->memfd);
    o->memfd = -1;
    o->handed = 1;
    struct hipr_transport_shm_rep r;
    memset(&r, 0, sizeof r);
    r.op = HIPR_SHM_HANDOVER;
    r.ring_size = hw_shm_ring_size(o->link);
    return reply(s, h, &r);
}

static int commit(struct session *s, const struct hipr_header *h)
{
    struct shm_offer *o = s->shm_offer;
    /* Nothing may follow COMMIT on the socket: the client waits for the
     * reply before it writes to the ring. */
    if (!o || !o->handed || slink_buffered(&s->link) || s->link.resumable)
        return HW_EINVAL;
    struct hipr_transport_shm_rep r;
    memset(&r, 0, sizeof r);
    r.op = HIPR_SHM_COMMIT;
    r.ring_size = hw_shm_ring_size(o->link);
    uint8_t frame[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE + HIPR_transport_shm_rep_SIZE];
    hipr_transport_shm_rep_encode(frame + HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE, &r);
    int rc = 0;
    pthread_mutex_lock(&s->link.send_lock);
    hipr_reply_frame_encode(frame, h->opcode, h->request_id, HW_OK,
                            __atomic_exchange_n(&s->link.async_status, 0, __ATOMIC_ACQ_REL),
                            HIPR_transport_shm_rep_SIZE);
    if (s->link.send_failed || s->link.link_down ||
        hw_tx_write_full(&s->link.tx, frame, sizeof frame) < 0) {
        rc = -1;
    } else {
        hw_tx_attach_shm(&s->link.tx, o->link);
        o->link = NULL;
        /* Host regions (HOST_REGION) travel on the hand-over connection. */
        if (s->shm_side_fd >= 0)
            close(s->shm_side_fd);
        s->shm_side_fd = o->side;
        o->side = -1;
    }
    pthread_mutex_unlock(&s->link.send_lock);
    uint64_t ring = r.ring_size;
    shm_link_drop(s);
    if (rc < 0)
        return -1;
    hw_info("session %016llx: shared-memory transport (two %llu KiB rings)",
            (unsigned long long)s->id, (unsigned long long)(ring >> 10));
    return HW_OK;
}

int shm_link_request(struct session *s, const struct hipr_header *h, const uint8_t *fixed)
{
    struct hipr_transport_shm_req q;
    hipr_transport_shm_req_decode(fixed, HIPR_transport_shm_req_SIZE, &q);
    switch (q.op) {
    case HIPR_SHM_OFFER: return offer(s, h, &q);
    case HIPR_SHM_HANDOVER: return handover(s, h);
    case HIPR_SHM_COMMIT: return commit(s, h);
    case HIPR_SHM_DECLINE: {
        shm_link_drop(s);
        struct hipr_transport_shm_rep r;
        memset(&r, 0, sizeof r);
        r.op = HIPR_SHM_DECLINE;
        return reply(s, h, &r);
    }
    default: return HW_EINVAL;
    }
}
