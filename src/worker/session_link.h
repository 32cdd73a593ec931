/*
 * session_link.h - the bottom layer of a session: its connection to the
 * client, framed (docs/architecture.md, "Inside a session").
 *
 * It reads the request stream through a buffer and sends replies. The
 * session's main thread reads requests; backend threads finish queued work
 * and may send replies (a D2H copy's data, a synchronize's answer) when
 * that work completes, so every write to the connection goes through
 * slink_reply() and friends under send_lock. While resume is on, every
 * reply is also kept in the reply log until the client acknowledges it, and
 * a lost connection only marks the link down: replies are then kept, not
 * sent, until resume.c moves a new connection in.
 *
 * The link knows nothing above it: it takes a struct sess_link, never the
 * session, and the staging buffers it keeps replies in come from the
 * stage_bufs it is given.
 */
#ifndef SESSION_LINK_H
#define SESSION_LINK_H

#include <pthread.h>
#include <stdint.h>

#include "hipr.h"
#include "hw_transport.h"
#include "reply_log.h"
#include "stage_buf.h"

struct wm_slot;

struct sess_link {
    struct hw_transport tx;  /* the client's connection: plain TCP or TLS */
    uint64_t id;             /* the session's, for the log */
    struct wm_slot *metrics; /* bytes in and out, errors; NULL: none kept */
    struct stage_bufs *bufs; /* where kept reply data comes from and goes back */
    uint64_t resume_buffer;  /* --resume-buffer: the most the reply log keeps */

    pthread_mutex_t send_lock;
    int send_failed;
    int async_status; /* first deferred error not yet reported */

    /* The heartbeat interval agreed at AUTH_BEGIN (0: none), and when we
     * last sent anything (heartbeat.c fills silences). */
    int heartbeat_ms;
    uint64_t last_send_ms;

    uint64_t tail_left; /* unread tail bytes of the current request */
    /* Requests are read through this buffer: a burst of small fire-and-forget
     * requests costs one recv, not three per request. */
    uint8_t *rbuf;
    size_t rpos, rlen;

    /* A reply sent in pieces (slink_reply_start/more/end), under send_lock. */
    uint8_t piece_hdr[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    uint64_t piece_len, piece_at;
    void *piece_keep; /* the pieces gathered for the reply log, or NULL */

    /* Resume (resume.c turns it on): while resumable every reply is kept
     * until acknowledged, and a lost connection only sets link_down. */
    int resumable;            /* under send_lock */
    struct reply_log replies; /* under send_lock */
    int link_down;            /* under send_lock: no connection, replies are only kept */
    int read_failed;          /* the transport failed under a read (not the request) */
};

/* Before there is a connection: no transport (fd -1), nothing kept. */
void slink_init(struct sess_link *l, struct stage_bufs *bufs, uint64_t resume_buffer);
/* Allocates the read buffer. 0, or -1 out of memory. */
int slink_open(struct sess_link *l);
/* Frees the read buffer; the transport is closed by the caller. */
void slink_close(struct sess_link *l);

/* Sends a reply. tail may be NULL. Thread-safe; reports the pending async
 * error, if any, in the reply header. Returns 0 or -1 if the socket failed. */
int slink_reply(struct sess_link *l, uint16_t opcode, uint32_t request_id, int status,
                const void *body, size_t body_len, const void *tail, uint64_t tail_len);
/* The same, saying how a resumable session keeps the tail (reply_log.h);
 * with REPLY_TAIL_GIVE the buffer `owned` (from stage_buf_get on the
 * link's bufs) is the reply's from now on. */
int slink_reply_tail(struct sess_link *l, uint16_t opcode, uint32_t request_id, int status,
                     const void *body, size_t body_len, const void *tail, uint64_t tail_len,
                     enum reply_tail how, void *owned);
/* A successful reply whose tail is sent in pieces, for data that arrives
 * while it is being sent: start sends the header and holds the send lock
 * until end; more sends the next piece. start and more return -1 (lock
 * released, nothing more to call) when the socket failed. end(complete = 0)
 * after a piece could not be produced ends the session, whose reply stream
 * cannot be resynchronised. A resumable session keeps the whole reply, and
 * while its link is down the pieces are only kept. */
int slink_reply_start(struct sess_link *l, uint16_t opcode, uint32_t request_id, uint64_t tail_len);
int slink_reply_more(struct sess_link *l, const void *data, size_t len);
void slink_reply_end(struct sess_link *l, int complete);
/* An unsolicited frame (HEARTBEAT, ACK, GOING_AWAY): never kept, not sent
 * while the connection is down. */
int slink_send_unsolicited(struct sess_link *l, uint16_t opcode, const void *body, size_t body_len);
/* Records a deferred error; the next reply reports the first one. */
void slink_async_error(struct sess_link *l, int status);

/* Reads n bytes of the request stream (through the read buffer). */
int slink_read(struct sess_link *l, void *buf, uint64_t n);
/* Reads n bytes of the current request's tail. */
int slink_read_tail(struct sess_link *l, void *buf, uint64_t n);
/* Skips n bytes of the request stream. */
int slink_discard(struct sess_link *l, uint64_t n);
/* Whether a request is already buffered (the next read will not block). */
int slink_buffered(const struct sess_link *l);
/* Forgets what was buffered from a connection that is gone. */
void slink_reset_reads(struct sess_link *l);

/* Marks the connection lost (it is shut down): a resumable link then only
 * keeps replies, another one fails every send. */
void slink_lost(struct sess_link *l);
/* The same with send_lock held. */
void slink_lost_locked(struct sess_link *l);
/* Resume's use of the link, each under send_lock. set_resumable: from now
 * on every reply is kept. resume_off: nothing more is kept, and what was
 * is dropped. detach: the connection is gone (shut down); returns whether
 * the link is still resumable (its replies wait for a rejoin). */
void slink_set_resumable(struct sess_link *l);
void slink_resume_off(struct sess_link *l);
int slink_detach(struct sess_link *l);
/* The client has read the replies up to count: the log drops them. */
void slink_ack(struct sess_link *l, uint64_t count);
/* Kept replies that borrow device memory become copies (before a request
 * that could change that memory runs). 0, or -1 out of memory. */
int slink_settle_borrowed(struct sess_link *l);

/* Notes that something was just sent (for the heartbeat thread). */
void slink_note_sent(struct sess_link *l);

#endif
