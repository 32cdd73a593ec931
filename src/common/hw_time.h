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

#endif
