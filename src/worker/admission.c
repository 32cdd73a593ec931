/*
 * admission.c - the admission queue and what a waiting client hears
 * (admission.h; docs/worker.md, "Admission").
 */
#include "admission.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "drain.h"
#include "hw_log.h"
#include "hw_time.h"
#include "session_main.h"

struct admission_entry {
    uint32_t pid; /* 0 = free; taken with a compare-and-swap */
    uint32_t reserved;
    uint64_t ticket;     /* order of arrival */
    uint64_t session_id; /* whose place (the supervisor tells handshakes from waiters) */
};

struct admission {
    uint32_t gen; /* futex word: bumped whenever a slot or a place frees */
    uint32_t cap;
    uint64_t next_ticket;
    struct admission_entry e[];
};

static size_t admission_size(uint32_t cap)
{
    return sizeof(struct admission) + (size_t)cap * sizeof(struct admission_entry);
}

struct admission *admission_create(uint32_t queue_cap)
{
    struct admission *a = mmap(NULL, admission_size(queue_cap), PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED)
        return NULL;
    a->cap = queue_cap;
    a->next_ticket = 1;
    return a;
}

void admission_destroy(struct admission *a)
{
    if (a)
        munmap(a, admission_size(a->cap));
}

void admission_notify(struct admission *a)
{
    if (!a)
        return;
    __atomic_add_fetch(&a->gen, 1, __ATOMIC_ACQ_REL);
    /* Shared between processes: not FUTEX_PRIVATE. */
    syscall(SYS_futex, &a->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void wait_change(struct admission *a, uint32_t seen, int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    syscall(SYS_futex, &a->gen, FUTEX_WAIT, seen, &ts, NULL, 0);
}

void admission_forget_pid(struct admission *a, pid_t pid)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->cap; i++)
        if (__atomic_load_n(&a->e[i].pid, __ATOMIC_ACQUIRE) == (uint32_t)pid) {
            __atomic_store_n(&a->e[i].pid, 0, __ATOMIC_RELEASE);
            admission_notify(a);
        }
}

int admission_has_pid(const struct admission *a, pid_t pid)
{
    for (uint32_t i = 0; a && i < a->cap; i++)
        if (__atomic_load_n(&a->e[i].pid, __ATOMIC_ACQUIRE) == (uint32_t)pid)
            return 1;
    return 0;
}

int admission_has_session(const struct admission *a, uint64_t session_id)
{
    for (uint32_t i = 0; a && i < a->cap; i++)
        if (__atomic_load_n(&a->e[i].pid, __ATOMIC_ACQUIRE) &&
            __atomic_load_n(&a->e[i].session_id, __ATOMIC_ACQUIRE) == session_id)
            return 1;
    return 0;
}

uint32_t admission_waiting(struct admission *a)
{
    uint32_t n = 0;
    for (uint32_t i = 0; a && i < a->cap; i++)
        n += __atomic_load_n(&a->e[i].pid, __ATOMIC_ACQUIRE) != 0;
    return n;
}

/* A place at the end of the queue: its index, or -1 when the queue is full. */
static int enter(struct admission *a, uint64_t session_id, uint64_t *ticket)
{
    for (uint32_t i = 0; i < a->cap; i++) {
        uint32_t expected = 0;
        if (__atomic_compare_exchange_n(&a->e[i].pid, &expected, (uint32_t)getpid(), 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&a->e[i].session_id, session_id, __ATOMIC_RELEASE);
            *ticket = __atomic_fetch_add(&a->next_ticket, 1, __ATOMIC_ACQ_REL);
            __atomic_store_n(&a->e[i].ticket, *ticket, __ATOMIC_RELEASE);
            return (int)i;
        }
    }
    return -1;
}

static void leave(struct admission *a, int idx)
{
    __atomic_store_n(&a->e[idx].pid, 0, __ATOMIC_RELEASE);
    admission_notify(a);
}

/* Waiters that arrived before `ticket` (all of them for ticket 0). A
 * place taken a moment ago may still show ticket 0: it counts as ahead,
 * which only delays its owner's rival by one wake-up. */
static uint32_t ahead_of(struct admission *a, uint64_t ticket, int self)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->cap; i++) {
        if ((int)i == self || !__atomic_load_n(&a->e[i].pid, __ATOMIC_ACQUIRE))
            continue;
        uint64_t t = __atomic_load_n(&a->e[i].ticket, __ATOMIC_ACQUIRE);
        if (ticket == 0 || t < ticket)
            n++;
    }
    return n;
}

