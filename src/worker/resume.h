/*
 * resume.h - session resume (lifecycle layer, resume.c).
 */
#ifndef RESUME_H
#define RESUME_H

#include "session.h"

/* resume.c: see docs/protocol.md, "Session resume". RESUME_ENABLE: a
 * hw_status, the reply sent on success. */
int session_resume_enable(struct session *s, uint32_t request_id);
/* A session migrated in (migrate.c): listens for its client's resume as
 * RESUME_ENABLE would, without answering anything. A hw_status. */
int session_resume_adopt(struct session *s);
/* The connection failed: while resumable, waits up to --resume-grace for
 * the client to come back and rejoins it (0), else -1 (the session ends). */
int session_resume_wait(struct session *s);
/* Stops the route listener and drops what resume kept. */
void session_resume_end(struct session *s);
/* The process that accepted a connection whose first frame is
 * SESSION_ROUTE hands it on. Returns the process exit status. */
int session_route(struct hw_transport *t, const struct status_table *table, const char *peer,
                  const struct hipr_header *h);

#endif
