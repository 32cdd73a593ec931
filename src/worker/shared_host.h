/*
 * shared_host.h - the device process of --isolation shared (docs/worker.md,
 * "Isolation modes").
 *
 * One process per worker opens the devices once and keeps them open (with
 * CUDA: one primary context per GPU, which every session's backend in the
 * process retains). The supervisor hands it each new connection with its
 * session id over a socketpair (SCM_RIGHTS, as prewarm.h does), and it
 * runs the connection on a thread of its own: a session costs its tables,
 * buffers, streams and allocations, not a process and a device context.
 *
 * The process tells the supervisor on the same pair that its devices are
 * open (one byte) and, for each connection that has ended, its session id
 * (8 bytes): the supervisor counts connections that way, as it counts
 * session processes by reaping them. When the process dies, every session
 * in it is gone: the supervisor frees all their slots, its clients see
 * their connections close, and the next connection starts a new one.
 */
#ifndef SHARED_HOST_H
#define SHARED_HOST_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

struct worker_config;
struct status_table;

/* In the device process: serves connections from sock until the
 * supervisor closes it or SIGTERM; returns the exit status. */
int shared_host_main(int sock, const struct worker_config *cfg, struct status_table *table);

/* In the supervisor. */
struct shared_host;
struct shared_host *shared_host_create(void);
/* Starts the device process when there is none (a second after one that
 * died before its devices were open). in_child runs in the new process
 * first: it closes what the supervisor holds that the process must not. */
void shared_host_fill(struct shared_host *h, const struct worker_config *cfg,
                      struct status_table *table, void (*in_child)(void *arg), void *arg);
/* The pair to watch (1 with *pfd set, 0 when there is no process). */
int shared_host_pollfd(struct shared_host *h, struct pollfd *pfd);
/* Reads what the process said: its devices are open; done(arg, id) for
 * each session id whose connection has ended. */
void shared_host_poll(struct shared_host *h, const struct pollfd *pfd,
                      void (*done)(void *arg, uint64_t session_id), void *arg);
/* Whether the process is there with its devices open. */
int shared_host_ready(const struct shared_host *h);
/* Whether a process is there (ready or starting). */
int shared_host_alive(const struct shared_host *h);
/* Hands cfd and its session id to the process: 0 with *pid; -1 when it is
 * not ready or did not take it. The caller closes cfd either way. */
int shared_host_handoff(struct shared_host *h, int cfd, uint64_t session_id, pid_t *pid);
/* 1 when pid was the device process (now gone); the caller frees what its
 * sessions held. */
int shared_host_reaped(struct shared_host *h, pid_t pid, int status);
/* Asks the process to end its sessions and exit (SIGTERM); reaped as usual. */
void shared_host_stop(struct shared_host *h, int sig);
/* Frees h; a process still there is killed and waited for. */
void shared_host_destroy(struct shared_host *h);

#endif
