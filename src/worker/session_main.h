/*
 * session_main.h - a session process from its first byte to its end: the top
 * of a session's layers (session.c; docs/architecture.md, "Inside a session").
 */
#ifndef SESSION_MAIN_H
#define SESSION_MAIN_H

#include <stdint.h>

#include "session.h"

/* Runs a session on an accepted socket until the client leaves; frees
 * everything the session held. Returns the process exit status. */
int session_main(int fd, const struct worker_config *cfg, struct status_table *table,
                 uint64_t session_id);
/* A prewarmed session process (prewarm.h): opens the device, says so on
 * sock, then serves the connection the supervisor hands it. */
int session_warm_main(int sock, const struct worker_config *cfg, struct status_table *table);

/* The connection SIGTERM and the handshake deadline shut down (-1: none
 * now, as while a resume swaps connections). */
void session_track_fd(struct session *s, int fd);
/* The fd a session process's session_track_fd() last tracked (the client's
 * TCP connection, also under the shared-memory transport), or -1; process
 * isolation only (migrate.c). */
int session_tracked_fd(void);
/* Whether the worker asked this session to end (SIGTERM, or
 * session_stop in a shared device process). */
int session_terminating(struct session *s);

/* A session on a thread of the shared device process (--isolation shared;
 * shared_host.c). session_new: NULL when out of memory. session_serve_thread
 * runs it to its end and frees everything it held but s itself, which
 * session_free frees. session_stop: the worker is stopping (what SIGTERM is
 * to a session process). session_check_deadline: ends the handshake of a
 * session whose --handshake-timeout has passed; returns whether a deadline
 * is still pending. */
struct session *session_new(const struct worker_config *cfg, struct status_table *table);
int session_serve_thread(struct session *s, int fd, uint64_t session_id);
void session_free(struct session *s);
void session_stop(struct session *s);
int session_check_deadline(struct session *s, uint64_t now_ms);
/* The shared device process's own hold on the devices, so their contexts
 * outlive any one session (and the first session finds them started):
 * opens the configured backend; close with session_device_release. */
int session_device_hold(const struct worker_config *cfg, const struct hw_backend_ops **ops,
                        struct hw_backend **be);
void session_device_release(const struct hw_backend_ops *ops, struct hw_backend *be);

/* Answers WORKER_STATUS from the supervisor's status table. */
int session_send_worker_status(struct session *s, uint32_t request_id);

#endif
