/*
 * admission.h - the proxy's side of waiting for a session: what the
 * worker's SESSION_WAIT frames say between HELLO and its reply, and the
 * bounds on each kind of wait (docs/client.md).
 *
 *   TF_CONNECT_TIMEOUT_MS       connect, TLS, authentication, and the
 *                               silence allowed before the worker's first
 *                               notice (default 5000)
 *   TF_DEVICE_START_TIMEOUT_MS  the worker's device start-up (default 120000)
 *   TF_ADMISSION_TIMEOUT_MS     waiting in a full worker's admission queue,
 *                               and retrying busy workers (default 300000;
 *                               0: no limit)
 */
#ifndef HW_CLIENT_ADMISSION_H
#define HW_CLIENT_ADMISSION_H

#include <stddef.h>
#include <stdint.h>

#include "hw_transport.h"

#define HW_CONNECT_TIMEOUT_MS      5000
#define HW_DEVICE_START_TIMEOUT_MS 120000
#define HW_ADMISSION_TIMEOUT_MS    300000

struct hw_admit {
    struct hw_transport *tx;
    const char *where; /* the worker, for messages */
    int connect_ms, start_ms, admission_ms;
    uint64_t queued_since_ms, starting_since_ms; /* 0: not (yet) in that state */
    uint32_t state, position;
    uint32_t retry_after_ms; /* set by a BUSY notice: the refusal that follows is "busy" */
    char why[200];           /* why the wait was given up, when it was */
};

/* Reads the three bounds from the environment, for a HELLO to `where` on tx. */
void hw_admit_init(struct hw_admit *a, struct hw_transport *tx, const char *where);
/* hw_link_watch_fn for HELLO. */
int hw_admit_watch(void *ctx, uint16_t opcode, const uint8_t *body, size_t len);
/* After a HELLO that failed while the worker said it was on it: sets why
 * to what the wait ran into (a bound, or the worker's silence). */
void hw_admit_explain(struct hw_admit *a);

#endif
