/*
 * rtc.c - RTC_COMPILE: runtime compilation on the worker (docs/hiprtc.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "rtc.h"
#include "rtc_cache.h"
#include "worker_metrics.h"
#include "rtc_slots.h"
#include "session.h"

#define DEFAULT_TIMEOUT_MS 60000
#define DEFAULT_MAX_OUTPUT (64 * HIPR_MiB)

struct rtc_jobs {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int running;
    int cancel;
    /* What the cache key says of each device, asked of the backend once:
     * a cache hit must cost a file read, not dozens of driver queries.
     * Written by the request loop only, before the job that reads it. */
    char *device_key[HIPR_CAP_DEVICES];
};

struct rtc_job {
    struct session *s;
    uint16_t opcode;
    uint32_t request_id;
    int device;
    char *strings;        /* the request's tail; in's pointers point into it */
    const char **list;    /* every string, in wire order */
    const char **headers; /* header names, then header texts */
    struct hw_rtc_input in;
    const char *device_key; /* the jobs' memo (cache_key) */
};

static struct rtc_jobs *jobs_of(struct session *s)
{
    if (!s->rtc) {
        struct rtc_jobs *j = hw_calloc(1, sizeof *j);
        if (!j)
            return NULL;
        pthread_mutex_init(&j->lock, NULL);
        pthread_cond_init(&j->cond, NULL);
        s->rtc = j;
    }
    return s->rtc;
}

static void job_free(struct rtc_job *j)
{
    free(j->strings);
    free(j->list);
    free(j->headers);
    free(j);
}

/* Sends result, code, log and lowered names; code may be NULL. Takes code. */
static void reply(struct rtc_job *j, int result, uint8_t *code, uint64_t code_size, const char *log,
                  uint64_t log_size, char *const *lowered)
{
    uint32_t n = j->in.name_count;
    static const char cut[] = "\n[hipwire: log truncated]\n";
    if (code_size > HIPR_CAP_RTC_CODE) {
        free(code);
        code = NULL;
        code_size = 0;
        result = HW_RTC_COMPILATION;
        log = "hipwire: the code object is larger than the protocol's cap (64 MiB)\n";
        log_size = strlen(log);
    }
    int truncated = log_size > HIPR_CAP_RTC_LOG;
    if (truncated)
        log_size = HIPR_CAP_RTC_LOG - sizeof cut + 1;
    uint64_t total = code_size + log_size + (truncated ? sizeof cut - 1 : 0);
    for (uint32_t i = 0; i < n; i++)
        total += (lowered && lowered[i] ? strnlen(lowered[i], HIPR_CAP_NAME - 1) : 0) + 1;
    uint8_t *tail = hw_realloc(code, total ? total : 1);
    if (!tail) {
        free(code);
        slink_reply(&j->s->link, j->opcode, j->request_id, HW_ENOMEM, NULL, 0, NULL, 0);
        return;
    }
    uint8_t *p = tail + code_size;
    memcpy(p, log, log_size);
    p += log_size;
    if (truncated) {
        memcpy(p, cut, sizeof cut - 1);
        p += sizeof cut - 1;
        log_size += sizeof cut - 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        size_t len = lowered && lowered[i] ? strnlen(lowered[i], HIPR_CAP_NAME - 1) : 0;
        memcpy(p, len ? lowered[i] : "", len);
        p[len] = '\0';
        p += len + 1;
    }
    struct hipr_rtc_compile_rep r = {
        .result = result, .name_count = n, .code_size = code_size, .log_size = log_size
    };
    uint8_t body[HIPR_rtc_compile_rep_SIZE];
    hipr_rtc_compile_rep_encode(body, &r);
    slink_reply(&j->s->link, j->opcode, j->request_id, HW_OK, body, sizeof body, tail, total);
    free(tail);
}

static void reply_text(struct rtc_job *j, int result, const char *text)
{
    reply(j, result, NULL, 0, text, strlen(text), NULL);
}

/* Replies with a compile's output and frees it. */
static void send_output(struct rtc_job *j, struct hw_rtc_output *out)
{
    reply(j, out->result, out->code, out->code_size, out->log ? out->log : "",
          out->log ? out->log_size : 0, out->lowered);
    for (uint32_t i = 0; out->lowered && i < j->in.name_count; i++)
        free(out->lowered[i]);
    free(out->lowered);
    free(out->log);
}

