/*
 * idle.h - ends a session that has sent no request for --idle-timeout.
 *
 * "Activity" is any request except PING: a heartbeat proves the client is
 * alive, not that it is using what it holds, so a client that only pings
 * is still idle and its session is ended. Work still running on the
 * session's streams counts as activity: a long kernel followed by a
 * synchronize never times out. The session ends between --idle-timeout and
 * --idle-timeout + 1 s after its last activity; the worker logs one line,
 * frees everything, and closes the connection, which the client reports as
 * a lost connection at its next call.
 */
#ifndef IDLE_H
#define IDLE_H

#include "session_limits.h"

/* Notes that a request with this opcode arrived (dispatch thread). */
void idle_note_request(struct sess_limits *lm, uint16_t opcode);

/* Waits until the next request can be read. Returns 0 when one can (or the
 * socket has something to report), -1 when the session has been idle for
 * --idle-timeout and must end. Returns 0 at once when the timeout is off. */
int idle_wait_request(struct sess_limits *lm);

/* Whether any stream of the session still has work queued or running. */
int idle_work_running(struct sess_limits *lm);

#endif
