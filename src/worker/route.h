/*
 * route.h - handing a resuming client's connection to its session process.
 *
 * A session lives in its own process (GPU contexts do not survive fork),
 * but a reconnecting client reaches the supervisor, which forks a fresh
 * process for every connection. TLS state cannot move between processes,
 * so the client first names its session in plain text (SESSION_ROUTE), and
 * that fresh process passes the raw socket (SCM_RIGHTS) to the session's
 * process, which then runs TLS, authentication and SESSION_RESUME itself.
 *
 * Each resumable session listens on an abstract unix socket named after
 * the supervisor's pid and the session id. It accepts a socket only from a
 * process of its own user whose parent is its own parent (another session
 * process of the same worker).
 */
#ifndef ROUTE_H
#define ROUTE_H

#include <stdint.h>
#include <sys/types.h>

/* The session's listening socket (non-blocking, close-on-exec). 0, or -1. */
int route_listen(uint64_t session_id, int *fd_out);

/* Called in the process that accepted the client's connection: hands
 * conn_fd, whose SESSION_ROUTE request had request_id, to the session's
 * process, session_pid, and to no other listener. 0, or -1 with errno
 * (ENOENT: no such session; EPERM: another process holds the name). */
int route_send(uint64_t session_id, pid_t session_pid, int conn_fd, uint32_t request_id);

/* Takes one handed-over connection from the listening socket: the client's
 * socket and the request_id of its SESSION_ROUTE. 0, -1 (nothing valid
 * arrived; errno EAGAIN when nothing was waiting). */
int route_accept(int listen_fd, uint64_t session_id, int *conn_fd_out, uint32_t *request_id_out);

#endif
