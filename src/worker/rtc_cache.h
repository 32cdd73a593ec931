/*
 * rtc_cache.h - the worker's compiled-kernel cache (--rtc-cache-dir,
 * --rtc-cache-max; docs/hiprtc.md, "Cache").
 *
 * A directory of compile results (code, log, lowered names) named by the
 * SHA-256 of everything that decides them: the program's name, source,
 * headers, options and name expressions, the device, the backend, the
 * worker's version and prelude. Only compile output is kept, never a loaded
 * module, so sessions share it without seeing each other's state. Entries
 * are written to a temporary name and renamed into place (sessions are
 * separate processes; a reader sees a whole entry or none), checked by their
 * own SHA-256 when read (a damaged one is removed and recompiled), and
 * evicted least recently used first (a hit touches its mtime) once the
 * directory holds more than its byte bound. The counters live in one
 * MAP_SHARED page mapped by the supervisor before it forks any session.
 */
#ifndef HIPWIRE_RTC_CACHE_H
#define HIPWIRE_RTC_CACHE_H

#include <stdint.h>

#include "backend.h"

#define RTC_CACHE_KEY_LEN 32

struct rtc_cache;

struct rtc_cache_stats {
    uint64_t hits, misses, stores, evictions, damaged;
    uint64_t bytes, entries, max_bytes;
};

/* Creates dir if needed and maps the counters; NULL (logged) on failure. */
struct rtc_cache *rtc_cache_create(const char *dir, uint64_t max_bytes);
void rtc_cache_destroy(struct rtc_cache *c);

/* The key of a compile of in for a device described by `device` (backend,
 * device name and target; any text that tells devices apart). */
void rtc_cache_key(const struct hw_rtc_input *in, const char *device,
                   uint8_t key[RTC_CACHE_KEY_LEN]);

/* 1 and *out filled (code, log and lowered names malloc'ed) on a hit; 0 on
 * a miss (a damaged entry is removed and counts as a miss). */
int rtc_cache_get(struct rtc_cache *c, const uint8_t key[RTC_CACHE_KEY_LEN], uint32_t name_count,
                  struct hw_rtc_output *out);

/* Stores a successful compile's output, then evicts down to the bound. */
void rtc_cache_put(struct rtc_cache *c, const uint8_t key[RTC_CACHE_KEY_LEN], uint32_t name_count,
                   const struct hw_rtc_output *out);

void rtc_cache_stats(const struct rtc_cache *c, struct rtc_cache_stats *out);

#endif
