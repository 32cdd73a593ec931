/*
 * session.h - one client session, living in its own process: the
 * aggregate of its layers (docs/architecture.md, "Inside a session").
 *
 * Bottom to top: the link (session_link.h: the connection, framing,
 * replies), the resources (session_res.h: handles, allocations, staging
 * buffers), the limits (session_limits.h; inflight.h, quota.h, idle.h),
 * the operations (ops.h, dispatch.h), and the lifecycle (handshake.h,
 * resume.h, heartbeat.h, session_main.h). Each layer calls only the ones
 * below it. The link, the resources and the limits take their own structs,
 * never this one. This header declares no functions: each module's are in
 * its own header.
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
#include "session_limits.h"
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

    struct sess_limits lim; /* what bounds the session (session_limits.h) */
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
    /* Planned migration (migrate.c). migrate_in: HELLO said the session is
     * another worker's, arriving by MIGRATE_STATE; migrated_in: its COMMIT
     * came (1: the request loop lets the source's connection go and the
     * session waits for its client to resume it; 2: done). */
    int migrate_in, migrated_in;
    /* TRANSPORT_SHM in progress (shm_link.c), or NULL. */
    struct shm_offer *shm_offer;

    /* Ending from outside (session.c): the worker stopping, the handshake
     * deadline. A session process has them from its signals; a session on
     * a thread of a shared device process (--isolation shared,
     * shared_host.c) from that process's main thread, under term_lock, so
     * a shutdown never reaches a descriptor number the session has closed. */
    pthread_mutex_t term_lock;
    int track_fd;            /* the connection to shut down; -1: none */
    int term;                /* atomic: the worker is stopping */
    int hs_expired;          /* atomic: --handshake-timeout passed */
    uint64_t hs_deadline_ms; /* under term_lock: shared mode's deadline; 0: none */
    /* The hand-over connection, kept once the session runs on shared memory:
     * host regions' fds travel on it (host_region.c); -1: none. */
    int shm_side_fd;
    /* The client's shared host memory this session mapped (host_region.c). */
    struct host_regions *regions;
};

#endif
