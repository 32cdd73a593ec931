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
#include "session_link.h"
#include "session_res.h"
#include "status_table.h"
#include "worker.h"

struct session {
    struct sess_link link; /* the connection (session_link.h) */
    uint64_t id;
    const struct worker_config *cfg;
    struct status_table *table;
    struct status_slot *slot;
    struct wm_slot *metrics; /* this session's counters; NULL: none kept */

    const struct hw_backend_ops *ops;
    struct hw_backend *be;
    int device_count;

    /* Dead-peer detection (heartbeat.c): the thread that fills silences
     * with HEARTBEAT frames (the interval is link.heartbeat_ms). */
    /* Requests executed after HELLO, heartbeats, acknowledgements and
     * RESUME_ENABLE not counted: HEARTBEAT's seq, and where a resumed
     * client's replay starts. */
    uint64_t requests_executed;
    pthread_t hb_thread;
    int hb_running, hb_stop;
    pthread_mutex_t hb_lock;
    pthread_cond_t hb_cond;

    struct sess_res res; /* what the client holds (session_res.h) */

    /* Work accepted and not finished, bounded by --max-inflight so a flood
     * slows the client (TCP backpressure) instead of growing the worker
     * (inflight.c). */
    pthread_mutex_t stage_lock;
    pthread_cond_t stage_cond;
    uint64_t staged_bytes;

    /* Limits (quota.c, inflight.c, idle.c). */
    uint64_t uncovered_default[HIPR_CAP_DEVICES]; /* per default stream */
    uint64_t uncovered_total;                     /* all streams' charges with no checkpoint yet */
    unsigned quota_logged;                        /* quotas already reported in the log */
    uint64_t last_request_ns;                     /* the last request that counts as activity */
    int active_since_wait;                        /* such a request arrived since idle.c looked */
    struct rtc_jobs *rtc;   /* compiles in flight (rtc.c); NULL until the first */
    int value_waits_cancel; /* set at teardown: stream value waits give up */

    /* Session resume (resume.c), off until RESUME_ENABLE. While resumable
     * (link.resumable), every reply is kept until acknowledged, and a lost
     * connection detaches the session for --resume-grace instead of ending it. */
    /* The client asked for acknowledgements (resume enabled) and waits for them
     * even after the session stops being resumable (out of memory, say). */
    int acks;
    uint64_t resume_token;                /* HELLO's; a resuming client presents it */
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

void session_update_usage(struct session *s);

/* dispatch.c: handles one request whose fixed part is in `fixed`. Returns a
 * hw_status, or -1 when the session must end. See dispatch.c for who replies. */
int dispatch_request(struct session *s, const struct hipr_header *h,
                     const struct hipr_op_info *info, const uint8_t *fixed);
/* Drains every stream of the session on `device` (-1: all devices). */
int session_drain(struct session *s, int device);
/* Frees what the session holds, in dependency order. */
void session_release_all(struct session *s);

#endif
