/*
 * dispatch.h - the operations layer's entry points for the lifecycle above it
 * (dispatch.c).
 */
#ifndef DISPATCH_H
#define DISPATCH_H

#include "session.h"

/* Handles one request whose fixed part is in `fixed`. Returns a hw_status,
 * or -1 when the session must end. See ops.h for who replies. */
int dispatch_request(struct session *s, const struct hipr_header *h,
                     const struct hipr_op_info *info, const uint8_t *fixed);
/* Frees what the session holds, in dependency order. */
void session_release_all(struct session *s);
/* What dispatch_request does with a handler's status rc, for a request the
 * lifecycle layer answered itself (RESUME_ENABLE): the error reply of a
 * SYNC request, the reply or deferred error of an ASYNC one. Returns rc,
 * or -1 when rc < 0. */
int dispatch_finish(struct session *s, const struct hipr_header *h, const struct hipr_op_info *info,
                    int rc);

#endif
