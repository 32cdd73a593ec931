/* worker.h - hip-worker configuration shared by the supervisor and sessions. */
#ifndef WORKER_H
#define WORKER_H

#include <stdint.h>

#include "hw_auth.h"
#include "hw_transport.h"

struct worker_config {
    const char *bind;
    int port;
    const char *port_file;    /* write the bound port here (for --port 0) */
    const char *backend;      /* cpu | cuda | hip | auto */
    int max_sessions;
    uint64_t mem_limit;       /* per session, bytes; 0 = the device's size */
    int cpu_devices;
    int handshake_timeout_ms;
    const struct hw_token *token; /* NULL: no authentication (loopback or --insecure) */
    struct hw_tls_ctx *tls;       /* NULL: plain TCP only */
    int require_tls;              /* refuse plain-text connections */
    /* Runtime compilation (docs/hiprtc.md). */
    int rtc_timeout_ms;       /* wall time of one compile */
    uint64_t rtc_max_output;  /* bytes per file the compiler writes */
    const char *rtc_dir;      /* private compile directories go here; NULL: $TMPDIR or /tmp */
    const char *hipcc;        /* NULL: hipcc from PATH */
};

#endif
