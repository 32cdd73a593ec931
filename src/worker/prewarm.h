/*
 * prewarm.h - session processes started ahead of their clients
 * (--prewarm N; docs/worker.md, "Prewarm").
 *
 * The supervisor keeps N processes forked, each with its device already
 * open (a GPU runtime's context: the expensive part of a session's start),
 * waiting on a socketpair made before the fork. A new connection is handed
 * to a ready one over that pair (SCM_RIGHTS), with its session id, and the
 * supervisor forks a replacement at once; the replacement starts its device
 * in the background while the supervisor goes on accepting. With no ready
 * process a connection gets a freshly forked one, as without --prewarm.
 */
#ifndef PREWARM_H
#define PREWARM_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

struct worker_config;
struct status_table;

/* In the warm process: "my device is open" (one byte), then the
 * connection and its session id; -1 when the supervisor closed the pair. */
int prewarm_ready(int sock);
int prewarm_receive(int sock, uint64_t *session_id, int *fd);
/* The supervisor's side of prewarm_receive: 0, or -1 with errno. */
int prewarm_send(int sock, int cfd, uint64_t session_id);

/* In the supervisor. */
struct prewarm_pool;
struct prewarm_pool *prewarm_pool_create(int n);
/* Forks the processes missing from the pool (one whose predecessor died
 * before it was ready is retried after a second), as long as the
 * `connections` processes serving clients and the pool together stay
 * within --max-sessions. */
void prewarm_pool_fill(struct prewarm_pool *p, const struct worker_config *cfg,
                       struct status_table *table, int lfd, int connections);
/* The pairs to watch for "ready" (at most max); then prewarm_pool_poll. */
int prewarm_pool_pollfds(struct prewarm_pool *p, struct pollfd *pfd, int max);
void prewarm_pool_poll(struct prewarm_pool *p, const struct pollfd *pfd, int n);
/* Hands cfd and its session id to a ready process: 0 with *pid, the
 * process that now serves it; -1 when none is ready. */
int prewarm_pool_handoff(struct prewarm_pool *p, int cfd, uint64_t session_id, pid_t *pid);
/* 1 when pid was one of the pool's waiting processes (now gone). */
int prewarm_pool_reaped(struct prewarm_pool *p, pid_t pid, int status);
/* In a freshly forked child: closes the supervisor's ends of the pairs. */
void prewarm_pool_close_fds(struct prewarm_pool *p);
/* Ends the waiting processes and frees the pool. */
void prewarm_pool_destroy(struct prewarm_pool *p);

#endif
