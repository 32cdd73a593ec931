/*
 * session.h - one client session, living in its own process.
 *
 * The session's main thread reads requests and dispatches them; backend
 * threads finish queued work and may send replies (a D2H copy's data, a
 * synchronize's answer) when that work completes, so every write to the
 * socket goes through session_reply() under send_lock.
 */
#ifndef SESSION_H
#define SESSION_H

#include <pthread.h>
#include <stdint.h>

#include "alloc_table.h"
#include "backend.h"
#include "handle_map.h"
#include "hw_auth.h"
#include "hipr.h"
#include "hw_transport.h"
#include "reply_log.h"
#include "status_table.h"
#include "worker.h"

struct s_stream {
    struct hw_bstream *bs;
    int device;
    uint64_t uncovered; /* inflight.c: charges with no checkpoint yet */
};

struct s_event {
    struct hw_bevent *be;
    int device;
};

/* module.c: one of the two is set. */
struct s_module {
    struct hw_bmodule *bm;     /* loaded by the backend */
    struct foreign_module *fm; /* an AMD code object the device cannot run */
    int device;
};

struct s_function {
    struct hw_bfunction *bf; /* NULL in a foreign module */
    uint64_t module;
    char *name; /* a second lookup of the name returns this handle */
    struct hw_func_info info;
};

struct session {
    struct hw_transport tx; /* the client's connection: plain TCP or TLS */
    uint64_t id;
    const struct worker_config *cfg;
    struct status_table *table;
    struct status_slot *slot;
    struct wm_slot *metrics; /* this session's counters; NULL: none kept */

    const struct hw_backend_ops *ops;
    struct hw_backend *be;
    int device_count;

    pthread_mutex_t send_lock;
    int send_failed;
    int async_status; /* first deferred error not yet reported */

    /* Dead-peer detection (heartbeat.c): the interval agreed at AUTH_BEGIN
     * (0: none), when we last sent anything, and the thread that fills
     * silences with HEARTBEAT frames. */
    int heartbeat_ms;
    uint64_t last_send_ms;
    /* Requests executed after HELLO, heartbeats, acknowledgements and
     * RESUME_ENABLE not counted: HEARTBEAT's seq, and where a resumed
     * client's replay starts. */
    uint64_t requests_executed;
    pthread_t hb_thread;
    int hb_running, hb_stop;
    pthread_mutex_t hb_lock;
    pthread_cond_t hb_cond;

    struct alloc_table allocs;
    struct handle_map streams, events, modules, functions;
    uint64_t next_handle; /* worker-assigned: modules, functions */

    uint64_t tail_left; /* unread tail bytes of the current request */

    /* Requests are read through this buffer: a burst of small fire-and-forget
     * requests costs one recv, not three per request. */
    uint8_t *rbuf;
    size_t rpos, rlen;

    /* Work accepted and not finished, bounded by --max-inflight so a flood
     * slows the client (TCP backpressure) instead of growing the worker
     * (inflight.c). */
    pthread_mutex_t stage_lock;
    pthread_cond_t stage_cond;
    uint64_t staged_bytes;
    /* Large staging buffers are reused: a fresh 64 MiB malloc is an mmap
     * whose first touch page-faults, which costs more than the copy. */
    void *buf_cache[8];
    uint64_t buf_cached_bytes;

