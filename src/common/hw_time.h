/* hw_time.h - the one monotonic clock and the one deadline helper: every
 * timeout in hipwire measures with these, so none can drift with the wall
 * clock and none is written twice. */
#ifndef HW_TIME_H
#define HW_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t hw_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t hw_now_ms(void)
{
    return hw_now_ns() / 1000000u;
}

/* The time ns from now on clock clk, as pthread_cond_timedwait takes it
 * (clk: the condition variable's clock). */
static inline struct timespec hw_deadline_after_ns(clockid_t clk, uint64_t ns)
{
    struct timespec t;
    clock_gettime(clk, &t);
    t.tv_sec += (time_t)(ns / 1000000000u);
    t.tv_nsec += (long)(ns % 1000000000u);
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

#endif
