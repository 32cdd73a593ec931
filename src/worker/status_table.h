/*
 * status_table.h - what the supervisor knows about its sessions.
 *
 * A MAP_SHARED page set up before the first fork: each session claims a
 * slot at HELLO (with the pid of its process: its own, or the shared device
 * process of --isolation shared) and keeps its device-memory use current
 * there; a session frees its slot at its end, and the supervisor frees
 * every slot of a process when it reaps it, so a session that was killed
 * can never leave a stale entry behind. Any process may read it to
 * answer WORKER_STATUS without asking the supervisor anything.
 */
#ifndef STATUS_TABLE_H
#define STATUS_TABLE_H

#include <stdint.h>
#include <sys/types.h>

struct status_slot {
    uint32_t pid;     /* 0 = free; claimed with a compare-and-swap */
    uint32_t state;   /* HIPR_SESSION_ATTACHED or _DETACHED */
    uint32_t streams; /* the session's streams, for --max-streams-total */
    uint32_t reserved;
    uint64_t session_id;
    uint64_t bytes_in_use;
    /* the client's address; written by the owner while it has no other
     * reader to race but a status reply, which may see a torn address */
    uint8_t client_addr[16]; /* IPv6; IPv4 as ::ffff:a.b.c.d */
    uint32_t client_port;
};

struct status_table {
    uint32_t max_sessions;
    uint32_t draining; /* DRAIN_* (drain.h) */
    uint64_t mem_limit;
    uint64_t sessions_served;
    uint32_t drain_timeout_s;
    uint32_t reserved;
    char backend[64];
    /* Planned migration (migrate.c): where sessions are told to move
     * (written before they are signalled), and whether the worker stops
     * afterwards (--migrate-to at SIGTERM: a session that cannot move is
     * ended with GOING_AWAY MIGRATE_FAILED instead of staying). */
    char migrate_host[256];
    uint32_t migrate_port;
    uint32_t migrate_then_stop;
    struct status_slot slots[];
};

struct status_table *status_table_create(uint32_t max_sessions, uint64_t mem_limit,
                                         const char *backend);
void status_table_destroy(struct status_table *t);
/* The claimed slot, or NULL when every slot is taken. */
struct status_slot *status_table_claim(struct status_table *t, pid_t pid, uint64_t session_id);
/* Frees a slot of a process that has exited (one per call: a shared
 * device process holds one per session); returns its bytes_in_use, and
 * *session_id 0 when pid held none. */
uint64_t status_table_release_pid(struct status_table *t, pid_t pid, uint64_t *session_id);
/* Frees the slot a session claimed, at its end (its process may go on). */
void status_table_release(struct status_slot *s);
/* Streams of every session together (a sum of racy snapshots: sessions
 * creating streams at the same moment may overshoot the budget by one each). */
uint32_t status_table_streams(const struct status_table *t);
/* The process that holds session_id's slot, or 0. */
pid_t status_table_pid_of(const struct status_table *t, uint64_t session_id);
/* The slot index pid holds, or -1. */
int status_table_index_of(const struct status_table *t, pid_t pid);
/* Records the peer of fd as the slot's client (and marks it attached). */
void status_slot_set_client(struct status_slot *s, int fd);
void status_slot_set_state(struct status_slot *s, uint32_t state);
uint32_t status_table_count(const struct status_table *t, uint64_t *bytes_total);

#endif
