/*
 * copy_staged.h - H2D and D2H copies through the backend's stages
 * (backend.h, stage_*), for device memory the worker cannot address.
 */
#ifndef COPY_STAGED_H
#define COPY_STAGED_H

#include "session.h"

/* Whether the session's backend fills every stage_* slot. */
int copy_staged_available(const struct session *s);

/* Reads the current request's tail into stages and queues their copies to
 * dst on bs. Returns a hw_status, or -1 when the session must end. */
int copy_h2d_staged(struct session *s, struct hw_bstream *bs, uint64_t dst);

/* Copies n (> 0) bytes at src on bs into stages and replies to h with them:
 * at once, overlapping the device's copies with the send, when the device is
 * idle; from a completion callback otherwise. Returns HW_OK once the reply is
 * sent or will be, an error status with no reply sent, or -1 when the session
 * must end. */
int copy_d2h_staged(struct session *s, const struct hipr_header *h, struct hw_bstream *bs, int dev,
                    int device_idle, uint64_t src, uint64_t n);

#endif
