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

struct rtc_slots {
    uint32_t n;
    uint32_t owner[]; /* pid of the session using each slot; 0: free */
};

static size_t slots_size(uint32_t n)
{
    return sizeof(struct rtc_slots) + (size_t)n * sizeof(uint32_t);
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
    for (;;) {
        if (cancel && __atomic_load_n(cancel, __ATOMIC_ACQUIRE))
            return -2;
        int slot = try_take(t, pid);
        if (slot >= 0)
            return slot;
        if (hw_now_ms() >= deadline)
            return -1;
        struct timespec ts = { 0, POLL_MS * 1000000L };
        nanosleep(&ts, NULL);
    }
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
    return freed;
}
