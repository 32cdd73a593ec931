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

/* The fd SIGTERM and the handshake timer shut down (the current connection). */
void session_track_fd(int fd);
/* The fd session_track_fd() last tracked (the client's TCP connection, also
 * under the shared-memory transport), or -1. */
int session_tracked_fd(void);
/* Whether the supervisor asked this session to end (SIGTERM). */
int session_terminating(void);

/* Answers WORKER_STATUS from the supervisor's status table. */
int session_send_worker_status(struct session *s, uint32_t request_id);

#endif
