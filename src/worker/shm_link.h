/*
 * shm_link.h - TRANSPORT_SHM: a fresh session's byte stream moved into
 * same-host shared memory (docs/protocol.md, "Shared-memory transport").
 * Lifecycle layer: the request loop hands the request here, as it does
 * RESUME_ENABLE, because it swaps the session's link.
 */
#ifndef HIPWIRE_SHM_LINK_H
#define HIPWIRE_SHM_LINK_H

#include <stdint.h>

#include "hipr.h"

struct session;

/* TRANSPORT_SHM: a hw_status; the reply is sent on success. */
int shm_link_request(struct session *s, const struct hipr_header *h, const uint8_t *fixed);
/* Drops an offer the client never took (session teardown). */
void shm_link_drop(struct session *s);

#endif