/* The cache key: the program, and what tells this device and toolchain
 * from another (backend, device name and target, the compiler asked for). */
static const char *device_key(struct session *s, struct rtc_jobs *jobs, int device)
{
    if (jobs->device_key[device])
        return jobs->device_key[device];
    char text[HIPR_CAP_NAME];
    struct hipr_devinfo di;
    memset(&di, 0, sizeof di);
    if (s->ops->device_info(s->be, device, &di) != HW_OK)
        snprintf(di.name, sizeof di.name, "device %d", device);
    snprintf(text, sizeof text, "%s\n%.256s\n%.256s\n%s", s->ops->name, di.name, di.arch_name,
             s->cfg->hipcc ? s->cfg->hipcc : "");
    jobs->device_key[device] = hw_strdup(text);
    return jobs->device_key[device];
}

static void cache_key(const struct rtc_job *j, uint8_t key[RTC_CACHE_KEY_LEN])
{
    rtc_cache_key(&j->in, j->device_key, key);
}

static void *compile_thread(void *arg)
{
    struct rtc_job *j = arg;
    struct session *s = j->s;
    struct rtc_jobs *jobs = s->rtc;
    struct hw_rtc_output out;
    memset(&out, 0, sizeof out);
    struct rtc_cache *cache = s->cfg->rtc_cache;
    uint8_t key[RTC_CACHE_KEY_LEN];
    if (cache) {
        /* A hit takes no compile slot: it is a file read. */
        cache_key(j, key);
        if (rtc_cache_get(cache, key, j->in.name_count, &out)) {
            hw_debug("session %016llx: compiled '%s': cache hit, %llu bytes of code",
                     (unsigned long long)s->id, j->in.name, (unsigned long long)out.code_size);
            send_output(j, &out);
            goto done;
        }
    }
    /* The worker-wide cap: compiles of every session share these slots. */
    struct rtc_slots *slots = s->cfg->rtc_slots;
    pid_t self = getpid();
    int slot = slots ? rtc_slots_acquire(slots, self, (uint32_t)s->cfg->rtc_queue_timeout_ms,
                                         &jobs->cancel)
                     : 0;
    if (slot == -2) {
        reply_text(j, HW_RTC_INTERNAL_ERROR,
                   "hipwire: the compile was cancelled: the session is ending\n");
        goto done;
    }
    if (slot < 0) {
        char msg[320];
        snprintf(msg, sizeof msg,
                 "hipwire: the worker is running its limit of %u run-time "
                 "compiles at once (--rtc-max-concurrent); this one waited %d s for a slot "
                 "(--rtc-queue-timeout) and was refused\n",
                 rtc_slots_count(slots), s->cfg->rtc_queue_timeout_ms / 1000);
        hw_warn("session %016llx: compile '%s' refused: %u compiles running "
                "(--rtc-max-concurrent), none finished within --rtc-queue-timeout %d s",
                (unsigned long long)s->id, j->in.name, rtc_slots_count(slots),
                s->cfg->rtc_queue_timeout_ms / 1000);
        reply_text(j, HW_RTC_COMPILATION, msg);
        goto done;
    }
    int rc = s->ops->rtc_compile(s->be, j->device, &j->in, &out);
    if (slots)
        rtc_slots_release(slots, slot, self);
    wm_add(s->metrics, WM_rtc_compiler_runs, 1);
    if (rc != HW_OK || out.result != 0)
        wm_add(s->metrics, WM_rtc_compile_failures, 1);
    if (rc != HW_OK) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "hipwire: the worker's %s backend failed to run the compile "
                 "(status %d)\n",
                 s->ops->name, rc);
        reply_text(j, HW_RTC_INTERNAL_ERROR, msg);
    } else {
        hw_debug("session %016llx: compiled '%s': result %d, %llu bytes of code%s",
                 (unsigned long long)s->id, j->in.name, out.result,
                 (unsigned long long)out.code_size, cache ? " (cache miss)" : "");
        if (cache)
            rtc_cache_put(cache, key, j->in.name_count, &out);
        send_output(j, &out);
    }
done:
    job_free(j);
    pthread_mutex_lock(&jobs->lock);
    jobs->running--;
    pthread_cond_broadcast(&jobs->cond);
    pthread_mutex_unlock(&jobs->lock);
    return NULL;
}

