/*
 * admission.h - who gets the next session once --max-sessions are open.
 *
 * A MAP_SHARED queue set up before the first fork. A session process whose
 * HELLO finds every status slot taken takes a place in it (a ticket) and
 * waits; whenever a slot frees, the waiters with the lowest tickets claim
 * it, in order. While it waits, and while its device starts, a client that
 * asked for it (HIPR_HELLO_WAIT_OK) gets a SESSION_WAIT frame at least every
 * ADMISSION_INTERVAL_MS, so it can tell a worker at work from a dead one.
 * Only a full queue refuses, saying when to try again.
 */
#ifndef ADMISSION_H
#define ADMISSION_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#define ADMISSION_INTERVAL_MS 1000 /* SESSION_WAIT.interval_ms */
#define ADMISSION_RETRY_MS    1000 /* retry_after_ms of a refusal */

struct admission;
struct session;

struct admission *admission_create(uint32_t queue_cap);
void admission_destroy(struct admission *a);
/* Wakes every waiter: a status slot or a place in the queue was freed. */
void admission_notify(struct admission *a);
/* Drops a dead process's place (the supervisor, when it reaps). */
void admission_forget_pid(struct admission *a, pid_t pid);
/* Processes waiting in the queue now. */
uint32_t admission_waiting(struct admission *a);
/* Whether pid holds a place in the queue. */
int admission_has_pid(const struct admission *a, pid_t pid);
/* Whether session_id holds one (sessions of a shared device process share its pid). */
int admission_has_session(const struct admission *a, uint64_t session_id);

/* Claims s a status slot, waiting in the queue if needed: 0 with s->slot
 * set, 1 when the queue is full (the client was told so when it can hear
 * it), -1 when the client left or the worker is stopping. */
int admission_claim(struct session *s, int wait_ok, const char *peer);

/* While the device starts: a SESSION_WAIT(STARTING) now and every
 * interval until stopped, from a thread of its own. */
struct admission_ticker {
    struct session *s;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int running, stop;
};
void admission_ticker_start(struct admission_ticker *t, struct session *s);
void admission_ticker_stop(struct admission_ticker *t);

#endif
