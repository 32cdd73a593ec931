/*
 * worker_metrics.h - counters behind hip-worker's --metrics-listen.
 *
 * Sessions are processes, so their counters live in a MAP_SHARED block set
 * up before the first fork: one slot per status-table slot, written only by
 * the session process that holds it (relaxed atomic adds: no syscall, no
 * lock, no cache line shared with another writer on the hot path). The
 * supervisor reads them when scraped and, when it reaps a session, folds its
 * slot into the "retired" totals before the status slot can be reused, so
 * every counter only ever grows, as Prometheus requires.
 *
 * To add a counter: one line in WM_COUNTERS and a wm_add() where it happens.
 */
#ifndef WORKER_METRICS_H
#define WORKER_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* X(field, metric name, help) - per-session counters summed over sessions. */
#define WM_COUNTERS(X)                                                               \
    X(bytes_in, "hipwire_worker_received_bytes_total", "Bytes of requests received") \
    X(bytes_out, "hipwire_worker_sent_bytes_total", "Bytes of replies sent")         \
    X(async_errors, "hipwire_worker_async_errors_total",                             \
      "Errors of calls without a reply, reported at the next synchronising call")    \
    X(rtc_compiler_runs, "hipwire_worker_rtc_compiler_runs_total",                   \
      "Run-time compilations that ran the compiler (hiprtc)")                        \
    X(rtc_compile_failures, "hipwire_worker_rtc_compile_failures_total",             \
      "Run-time compilations that failed")

enum wm_counter {
#define WM_ENUM_(f, name, help) WM_##f,
    WM_COUNTERS(WM_ENUM_)
#undef WM_ENUM_
        WM_COUNTER_COUNT
};

/* Upper bounds of the latency buckets, in microseconds (+Inf follows). */
#define WM_LATENCY_BUCKETS 12

struct wm_op {
    uint64_t calls, errors, latency_sum_ns;
    uint64_t buckets[WM_LATENCY_BUCKETS + 1]; /* not cumulative; last = +Inf */
};

struct wm_slot;
struct worker_metrics;

/* Sized for max_sessions slots; NULL when out of memory. */
struct worker_metrics *worker_metrics_create(uint32_t max_sessions);
void worker_metrics_destroy(struct worker_metrics *m);
/* The slot paired with status-table slot i. */
struct wm_slot *worker_metrics_slot(struct worker_metrics *m, uint32_t i);

/* Hot path, in the session process; each ignores a NULL slot. */
void wm_add(struct wm_slot *s, enum wm_counter c, uint64_t n);
/* One executed request: op index (hipr_op_at order), its duration, and
 * whether it failed. */
void wm_call(struct wm_slot *s, size_t op, uint64_t ns, int failed);
void wm_error(struct wm_slot *s, size_t op);

/* Supervisor: fold slot i into the retired totals and clear it (the session
 * holding it has exited). */
void worker_metrics_retire(struct worker_metrics *m, uint32_t i);

/* Gauges only the supervisor knows, rendered beside the counters. */
struct wm_gauges {
    uint32_t sessions_active, sessions_max, handshakes_pending, rtc_slots_busy;
    uint32_t admission_waiting; /* clients queued for a session (--admission-queue) */
    int rtc_cache;              /* --rtc-cache-dir given: the cache_* fields are real */
    uint64_t cache_hits, cache_misses, cache_evictions, cache_bytes, cache_entries;
    uint64_t sessions_served, device_memory_bytes, mem_limit;
    const char *backend;
};

/* The Prometheus text exposition (version 0.0.4), malloc'd; NULL on OOM. */
char *worker_metrics_render(struct worker_metrics *m, const struct wm_gauges *g, size_t *len);

#endif
