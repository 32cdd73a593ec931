/*
 * hw_link.h - the client's side of a connection before it carries a
 * session's requests: one request and its reply at a time, and the
 * authentication handshake (docs/protocol.md, "Authentication").
 *
 * The proxy uses it to set up a session and to resume one; `hipwire
 * status` to authenticate its status queries. Nothing here keeps state
 * between calls, and nothing runs concurrently on the transport.
 */
#ifndef HW_LINK_H
#define HW_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "hw_auth.h"
#include "hw_transport.h"

/* Sends one request (fixed part and tail) and reads frames until the reply
 * with request_id (unsolicited frames, request_id 0, are skipped). The
 * reply's body goes to body (body_cap bytes; a success reply must fill it),
 * its tail to tail (up to tail_cap bytes, *tail_len; more is dropped).
 * Returns 0 with the reply's *status, or -1 when the link failed (errno;
 * 0 at end of stream, EPROTO for a frame that is not such a reply). */
int hw_link_call(struct hw_transport *t, uint16_t opcode, uint32_t request_id, const void *fixed,
                 size_t fixed_len, const void *req_tail, size_t req_tail_len, void *body,
                 size_t body_cap, void *tail, uint64_t tail_cap, uint64_t *tail_len, int *status);

/* A frame the worker sent on its own (request_id 0) while a call waits for
 * its reply: opcode and the payload after the reply header (at most 64
 * bytes). Returns 0 to keep waiting, -1 to give the call up. */
typedef int (*hw_link_watch_fn)(void *ctx, uint16_t opcode, const uint8_t *body, size_t len);

/* hw_link_call, showing the unsolicited frames to watch (may be NULL). */
int hw_link_call_watch(struct hw_transport *t, uint16_t opcode, uint32_t request_id,
                       const void *fixed, size_t fixed_len, const void *req_tail,
                       size_t req_tail_len, void *body, size_t body_cap, void *tail,
                       uint64_t tail_cap, uint64_t *tail_len, int *status, hw_link_watch_fn watch,
                       void *watch_ctx);

/*
 * AUTH_BEGIN, and AUTH_PROOF when the worker wants a token: the client
 * proves it holds token (len 0: none), then checks the worker's proof; a
 * client with a token refuses a worker that cannot prove it holds it too.
 * session: 0 for a new session, else the one being resumed.
 * *heartbeat_ms: in, the interval proposed; out, the one agreed. Request
 * ids 1 and 2 are used. 0, or -1 with the reason in why. On success, tr
 * (may be NULL) gets the nonces and channel binding, so that more can be
 * proven on this connection.
 */
int hw_link_authenticate(struct hw_transport *t, const struct hw_token *token, uint64_t session,
                         uint32_t *heartbeat_ms, struct hw_auth_transcript *tr, char *why,
                         size_t why_len);

#endif