/* Splits the tail into exactly `count` NUL-terminated strings. */
static int split_strings(char *buf, uint64_t len, uint64_t count, const char **out)
{
    uint64_t k = 0;
    char *p = buf, *end = buf + len;
    while (p < end && k < count) {
        char *nul = memchr(p, '\0', (size_t)(end - p));
        if (!nul)
            return -1;
        out[k++] = p;
        p = nul + 1;
    }
    return k == count && p == end ? 0 : -1;
}

int rtc_handle_compile(struct session *s, const struct hipr_header *h, const uint8_t *fixed)
{
    struct hipr_rtc_compile_req m;
    char why[320];
    hipr_rtc_compile_req_decode(fixed, HIPR_rtc_compile_req_SIZE, &m);
    /* Everything the allocations below depend on is checked first. */
    if (m.flags != 0 || m.header_count > HIPR_CAP_RTC_HEADERS ||
        m.option_count > HIPR_CAP_RTC_OPTIONS || m.name_count > HIPR_CAP_RTC_NAMES)
        return HW_EINVAL;
    if (m.device < 0 || m.device >= s->device_count || m.device >= HIPR_CAP_DEVICES)
        return HW_EDEVICE;
    uint64_t len = s->link.tail_left; /* <= HIPR_CAP_RTC_INPUT, checked with the header */
    uint64_t count = 2 + 2 * (uint64_t)m.header_count + m.option_count + m.name_count;
    struct rtc_jobs *jobs = jobs_of(s);
    struct rtc_job *j = hw_calloc(1, sizeof *j);
    if (!jobs || !j || !(j->strings = hw_malloc(len ? len : 1)) ||
        !(j->list = hw_calloc(count, sizeof *j->list))) {
        if (j)
            job_free(j);
        return HW_ENOMEM;
    }
    if (slink_read_tail(&s->link, j->strings, len) < 0) {
        job_free(j);
        return -1;
    }
    if (split_strings(j->strings, len, count, j->list) < 0) {
        job_free(j);
        return HW_EINVAL;
    }
    j->s = s;
    j->opcode = h->opcode;
    j->request_id = h->request_id;
    j->device = m.device;
    if (!(j->device_key = device_key(s, jobs, m.device))) {
        job_free(j);
        return HW_ENOMEM;
    }
    struct hw_rtc_input *in = &j->in;
    in->name = j->list[0];
    in->source = j->list[1];
    /* Headers come in (name, text) pairs; the backend takes two arrays. */
    const char **pairs = j->list + 2;
    j->headers = hw_calloc(2 * (size_t)m.header_count + 1, sizeof *j->headers);
    if (!j->headers) {
        job_free(j);
        return HW_ENOMEM;
    }
    for (uint32_t i = 0; i < m.header_count; i++) {
        j->headers[i] = pairs[2 * i];
        j->headers[m.header_count + i] = pairs[2 * i + 1];
    }
    in->header_count = m.header_count;
    in->header_names = j->headers;
    in->headers = j->headers + m.header_count;
    in->option_count = m.option_count;
    in->options = pairs + 2 * m.header_count;
    in->name_count = m.name_count;
    in->name_exprs = in->options + m.option_count;
    in->timeout_ms =
        s->cfg->rtc_timeout_ms > 0 ? (uint32_t)s->cfg->rtc_timeout_ms : DEFAULT_TIMEOUT_MS;
    in->max_output = s->cfg->rtc_max_output ? s->cfg->rtc_max_output : DEFAULT_MAX_OUTPUT;
    in->work_dir = s->cfg->rtc_dir;
    in->compiler = s->cfg->hipcc;
    in->cancel = &jobs->cancel;
    in->max_memory = s->cfg->rtc_max_memory;

    /* Bad input is the program's error, answered in its log like a compile
     * error, so the application sees why. */
    const char *bad = NULL;
    int bad_result = HW_RTC_INVALID_INPUT;
    for (uint32_t i = 0; !bad && i < in->header_count; i++)
        if (rtc_include_name_check(in->header_names[i]) < 0) {
            snprintf(why, sizeof why,
                     "hipwire: header name '%.200s' is not a relative path of "
                     "plain components ([A-Za-z0-9._+-], no '..')\n",
                     in->header_names[i]);
            bad = why;
        }
    for (uint32_t i = 0; !bad && i < in->option_count; i++)
        if (rtc_option_check(in->options[i], why, sizeof why - 1) < 0) {
            strcat(why, "\n");
            bad = why;
            bad_result = HW_RTC_INVALID_OPTION;
        }
    for (uint32_t i = 0; !bad && i < in->name_count; i++)
        if (strlen(in->name_exprs[i]) >= HIPR_CAP_NAME || rtc_name_expr_check(in->name_exprs[i])) {
            snprintf(why, sizeof why,
                     "hipwire: name expression %u is empty, longer than %u "
                     "bytes or not printable ASCII on one line\n",
                     i, (unsigned)HIPR_CAP_NAME - 1);
            bad = why;
        }
    if (!bad && !HW_BACKEND_HAS(s->ops, rtc_compile)) {
        snprintf(why, sizeof why,
                 "hipwire: this worker's %s backend cannot compile HIP source "
                 "at run time (docs/hiprtc.md)\n",
                 s->ops->name);
        bad = why;
        bad_result = HW_RTC_INTERNAL_ERROR;
    }
    if (bad) {
        hw_debug("session %016llx: refused compile: %s", (unsigned long long)s->id, bad);
        reply_text(j, bad_result, bad);
        job_free(j);
        return HW_OK;
    }

    /* Bounded: a client that asks for more compiles waits here, which stops
     * reading its requests (TCP backpressure) instead of growing the worker. */
    pthread_mutex_lock(&jobs->lock);
    while (jobs->running >= RTC_MAX_JOBS)
        pthread_cond_wait(&jobs->cond, &jobs->lock);
    jobs->running++;
    pthread_mutex_unlock(&jobs->lock);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int err = pthread_create(&t, &attr, compile_thread, j);
    pthread_attr_destroy(&attr);
    if (err != 0) {
        pthread_mutex_lock(&jobs->lock);
        jobs->running--;
        pthread_mutex_unlock(&jobs->lock);
        job_free(j);
        hw_warn("session %016llx: cannot start a compile thread: %s", (unsigned long long)s->id,
                strerror(err));
        return HW_ENOMEM;
    }
    return HW_OK;
}

