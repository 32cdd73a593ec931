/*
 * session_link.c - see session_link.h.
 */
#include "session_link.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_status.h"
#include "hw_time.h"
#include "worker_metrics.h"

#define RBUF_SIZE (64 * 1024)

static void give_back_buf(void *ctx, void *buf)
{
    stage_buf_put(ctx, buf);
}

void slink_init(struct sess_link *l, struct stage_bufs *bufs, uint64_t resume_buffer)
{
    memset(l, 0, sizeof *l);
    hw_tx_init_plain(&l->tx, -1);
    l->bufs = bufs;
    l->resume_buffer = resume_buffer;
    pthread_mutex_init(&l->send_lock, NULL);
    reply_log_init(&l->replies, give_back_buf, bufs);
}

int slink_open(struct sess_link *l)
{
    l->rbuf = hw_malloc(RBUF_SIZE);
    return l->rbuf ? 0 : -1;
}

void slink_close(struct sess_link *l)
{
    free(l->rbuf);
    l->rbuf = NULL;
}

int slink_buffered(const struct sess_link *l)
{
    return l->rpos < l->rlen;
}

void slink_reset_reads(struct sess_link *l)
{
    l->rpos = l->rlen = 0;
    l->tail_left = 0;
    l->read_failed = 0;
}

void slink_note_sent(struct sess_link *l)
{
    if (l->heartbeat_ms)
        __atomic_store_n(&l->last_send_ms, hw_now_ms(), __ATOMIC_RELAXED);
}

/* Fills a reply's header and reply header; takes the pending async error. */
static void encode_reply_header(struct sess_link *l, uint8_t *hdr, uint16_t opcode,
                                uint32_t request_id, int status, uint64_t payload_after)
{
    hipr_reply_frame_encode(hdr, opcode, request_id, status,
                            __atomic_exchange_n(&l->async_status, 0, __ATOMIC_ACQ_REL),
                            payload_after);
}

/* A write failed or the peer went away: a resumable session keeps its
 * replies and waits for the client to come back; another one stops
 * sending. Called with send_lock held. */
void slink_lost_locked(struct sess_link *l)
{
    if (l->resumable) {
        if (!l->link_down)
            hw_tx_shutdown(&l->tx); /* the request loop's read fails and detaches */
        l->link_down = 1;
    } else {
        l->send_failed = 1;
    }
}

/* A write failed (errno says why). ETIMEDOUT: the client has read nothing
 * for the send timeout (session_heartbeat_link), with its receive window
 * full: a client that stops reading must not hold the session, or a resume
 * behind it, for ever. */
static void write_failed_locked(struct sess_link *l)
{
    if (errno == ETIMEDOUT && !l->link_down)
        hw_warn("session %016llx: the client read nothing for %d ms while a reply waited to be "
                "sent; its connection is treated as lost",
                (unsigned long long)l->id, l->tx.send_timeout_ms);
    slink_lost_locked(l);
}

void slink_lost(struct sess_link *l)
{
    pthread_mutex_lock(&l->send_lock);
    slink_lost_locked(l);
    pthread_mutex_unlock(&l->send_lock);
}

/* Past this point a cut ends the session: what the client has not
 * acknowledged can no longer be re-sent exactly. Called with send_lock held. */
static void stop_resume_locked(struct sess_link *l, const char *why)
{
    hw_warn("session %016llx: %llu bytes of replies the client has not acknowledged (%s): the "
            "session can no longer be resumed after a cut",
            (unsigned long long)l->id, (unsigned long long)l->replies.bytes, why);
    reply_log_clear(&l->replies);
    l->resumable = 0;
    if (l->link_down)
        l->send_failed = 1; /* nobody will come back for what was kept */
}

/* Keeps a reply for resume; past --resume-buffer the session stops being
 * resumable rather than grow. 1 when kept: with REPLY_TAIL_GIVE the log owns
 * `owned` from then on. 0 when not: the caller still owns it, and the tail
 * is still there to send. Called with send_lock held. */
static int keep_reply_locked(struct sess_link *l, const uint8_t *hdr, size_t hdr_len,
                             const void *body, size_t body_len, const void *tail, uint64_t tail_len,
                             enum reply_tail how, void *owned)
{
    if (l->replies.bytes + hdr_len + body_len + tail_len > l->resume_buffer) {
        stop_resume_locked(l, "over --resume-buffer");
        return 0;
    }
    if (reply_log_add(&l->replies, hdr, hdr_len, body, body_len, tail, tail_len, how, owned) < 0) {
        stop_resume_locked(l, "out of memory");
        return 0;
    }
    return 1;
}

