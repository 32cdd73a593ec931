#include "worker_metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hw_alloc.h"
#include "hipr.h"

struct wm_slot {
    uint64_t counters[WM_COUNTER_COUNT];
    struct wm_op ops[];
};

struct worker_metrics {
    pthread_mutex_t lock; /* retire vs render, both in the supervisor */
    uint32_t nslots;
    size_t nops, slot_size, map_len;
    unsigned char *map; /* slot 0: retired totals; 1..nslots: sessions */
};

static const uint64_t bucket_us[WM_LATENCY_BUCKETS] = {
    10, 50, 100, 500, 1000, 5000, 10000, 50000, 100000, 500000, 1000000, 5000000,
};

static struct wm_slot *slot_at(const struct worker_metrics *m, uint32_t i)
{
    return (struct wm_slot *)(void *)(m->map + (size_t)i * m->slot_size);
}

struct worker_metrics *worker_metrics_create(uint32_t max_sessions)
{
    struct worker_metrics *m = hw_calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->nslots = max_sessions;
    m->nops = hipr_op_count();
    /* whole cache lines, so two sessions never write one line */
    m->slot_size = (sizeof(struct wm_slot) + m->nops * sizeof(struct wm_op) + 63) & ~(size_t)63;
    m->map_len = m->slot_size * ((size_t)max_sessions + 1);
    m->map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m->map == MAP_FAILED) {
        free(m);
        return NULL;
    }
    pthread_mutex_init(&m->lock, NULL);
    return m;
}

void worker_metrics_destroy(struct worker_metrics *m)
{
    if (m == NULL)
        return;
    munmap(m->map, m->map_len);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

struct wm_slot *worker_metrics_slot(struct worker_metrics *m, uint32_t i)
{
    return m && i < m->nslots ? slot_at(m, i + 1) : NULL;
}

static void add(uint64_t *p, uint64_t n)
{
    __atomic_fetch_add(p, n, __ATOMIC_RELAXED);
}

void wm_add(struct wm_slot *s, enum wm_counter c, uint64_t n)
{
    if (s)
        add(&s->counters[c], n);
}

void wm_call(struct wm_slot *s, size_t op, uint64_t ns, int failed)
{
    if (s == NULL || op >= hipr_op_count())
        return;
    struct wm_op *o = &s->ops[op];
    size_t b = 0;
    while (b < WM_LATENCY_BUCKETS && ns > bucket_us[b] * 1000)
        b++;
    add(&o->calls, 1);
    add(&o->latency_sum_ns, ns);
    add(&o->buckets[b], 1);
    if (failed)
        add(&o->errors, 1);
}

void wm_error(struct wm_slot *s, size_t op)
{
    if (s && op < hipr_op_count())
        add(&s->ops[op].errors, 1);
}

static uint64_t get(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void fold(struct wm_slot *to, const struct wm_slot *from, size_t nops)
{
    for (size_t c = 0; c < WM_COUNTER_COUNT; c++)
        to->counters[c] += get(&from->counters[c]);
    for (size_t i = 0; i < nops; i++) {
        const struct wm_op *f = &from->ops[i];
        struct wm_op *t = &to->ops[i];
        t->calls += get(&f->calls);
        t->errors += get(&f->errors);
        t->latency_sum_ns += get(&f->latency_sum_ns);
        for (size_t b = 0; b <= WM_LATENCY_BUCKETS; b++)
            t->buckets[b] += get(&f->buckets[b]);
    }
}

void worker_metrics_retire(struct worker_metrics *m, uint32_t i)
{
    if (m == NULL || i >= m->nslots)
        return;
    pthread_mutex_lock(&m->lock);
    fold(slot_at(m, 0), slot_at(m, i + 1), m->nops);
    memset(slot_at(m, i + 1), 0, m->slot_size);
    pthread_mutex_unlock(&m->lock);
}

static void gauge(FILE *f, const char *name, const char *help, uint64_t v)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n%s %llu\n", name, help, name, name,
            (unsigned long long)v);
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name,
            (unsigned long long)v);
}

