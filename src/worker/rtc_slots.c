/*
 * rtc_slots.c - compile slots shared by all session processes (rtc_slots.h).
 */
#include "rtc_slots.h"

#include <stddef.h>
#include <sys/mman.h>
#include <time.h>

#include "hw_time.h"

/* Waiting is polling: compiles take seconds, and a futex across processes
 * would still need the owner check a dead session requires. */
#define POLL_MS 20

/* Waiters queue in ticket order so a slot goes to the one that has waited
 * longest: with first-come polling one waiter could lose every race for the
 * whole --rtc-queue-timeout while later ones got through. Each queue entry is
 * one word, ticket << 32 | pid, so it is claimed and cleared atomically; the
 * pid lets the supervisor drop the entries of a session that died waiting. */
#define QUEUE_LEN 256

struct rtc_slots {
    uint32_t n;
    uint32_t next_ticket;
    uint64_t queue[QUEUE_LEN]; /* 0: an empty entry */
    uint32_t owner[];          /* pid of the session using each slot; 0: free */
};

static size_t slots_size(uint32_t n)
{
    return sizeof(struct rtc_slots) + (size_t)n * sizeof(uint32_t);
}

static uint32_t entry_ticket(uint64_t e)
{
    return (uint32_t)(e >> 32);
}

static uint32_t entry_pid(uint64_t e)
{
    return (uint32_t)e;
}

/* Enters the queue; returns the entry's index, or -1 when the queue is full
 * (the caller then competes for slots without a place in line). */
static int queue_enter(struct rtc_slots *t, pid_t pid, uint64_t *entry)
{
    uint32_t ticket = __atomic_fetch_add(&t->next_ticket, 1, __ATOMIC_ACQ_REL);
    uint64_t e = ((uint64_t)ticket << 32) | (uint32_t)pid;
    for (int i = 0; i < QUEUE_LEN; i++) {
        uint64_t expected = 0;
        if (__atomic_compare_exchange_n(&t->queue[i], &expected, e, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            *entry = e;
            return i;
        }
    }
    return -1;
}

static void queue_leave(struct rtc_slots *t, int at, uint64_t entry)
{
    if (at >= 0)
        __atomic_compare_exchange_n(&t->queue[at], &entry, 0, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
}

/* Waiters in line before `entry` (wrapping ticket arithmetic). */
static uint32_t queue_ahead(const struct rtc_slots *t, uint64_t entry)
{
    uint32_t mine = entry_ticket(entry), ahead = 0;
    for (int i = 0; i < QUEUE_LEN; i++) {
        uint64_t e = __atomic_load_n(&t->queue[i], __ATOMIC_ACQUIRE);
        if (e != 0 && e != entry && (int32_t)(entry_ticket(e) - mine) < 0)
            ahead++;
    }
    return ahead;
}

struct rtc_slots *rtc_slots_create(uint32_t n)
{
    if (n == 0)
        return NULL;
    struct rtc_slots *t =
        mmap(NULL, slots_size(n), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (t == MAP_FAILED)
        return NULL;
    t->n = n; /* the mapping is zero-filled: every slot free */
    return t;
}

void rtc_slots_destroy(struct rtc_slots *t)
{
    if (t)
        munmap(t, slots_size(t->n));
}

uint32_t rtc_slots_count(const struct rtc_slots *t)
{
    return t->n;
}

uint32_t rtc_slots_busy(const struct rtc_slots *t)
{
    uint32_t busy = 0;
    for (uint32_t i = 0; i < t->n; i++)
        busy += __atomic_load_n(&t->owner[i], __ATOMIC_RELAXED) != 0;
    return busy;
}

static int try_take(struct rtc_slots *t, pid_t pid)
{
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t expected = 0;
        if (__atomic_compare_exchange_n(&t->owner[i], &expected, (uint32_t)pid, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return (int)i;
    }
    return -1;
}

int rtc_slots_acquire(struct rtc_slots *t, pid_t pid, uint32_t timeout_ms, const int *cancel)
{
    uint64_t deadline = hw_now_ms() + timeout_ms;
    uint64_t entry = 0;
    int at = queue_enter(t, pid, &entry);
    int slot;
    for (;;) {
        if (cancel && __atomic_load_n(cancel, __ATOMIC_ACQUIRE)) {
            slot = -2;
            break;
        }
        /* A free slot is ours only when fewer waiters are ahead of us than
         * there are free slots: those ahead take theirs first. */
        uint32_t free_now = t->n - rtc_slots_busy(t);
        if (free_now > 0 && (at < 0 || queue_ahead(t, entry) < free_now)) {
            slot = try_take(t, pid);
            if (slot >= 0)
                break;
        }
        if (hw_now_ms() >= deadline) {
            slot = -1;
            break;
        }
        struct timespec ts = { 0, POLL_MS * 1000000L };
        nanosleep(&ts, NULL);
    }
    queue_leave(t, at, entry);
    return slot;
}

void rtc_slots_release(struct rtc_slots *t, int slot, pid_t pid)
{
    uint32_t expected = (uint32_t)pid;
    if (slot >= 0 && (uint32_t)slot < t->n)
        __atomic_compare_exchange_n(&t->owner[slot], &expected, 0, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
}

uint32_t rtc_slots_release_pid(struct rtc_slots *t, pid_t pid)
{
    uint32_t freed = 0;
    for (uint32_t i = 0; t && i < t->n; i++) {
        uint32_t expected = (uint32_t)pid;
        if (__atomic_compare_exchange_n(&t->owner[i], &expected, 0, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            freed++;
    }
    /* Its place in line, if it died waiting: it must not hold up the rest. */
    for (int i = 0; t && i < QUEUE_LEN; i++) {
        uint64_t e = __atomic_load_n(&t->queue[i], __ATOMIC_ACQUIRE);
        if (e != 0 && entry_pid(e) == (uint32_t)pid)
            __atomic_compare_exchange_n(&t->queue[i], &e, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
    return freed;
}
