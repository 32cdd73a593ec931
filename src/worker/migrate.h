/*
 * migrate.h - planned migration of a session to another worker (lifecycle
 * layer, migrate.c; docs/worker.md "Migration", docs/protocol.md
 * "Migration").
 */
#ifndef MIGRATE_H
#define MIGRATE_H

#include "session.h"

/* The source's half: the request loop has stopped at a request boundary
 * because a migration was asked for (session_migrate_requested()). Waits
 * for the device, sends the session's state to the worker named in the
 * status table, tells the client where its session went (MIGRATE) and
 * returns 0: the session here is over. -1: it was not moved (refused,
 * unreachable, not resumable), the client's connection untouched: the
 * caller cuts it (the client resumes here) or ends the session. */
int session_migrate_out(struct session *s);

/* The target's half: one MIGRATE_STATE request. A hw_status (an error reply
 * is left to the caller), or -1 to end the session. After COMMIT,
 * s->migrated_in is set. */
int migrate_state_request(struct session *s, const struct hipr_header *h, const uint8_t *fixed);

/* WORKER_MIGRATE, answered in place of HELLO: records the target in the
 * status table and tells every session process of the worker to move. */
int migrate_answer(struct session *s, const struct hipr_header *h, const uint8_t *fixed,
                   const char *host, const char *peer);

/* Tells every session process in the table to move (SIGUSR1); returns how
 * many were told. The target is already in the table. */
uint32_t migrate_signal_sessions(struct status_table *t);

#endif