char *worker_metrics_render(struct worker_metrics *m, const struct wm_gauges *g, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    struct wm_slot *sum = hw_calloc(1, m->slot_size);
    FILE *f = sum ? open_memstream(&buf, &n) : NULL;

    if (f == NULL) {
        free(sum);
        return NULL;
    }
    pthread_mutex_lock(&m->lock);
    for (uint32_t i = 0; i <= m->nslots; i++)
        fold(sum, slot_at(m, i), m->nops);
    pthread_mutex_unlock(&m->lock);

    fprintf(f,
            "# HELP hipwire_worker_info The worker's backend\n"
            "# TYPE hipwire_worker_info gauge\nhipwire_worker_info{backend=\"%s\"} 1\n",
            g->backend ? g->backend : "");
    gauge(f, "hipwire_worker_sessions", "Sessions now connected", g->sessions_active);
    gauge(f, "hipwire_worker_sessions_max", "Sessions the worker admits at once (--max-sessions)",
          g->sessions_max);
    gauge(f, "hipwire_worker_handshakes_pending",
          "Connections accepted and still in their handshake (admission queue)",
          g->handshakes_pending);
    gauge(f, "hipwire_worker_rtc_slots_busy", "Run-time compile slots in use (compile queue)",
          g->rtc_slots_busy);
    gauge(f, "hipwire_worker_admission_waiting",
          "Clients waiting in the admission queue for a session (--admission-queue)",
          g->admission_waiting);
    if (g->rtc_cache) {
        counter(f, "hipwire_worker_rtc_cache_hits_total",
                "Compiles answered by the compiled-kernel cache", g->cache_hits);
        counter(f, "hipwire_worker_rtc_cache_misses_total",
                "Compiles the compiled-kernel cache could not answer", g->cache_misses);
        counter(f, "hipwire_worker_rtc_cache_evictions_total",
                "Cache entries evicted to stay within --rtc-cache-max", g->cache_evictions);
        gauge(f, "hipwire_worker_rtc_cache_bytes", "Bytes the compiled-kernel cache holds",
              g->cache_bytes);
        gauge(f, "hipwire_worker_rtc_cache_entries", "Entries in the compiled-kernel cache",
              g->cache_entries);
    }
    gauge(f, "hipwire_worker_device_memory_bytes", "Device memory allocated by all sessions",
          g->device_memory_bytes);
    gauge(f, "hipwire_worker_device_memory_limit_bytes",
          "Device memory one session may allocate (--mem-limit; 0: the device's size)",
          g->mem_limit);
    fprintf(f,
            "# HELP hipwire_worker_sessions_total Sessions served since start\n"
            "# TYPE hipwire_worker_sessions_total counter\nhipwire_worker_sessions_total %llu\n",
            (unsigned long long)g->sessions_served);
#define WM_RENDER_(field, name, help)                                                \
    fprintf(f, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name, \
            (unsigned long long)sum->counters[WM_##field]);
    WM_COUNTERS(WM_RENDER_)
#undef WM_RENDER_

    fprintf(f, "# HELP hipwire_worker_calls_total Requests executed, by operation\n"
               "# TYPE hipwire_worker_calls_total counter\n");
    for (size_t i = 0; i < m->nops; i++)
        if (sum->ops[i].calls)
            fprintf(f, "hipwire_worker_calls_total{op=\"%s\"} %llu\n", hipr_op_at(i)->name,
                    (unsigned long long)sum->ops[i].calls);
    fprintf(f, "# HELP hipwire_worker_call_errors_total Requests that returned an error, by "
               "operation\n# TYPE hipwire_worker_call_errors_total counter\n");
    for (size_t i = 0; i < m->nops; i++)
        if (sum->ops[i].errors)
            fprintf(f, "hipwire_worker_call_errors_total{op=\"%s\"} %llu\n", hipr_op_at(i)->name,
                    (unsigned long long)sum->ops[i].errors);
    fprintf(f, "# HELP hipwire_worker_call_duration_seconds Time the worker took to handle a "
               "request (asynchronous ones: until queued), by operation\n"
               "# TYPE hipwire_worker_call_duration_seconds histogram\n");
    for (size_t i = 0; i < m->nops; i++) {
        const struct wm_op *o = &sum->ops[i];
        const char *op = hipr_op_at(i)->name;
        uint64_t cum = 0;
        if (o->calls == 0)
            continue;
        for (size_t b = 0; b < WM_LATENCY_BUCKETS; b++) {
            cum += o->buckets[b];
            fprintf(f, "hipwire_worker_call_duration_seconds_bucket{op=\"%s\",le=\"%g\"} %llu\n",
                    op, (double)bucket_us[b] / 1e6, (unsigned long long)cum);
        }
        cum += o->buckets[WM_LATENCY_BUCKETS];
        fprintf(f, "hipwire_worker_call_duration_seconds_bucket{op=\"%s\",le=\"+Inf\"} %llu\n", op,
                (unsigned long long)cum);
        fprintf(f, "hipwire_worker_call_duration_seconds_sum{op=\"%s\"} %.9f\n", op,
                (double)o->latency_sum_ns / 1e9);
        fprintf(f, "hipwire_worker_call_duration_seconds_count{op=\"%s\"} %llu\n", op,
                (unsigned long long)o->calls);
    }
    free(sum);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