static int send_wait(struct session *s, uint32_t state, uint32_t position, uint32_t retry_ms)
{
    struct hipr_session_wait m = { .state = state,
                                   .position = position,
                                   .retry_after_ms = retry_ms,
                                   .interval_ms = ADMISSION_INTERVAL_MS };
    uint8_t buf[HIPR_session_wait_SIZE];
    hipr_session_wait_encode(buf, &m);
    return slink_send_unsolicited(&s->link, HIPR_OP_SESSION_WAIT, buf, sizeof buf);
}

/* A queued client that hung up must not keep its place. */
static int client_gone(struct session *s)
{
    struct pollfd p = { .fd = s->link.tx.fd, .events = POLLRDHUP };
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

static int free_slots(struct session *s)
{
    uint64_t bytes;
    return (int)s->table->max_sessions - (int)status_table_count(s->table, &bytes);
}

int admission_claim(struct session *s, int wait_ok, const char *peer)
{
    struct admission *a = s->cfg->admission;
    uint64_t ticket = 0;
    int idx = -1, rc = -1;
    uint32_t told = 0;
    uint64_t told_ms = 0, since_ms = hw_now_ms();

    for (;;) {
        uint32_t gen = a ? __atomic_load_n(&a->gen, __ATOMIC_ACQUIRE) : 0;
        /* First come, first served: a slot goes to a newcomer only when
         * nobody waits, else to the waiters in ticket order. */
        uint32_t ahead = a ? ahead_of(a, ticket, idx) : 0;
        if ((int)ahead < free_slots(s)) {
            s->slot = status_table_claim(s->table, getpid(), s->id);
            if (s->slot) {
                rc = 0;
                break;
            }
        }
        if (idx < 0 && a && (idx = enter(a, s->id, &ticket)) >= 0) {
            ahead = ahead_of(a, ticket, idx);
        } else if (idx < 0) {
            hw_warn("refusing a session from %s: --max-sessions %d reached and the admission "
                    "queue (--admission-queue %u) is full; told to retry after %d ms",
                    peer, s->cfg->max_sessions, a ? a->cap : 0, ADMISSION_RETRY_MS);
            if (wait_ok)
                send_wait(s, HIPR_WAIT_BUSY, 0, ADMISSION_RETRY_MS);
            rc = 1;
            break;
        }
        uint64_t now = hw_now_ms();
        if (ahead + 1 != told || now - told_ms >= ADMISSION_INTERVAL_MS) {
            if (ahead + 1 != told)
                hw_debug("session %016llx from %s: queued, position %u", (unsigned long long)s->id,
                         peer, ahead + 1);
            if (wait_ok && send_wait(s, HIPR_WAIT_QUEUED, ahead + 1, 0) < 0)
                break;
            told = ahead + 1;
            told_ms = now;
        }
        /* A drain admits nobody new, queued or not. */
        if (session_terminating(s) || drain_refuses_sessions(s->table) || client_gone(s)) {
            hw_info("session %016llx from %s: left the admission queue (%s)",
                    (unsigned long long)s->id, peer,
                    session_terminating(s)             ? "the worker is stopping"
                    : drain_refuses_sessions(s->table) ? "the worker is draining"
                                                       : "the client hung up");
            break;
        }
        wait_change(a, gen, ADMISSION_INTERVAL_MS / 4);
    }
    if (idx >= 0)
        leave(a, idx);
    if (rc == 0 && told)
        hw_info("session %016llx from %s: admitted after %llu ms in the admission queue",
                (unsigned long long)s->id, peer, (unsigned long long)(hw_now_ms() - since_ms));
    return rc;
}

static void *ticker_main(void *arg)
{
    struct admission_ticker *t = arg;
    pthread_mutex_lock(&t->lock);
    while (!t->stop) {
        pthread_mutex_unlock(&t->lock);
        int rc = send_wait(t->s, HIPR_WAIT_STARTING, 0, 0);
        pthread_mutex_lock(&t->lock);
        if (rc < 0)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += ADMISSION_INTERVAL_MS / 1000;
        while (!t->stop && pthread_cond_timedwait(&t->cond, &t->lock, &ts) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

void admission_ticker_start(struct admission_ticker *t, struct session *s)
{
    memset(t, 0, sizeof *t);
    t->s = s;
    pthread_mutex_init(&t->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cond, &ca);
    pthread_condattr_destroy(&ca);
    t->running = pthread_create(&t->thread, NULL, ticker_main, t) == 0;
    if (!t->running)
        send_wait(s, HIPR_WAIT_STARTING, 0, 0); /* one notice at least */
}

void admission_ticker_stop(struct admission_ticker *t)
{
    pthread_mutex_lock(&t->lock);
    t->stop = 1;
    pthread_cond_signal(&t->cond);
    pthread_mutex_unlock(&t->lock);
    if (t->running)
        pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->lock);
}
