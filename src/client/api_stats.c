/*
 * api_stats.c - hipwire_client_stats(), a hipwire extension: how many
 * requests this process sent the worker, and how many of them waited for a
 * reply (round trips). Benchmarks read it before and after a region to count
 * the network round trips that region cost; every HIP call answered inside
 * the proxy costs none.
 */
#include "client.h"

uint64_t hw_stat_round_trips;
uint64_t hw_stat_posted;

HW_EXPORT void hipwire_client_stats(unsigned long long *round_trips, unsigned long long *posted)
{
    if (round_trips)
        *round_trips = __atomic_load_n(&hw_stat_round_trips, __ATOMIC_RELAXED);
    if (posted)
        *posted = __atomic_load_n(&hw_stat_posted, __ATOMIC_RELAXED);
}