int slink_reply_tail(struct sess_link *l, uint16_t opcode, uint32_t request_id, int status,
                     const void *body, size_t body_len, const void *tail, uint64_t tail_len,
                     enum reply_tail how, void *owned)
{
    uint8_t hdr[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    int rc = 0, kept = 0;

    pthread_mutex_lock(&l->send_lock);
    if (l->send_failed) {
        rc = -1;
        goto out;
    }
    encode_reply_header(l, hdr, opcode, request_id, status, body_len + tail_len);
    if (status != HW_OK && l->metrics) {
        const struct hipr_op_info *op = hipr_op_lookup(opcode);
        if (op)
            wm_error(l->metrics, (size_t)(op - hipr_op_at(0)));
    }
    if (l->resumable) {
        kept = keep_reply_locked(l, hdr, sizeof hdr, body, body_len, tail, tail_len, how, owned);
    }
    if (l->link_down) {
        rc = l->send_failed ? -1 : 0;
        goto out;
    }
    struct iovec iov[3] = {
        { hdr, sizeof hdr },
        { (void *)body, body_len },
        { (void *)tail, (size_t)tail_len },
    };
    if (hw_tx_writev_full(&l->tx, iov, 3) < 0) {
        write_failed_locked(l);
        rc = l->send_failed ? -1 : 0;
    } else {
        wm_add(l->metrics, WM_bytes_out, sizeof hdr + body_len + tail_len);
        if (l->heartbeat_ms)
            __atomic_store_n(&l->last_send_ms, hw_now_ms(), __ATOMIC_RELAXED);
    }
out:
    pthread_mutex_unlock(&l->send_lock);
    if (how == REPLY_TAIL_GIVE && !kept && owned)
        stage_buf_put(l->bufs, owned);
    return rc;
}

int slink_reply(struct sess_link *l, uint16_t opcode, uint32_t request_id, int status,
                const void *body, size_t body_len, const void *tail, uint64_t tail_len)
{
    return slink_reply_tail(l, opcode, request_id, status, body, body_len, tail, tail_len,
                            REPLY_TAIL_COPY, NULL);
}

int slink_send_unsolicited(struct sess_link *l, uint16_t opcode, const void *body, size_t body_len)
{
    uint8_t hdr[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    int rc = 0;
    pthread_mutex_lock(&l->send_lock);
    if (l->send_failed || l->link_down) {
        rc = -1;
        goto out;
    }
    /* A resumable session reports deferred errors in kept replies only:
     * a frame that is never re-sent must not carry one. */
    int async = l->resumable ? 0 : __atomic_exchange_n(&l->async_status, 0, __ATOMIC_ACQ_REL);
    hipr_reply_frame_encode(hdr, opcode, 0, HW_OK, async, body_len);
    struct iovec iov[2] = { { hdr, sizeof hdr }, { (void *)body, body_len } };
    if (hw_tx_writev_full(&l->tx, iov, 2) < 0) {
        write_failed_locked(l);
        rc = -1;
    } else {
        wm_add(l->metrics, WM_bytes_out, sizeof hdr + body_len);
        if (l->heartbeat_ms)
            __atomic_store_n(&l->last_send_ms, hw_now_ms(), __ATOMIC_RELAXED);
    }
out:
    pthread_mutex_unlock(&l->send_lock);
    return rc;
}

/* A reply sent in pieces (staged D2H). A resumable session keeps it like
 * any other: the pieces are gathered into one buffer of the session's,
 * which the reply log takes at the end; the send lock is held from start
 * to end, so the log keeps replies in the order they were sent. While the
 * link is down the pieces are only gathered. */
static void piece_release_locked(struct sess_link *l)
{
    if (l->piece_keep)
        stage_buf_put(l->bufs, l->piece_keep);
    l->piece_keep = NULL;
}

/* Sends one piece unless the link is down. 0 while the reply goes on (the
 * link may have been lost for a resumable session, which keeps gathering),
 * -1 when the session can send no more. */
static int piece_send_locked(struct sess_link *l, const void *data, size_t len)
{
    if (l->link_down)
        return 0;
    struct iovec iov = { (void *)data, len };
    if (hw_tx_writev_full(&l->tx, &iov, 1) == 0) {
        wm_add(l->metrics, WM_bytes_out, len);
        return 0;
    }
    write_failed_locked(l);
    return l->send_failed ? -1 : 0;
}

int slink_reply_start(struct sess_link *l, uint16_t opcode, uint32_t request_id, uint64_t tail_len)
{
    pthread_mutex_lock(&l->send_lock);
    if (l->send_failed)
        goto fail;
    encode_reply_header(l, l->piece_hdr, opcode, request_id, HW_OK, tail_len);
    l->piece_len = tail_len;
    l->piece_at = 0;
    l->piece_keep = NULL;
    if (l->resumable && !(l->piece_keep = stage_buf_get(l->bufs, tail_len))) {
        stop_resume_locked(l, "out of memory");
        if (l->send_failed)
            goto fail;
    }
    if (piece_send_locked(l, l->piece_hdr, sizeof l->piece_hdr) == 0)
        return 0;
fail:
    piece_release_locked(l);
    pthread_mutex_unlock(&l->send_lock);
    return -1;
}

int slink_reply_more(struct sess_link *l, const void *data, size_t len)
{
    if (l->piece_keep) {
        if (len > l->piece_len - l->piece_at)
            goto fail; /* more than the header promised: a caller bug */
        memcpy((uint8_t *)l->piece_keep + l->piece_at, data, len);
    }
    l->piece_at += len;
    if (piece_send_locked(l, data, len) == 0)
        return 0;
fail:
    l->send_failed = 1;
    piece_release_locked(l);
    pthread_mutex_unlock(&l->send_lock);
    return -1;
}

void slink_reply_end(struct sess_link *l, int complete)
{
    if (!complete) {
        /* The header promised bytes that will never come: the stream is
         * out of step for good, so the session ends (and cannot resume). */
        l->resumable = 0;
        l->send_failed = 1;
        hw_tx_shutdown(&l->tx);
        piece_release_locked(l);
    } else {
        if (l->piece_keep) {
            void *buf = l->piece_keep;
            l->piece_keep = NULL;
            keep_reply_locked(l, l->piece_hdr, sizeof l->piece_hdr, NULL, 0, buf, l->piece_len,
                              REPLY_TAIL_GIVE, buf); /* the log owns buf now, or freed it */
        }
        if (l->heartbeat_ms && !l->link_down)
            __atomic_store_n(&l->last_send_ms, hw_now_ms(), __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&l->send_lock);
}

void slink_async_error(struct sess_link *l, int status)
{
    int expected = 0;
    wm_add(l->metrics, WM_async_errors, 1);
    /* HIP reports the first asynchronous error; later ones are its echoes. */
    __atomic_compare_exchange_n(&l->async_status, &expected, status, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

int slink_read(struct sess_link *l, void *buf, uint64_t n)
{
    uint8_t *out = buf;
    size_t have = l->rlen - l->rpos;
    size_t take = n < have ? (size_t)n : have;
    memcpy(out, l->rbuf + l->rpos, take);
    l->rpos += take;
    out += take;
    n -= take;
    if (n == 0)
        return 0;
    /* Large reads go straight to their destination (device memory, say). */
    if (n >= RBUF_SIZE / 2) {
        if (hw_tx_read_full(&l->tx, out, (size_t)n) < 0) {
            l->read_failed = 1;
            return -1;
        }
        return 0;
    }
    l->rpos = l->rlen = 0;
    while (l->rlen < n) {
        ssize_t r = hw_tx_recv(&l->tx, l->rbuf + l->rlen, RBUF_SIZE - l->rlen);
        if (r <= 0) {
            l->read_failed = 1;
            return -1;
        }
        l->rlen += (size_t)r;
    }
    memcpy(out, l->rbuf, (size_t)n);
    l->rpos = (size_t)n;
    return 0;
}

int slink_discard(struct sess_link *l, uint64_t n)
{
    uint8_t sink[4096];
    while (n > 0) {
        size_t chunk = n < sizeof sink ? (size_t)n : sizeof sink;
        if (slink_read(l, sink, chunk) < 0)
            return -1;
        n -= chunk;
    }
    return 0;
}

int slink_read_tail(struct sess_link *l, void *buf, uint64_t n)
{
    if (n > l->tail_left)
        return -1;
    if (slink_read(l, buf, n) < 0)
        return -1;
    l->tail_left -= n;
    return 0;
}

void slink_set_resumable(struct sess_link *l)
{
    pthread_mutex_lock(&l->send_lock);
    l->resumable = 1;
    pthread_mutex_unlock(&l->send_lock);
}

void slink_resume_off(struct sess_link *l)
{
    pthread_mutex_lock(&l->send_lock);
    l->resumable = 0;
    reply_log_clear(&l->replies);
    pthread_mutex_unlock(&l->send_lock);
}

int slink_detach(struct sess_link *l)
{
    pthread_mutex_lock(&l->send_lock);
    l->link_down = 1;
    hw_tx_shutdown(&l->tx);
    int still = l->resumable;
    pthread_mutex_unlock(&l->send_lock);
    return still;
}

void slink_ack(struct sess_link *l, uint64_t count)
{
    pthread_mutex_lock(&l->send_lock);
    reply_log_ack(&l->replies, count); /* empty once no longer resumable */
    pthread_mutex_unlock(&l->send_lock);
}

int slink_settle_borrowed(struct sess_link *l)
{
    int rc = 0;
    pthread_mutex_lock(&l->send_lock);
    if (l->replies.borrowed && reply_log_snapshot(&l->replies) < 0)
        rc = -1;
    pthread_mutex_unlock(&l->send_lock);
    return rc;
}