    /* Limits (quota.c, inflight.c, idle.c). */
    uint64_t uncovered_default[HIPR_CAP_DEVICES]; /* per default stream */
    uint64_t uncovered_total;                     /* all streams' charges with no checkpoint yet */
    unsigned quota_logged;                        /* quotas already reported in the log */
    uint64_t last_request_ns;                     /* the last request that counts as activity */
    int active_since_wait;                        /* such a request arrived since idle.c looked */
    struct rtc_jobs *rtc;   /* compiles in flight (rtc.c); NULL until the first */
    int value_waits_cancel; /* set at teardown: stream value waits give up */
    /* A reply sent in pieces (session_reply_start/more/end), under send_lock. */
    uint8_t piece_hdr[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    uint64_t piece_len, piece_at;
    void *piece_keep; /* the pieces gathered for the reply log, or NULL */

    /* Session resume (resume.c), off until RESUME_ENABLE. While resumable,
     * every reply is kept until acknowledged, and a lost connection
     * detaches the session for --resume-grace instead of ending it. */
    int resumable;
    /* The client asked for acknowledgements (resume enabled) and waits for them
     * even after the session stops being resumable (out of memory, say). */
    int acks;
    uint64_t resume_token;    /* HELLO's; a resuming client presents it */
    struct reply_log replies; /* under send_lock */
    int link_down;            /* under send_lock: no connection, replies are only kept */
    int read_failed;          /* the transport failed under a read (not the request) */
    uint64_t unacked_reqs, unacked_bytes; /* read since the last ACK sent unasked */
    uint64_t last_ack_ns;
    int route_fd; /* where handed-over connections arrive, or -1 */
    pthread_t route_thread;
    int route_running;
    pthread_mutex_t resume_lock;
    pthread_cond_t resume_cond;
    int route_stop; /* under resume_lock */
    int route_busy; /* routed handshakes in progress; under resume_lock */
    int next_ready; /* under resume_lock: next_tx is authenticated */
    struct hw_transport next_tx;
    struct hipr_header next_h;
    struct hipr_session_resume_req next_req;
    uint8_t next_proof[HW_AUTH_PROOF_LEN]; /* the worker's, for next_req's reply */
    char next_peer[80];
    /* TRANSPORT_SHM in progress (shm_link.c), or NULL. */
    struct shm_offer *shm_offer;
};

/* A connection before it is (or rejoins) a session: its transport, and
 * what the handshake agrees on. session: 0 on a new connection, else the
 * session a routed connection must name. heartbeat_ms: in, the session's
 * interval when resuming; out, the agreed one. */
/* The largest fixed part of a request a connection may send before it is a
 * session (AUTH_BEGIN, AUTH_PROOF, HELLO, SESSION_RESUME). */
#define LINK_FIXED_MAX 64

struct link_setup {
    struct hw_transport *tx;
    const struct worker_config *cfg;
    const char *peer;
    uint64_t session;
    int heartbeat_ms;
    /* Out, on a routed connection's SESSION_RESUME: what its proof covers. */
    struct hw_auth_transcript tr;
};

/* Runs a session on an accepted socket until the client leaves; frees
 * everything the session held. Returns the process exit status. */
int session_main(int fd, const struct worker_config *cfg, struct status_table *table,
                 uint64_t session_id);
/* A prewarmed session process (prewarm.h): opens the device, says so on
 * sock, then serves the connection the supervisor hands it. */
int session_warm_main(int sock, const struct worker_config *cfg, struct status_table *table);

/* handshake.c: TLS or plain (peeks at the first byte), then authentication
 * and the first request. link_handshake returns 0 with the accepted final
 * request (HELLO, or SESSION_RESUME on a routed connection: its header, and
 * its fixed part in final_fixed, 64 bytes), 1 after answering a status
 * query (fresh connections only; s->tx must be l->tx), -1 when the
 * connection must close. first: a header already read, or NULL. */
int link_accept(struct link_setup *l);
int link_handshake(struct link_setup *l, struct session *s, const uint8_t *first,
                   struct hipr_header *final_h, uint8_t *final_fixed);
/* A reply written straight to a connection that is not (yet) the session's. */
int link_reply(struct hw_transport *t, uint16_t opcode, uint32_t request_id, int status,
               const void *body, size_t body_len);

/* resume.c: see docs/protocol.md, "Session resume". RESUME_ENABLE: a
 * hw_status, the reply sent on success. */
int session_resume_enable(struct session *s, uint32_t request_id);
/* The connection failed: while resumable, waits up to --resume-grace for
 * the client to come back and rejoins it (0), else -1 (the session ends). */
int session_resume_wait(struct session *s);
/* Stops the route listener and drops what resume kept. */
void session_resume_end(struct session *s);
/* The process that accepted a connection whose first frame is
 * SESSION_ROUTE hands it on. Returns the process exit status. */
int session_route(struct hw_transport *t, const struct status_table *table, const char *peer,
                  const struct hipr_header *h);
/* The fd SIGTERM and the handshake timer shut down (the current connection). */
void session_track_fd(int fd);
/* Whether the supervisor asked this session to end (SIGTERM). */
int session_terminating(void);
/* shm_link.c: TRANSPORT_SHM (a hw_status, the reply sent on success),
 * and the teardown of an offer the client never took. */
int shm_link_request(struct session *s, const struct hipr_header *h, const uint8_t *fixed);
void shm_link_drop(struct session *s);
/* Marks the connection lost (it is shut down): a resumable session then
 * detaches, another one ends after the current request. */
void session_link_lost(struct session *s);
/* heartbeat.c: sends HEARTBEAT after each heartbeat_ms of silence, and
 * makes a read that hears nothing for HW_DEAD_AFTER heartbeats fail. */
#define HW_DEAD_AFTER       4
#define HW_HEARTBEAT_MIN_MS 100
#define HW_HEARTBEAT_MAX_MS 600000
int session_heartbeat_start(struct session *s);
void session_heartbeat_stop(struct session *s);
/* Applies the read and write timeouts to the current connection (again,
 * after a resume). */
void session_heartbeat_link(struct session *s);

/* Answers WORKER_STATUS from the supervisor's status table. */
int session_send_worker_status(struct session *s, uint32_t request_id);

/* Sends a reply. tail may be NULL. Thread-safe; reports the pending async
 * error, if any, in the reply header. Returns 0 or -1 if the socket failed. */
int session_reply(struct session *s, uint16_t opcode, uint32_t request_id, int status,
                  const void *body, size_t body_len, const void *tail, uint64_t tail_len);
/* The same, saying how a resumable session keeps the tail (reply_log.h);
 * with REPLY_TAIL_GIVE the buffer `owned` (from session_buf_get) is the
 * reply's from now on. */
int session_reply_tail(struct session *s, uint16_t opcode, uint32_t request_id, int status,
                       const void *body, size_t body_len, const void *tail, uint64_t tail_len,
                       enum reply_tail how, void *owned);
/* A successful reply whose tail is sent in pieces, for data that arrives
 * while it is being sent: start sends the header and holds the send lock
 * until end; more sends the next piece. start and more return -1 (lock
 * released, nothing more to call) when the socket failed. end(complete = 0)
 * after a piece could not be produced ends the session, whose reply stream
 * cannot be resynchronised. A resumable session keeps the whole reply, and
 * while its link is down the pieces are only kept. */
int session_reply_start(struct session *s, uint16_t opcode, uint32_t request_id, uint64_t tail_len);
int session_reply_more(struct session *s, const void *data, size_t len);
void session_reply_end(struct session *s, int complete);
/* An unsolicited frame (HEARTBEAT, ACK): never kept, not sent while the
 * connection is down. */
int session_send_unsolicited(struct session *s, uint16_t opcode, const void *body, size_t body_len);
void session_async_error(struct session *s, int status);
/* Reads n bytes of the current request's tail. */
int session_read_tail(struct session *s, void *buf, uint64_t n);
/* Reads n bytes of the request stream (through the read buffer). */
int session_read(struct session *s, void *buf, uint64_t n);
void session_update_usage(struct session *s);

/* Staging buffers for copies (thread-safe; put accepts NULL). */
void *session_buf_get(struct session *s, uint64_t n);
void session_buf_put(struct session *s, void *buf);
void session_buf_drop_all(struct session *s);

/* dispatch.c: handles one request whose fixed part is in `fixed`. Returns a
 * hw_status, or -1 when the session must end. See dispatch.c for who replies. */
int dispatch_request(struct session *s, const struct hipr_header *h,
                     const struct hipr_op_info *info, const uint8_t *fixed);
/* Drains every stream of the session on `device` (-1: all devices). */
int session_drain(struct session *s, int device);
/* Frees what the session holds, in dependency order. */
void session_release_all(struct session *s);

#endif
