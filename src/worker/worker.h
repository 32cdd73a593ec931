/* worker.h - hip-worker configuration shared by the supervisor and sessions. */
#ifndef WORKER_H
#define WORKER_H

#include <stdint.h>

#include "hw_auth.h"
#include "hw_transport.h"

struct worker_info;

/* Defaults of the per-session limits (docs/worker.md). */
#define WORKER_DEFAULT_MAX_HANDLES 16384u
/* A stream costs a thread on the cpu backend and device queues elsewhere:
 * far fewer than other handles, and a budget for the whole worker, so one
 * session cannot exhaust the tasks every other session and new clients need. */
#define WORKER_DEFAULT_MAX_STREAMS       256u
#define WORKER_DEFAULT_MAX_STREAMS_TOTAL 4096u
#define WORKER_DEFAULT_MAX_INFLIGHT      (UINT64_C(256) << 20)
#define WORKER_DEFAULT_RESUME_GRACE_MS   60000u
#define WORKER_DEFAULT_RESUME_BUFFER     (UINT64_C(256) << 20)

struct rtc_slots;
struct rtc_cache;

/* --isolation (docs/worker.md, "Isolation modes"): a process per session,
 * or the sessions as threads of one device-owning process (shared_host.c). */
enum worker_isolation {
    WORKER_ISOLATION_PROCESS = 0,
    WORKER_ISOLATION_SHARED = 1,
};

struct worker_config {
    const char *bind;
    int port;
    const char *port_file; /* write the bound port here (for --port 0) */
    const char *backend;   /* cpu | cuda | hip | auto */
    int max_sessions;
    uint64_t mem_limit; /* per session, bytes; 0 = the device's size */
    int cpu_devices;
    int handshake_timeout_ms;
    const struct hw_token *token; /* NULL: no authentication (loopback or --insecure) */
    struct hw_tls_ctx *tls;       /* NULL: plain TCP only */
    int require_tls;              /* refuse plain-text connections */
    /* Per-session limits (docs/worker.md, "Limits"); quota.c reports refusals. */
    uint32_t max_handles;           /* streams, events, modules, functions: each */
    uint32_t max_streams;           /* streams of one session */
    uint32_t max_streams_total;     /* streams of all sessions together */
    uint64_t max_module_size;       /* bytes of one code object image */
    uint64_t max_inflight;          /* bytes of queued work not yet finished */
    uint64_t idle_timeout_ms;       /* 0 = never end an idle session */
    const struct worker_info *info; /* for WORKER_INFO; may be NULL */
    /* Runtime compilation (docs/hiprtc.md). */
    int rtc_timeout_ms;          /* wall time of one compile */
    uint64_t rtc_max_output;     /* bytes per file the compiler writes */
    const char *rtc_dir;         /* private compile directories go here; NULL: $TMPDIR or /tmp */
    const char *hipcc;           /* NULL: hipcc from PATH */
    uint64_t rtc_max_memory;     /* address space of the compiler process; 0: the backend's */
    int rtc_queue_timeout_ms;    /* how long a compile waits for a worker-wide slot */
    struct rtc_slots *rtc_slots; /* --rtc-max-concurrent, shared by sessions; NULL: no cap */
    struct rtc_cache *rtc_cache; /* --rtc-cache-dir, shared by sessions; NULL: no cache */
    /* Session resume (docs/worker.md): how long a session whose connection
     * broke is kept for its client to come back (0: resume off), and how
     * many bytes of unacknowledged replies it may keep. */
    uint64_t resume_grace_ms;
    uint64_t resume_buffer;
    /* --metrics-listen (docs/worker.md, "Metrics"): NULL = no endpoint. */
    const char *metrics_listen;
    const char *metrics_port_file;  /* write the metrics port here (for :0) */
    struct worker_metrics *metrics; /* shared counters; NULL without endpoint */
    /* Admission (docs/worker.md): clients past --max-sessions wait in a
     * queue of this many places (admission.c, mapped by the supervisor);
     * --prewarm session processes wait with their device started. */
    uint32_t admission_queue;
    struct admission *admission;
    int prewarm;
    /* Same-host shared-memory transport (shm_link.c): off with --no-shm;
     * the hand-over socket goes in shm_dir, each ring has shm_ring bytes. */
    int no_shm;
    const char *shm_dir;
    uint64_t shm_ring;
    /* --migrate-to HOST:PORT (migrate.c): at SIGTERM, sessions move there
     * first; NULL: they end (GOING_AWAY). migrate_wait_ms bounds the moves. */
    const char *migrate_to;
    uint64_t migrate_wait_ms;
    int isolation; /* enum worker_isolation */
};

#endif