void rtc_session_wait(struct session *s)
{
    struct rtc_jobs *jobs = s->rtc;
    if (!jobs)
        return;
    pthread_mutex_lock(&jobs->lock);
    while (jobs->running > 0)
        pthread_cond_wait(&jobs->cond, &jobs->lock);
    pthread_mutex_unlock(&jobs->lock);
}

void rtc_session_end(struct session *s)
{
    struct rtc_jobs *jobs = s->rtc;
    if (!jobs)
        return;
    pthread_mutex_lock(&jobs->lock);
    if (jobs->running)
        hw_debug("session %016llx: ending %d compile(s)", (unsigned long long)s->id, jobs->running);
    __atomic_store_n(&jobs->cancel, 1, __ATOMIC_RELEASE);
    while (jobs->running > 0)
        pthread_cond_wait(&jobs->cond, &jobs->lock);
    pthread_mutex_unlock(&jobs->lock);
    pthread_mutex_destroy(&jobs->lock);
    pthread_cond_destroy(&jobs->cond);
    for (int d = 0; d < HIPR_CAP_DEVICES; d++)
        free(jobs->device_key[d]);
    free(jobs);
    s->rtc = NULL;
}

int rtc_send_cache_stats(struct session *s, uint32_t request_id)
{
    struct hipr_rtc_cache_stats_rep r;
    memset(&r, 0, sizeof r);
    if (s->cfg->rtc_cache) {
        struct rtc_cache_stats st;
        rtc_cache_stats(s->cfg->rtc_cache, &st);
        r.enabled = 1;
        r.hits = st.hits;
        r.misses = st.misses;
        r.stores = st.stores;
        r.evictions = st.evictions;
        r.damaged = st.damaged;
        r.entries = st.entries;
        r.bytes = st.bytes;
        r.max_bytes = st.max_bytes;
    }
    uint8_t out[HIPR_rtc_cache_stats_rep_SIZE];
    hipr_rtc_cache_stats_rep_encode(out, &r);
    return slink_reply(&s->link, HIPR_OP_RTC_CACHE_STATS, request_id, HW_OK, out, sizeof out, NULL,
                       0);
}
