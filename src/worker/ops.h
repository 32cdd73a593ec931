/*
 * ops.h - the operations layer of a session: one handler per opcode of
 * hipr_spec.h, in one file per family (ops_session.c, ops_device.c,
 * ops_memory.c, ops_stream.c, ops_module.c, ops_rtc.c), chosen by
 * dispatch.c's table, and the helpers they share (ops_common.c).
 *
 * Operations see the session's layers below them (docs/architecture.md,
 * "Inside a session"): the link (session_link.h) to read tails and reply,
 * the resources (session_res.h), the limits (inflight.h, quota.h) and the
 * backend. They never call the lifecycle (handshake, resume, heartbeat,
 * the loop); the few requests that belong to it arrive here only out of
 * place and are refused.
 *
 * Who replies: a SYNC handler that returns HW_OK has sent its reply, or has
 * queued work whose completion callback will send it; one that returns an
 * error leaves the error reply to dispatch_request(). ASYNC handlers never
 * reply themselves: their errors become the session's deferred error, or a
 * direct reply when the client did not set NO_REPLY. -1 ends the session.
 *
 * Every pointer, length and handle in a request is checked before the
 * backend sees it.
 */
#ifndef OPS_H
#define OPS_H

#include "hw_os.h"
#include "inflight.h"
#include "quota.h"
#include "session.h"

/* Every handler has this shape; defined in its family's file. */
#define HANDLER(NAME) \
    int h_##NAME(struct session *s, const struct hipr_header *h, const uint8_t *fixed)
#define OPS_HANDLER_DECL_(NAME, num, req, rep, rcap, pcap, kind) HANDLER(NAME);
HIPR_OPS(OPS_HANDLER_DECL_)
#undef OPS_HANDLER_DECL_

/* A reply owed by queued work, sent by its completion callback. */
struct pending {
    struct session *s;
    uint16_t opcode;
    uint32_t request_id;
    int remaining; /* callbacks still to come (device synchronize) */
    int status;
    const void *data; /* reply tail, when the reply carries data */
    uint64_t len;
    void *to_free;
    int borrowed;     /* data is device memory (host_ptr), not a copy */
    uint64_t charged; /* against --max-inflight until the reply is sent */
};

/* The stream a request names: below HIPR_FIRST_STREAM_ID the default
 * stream of that device, else a stream handle; its device in *dev. */
int ops_resolve_stream(struct session *s, uint64_t id, struct hw_bstream **bs, int *dev);
/* HW_OK when [ptr, ptr + len) lies in one allocation; its device in *dev
 * (dev may be NULL). */
int ops_check_range(struct session *s, uint64_t ptr, uint64_t len, int *dev);
/* The same for a pitched 2D region. */
int ops_check_2d(struct session *s, uint64_t base, uint64_t pitch, uint64_t width, uint64_t height,
                 int *dev);
/* Queues fn(arg) behind every stream of `device` (-1: all). */
int ops_for_device_streams(struct session *s, int device, hw_done_fn fn, void *arg);
/* A pending reply to h, charged against --max-inflight; NULL out of memory. */
struct pending *ops_pending_new(struct session *s, const struct hipr_header *h);
/* Drops a pending reply that was never queued. */
void ops_pending_free(struct pending *p);
/* Completion callback: the last one sends the reply and frees p. */
void ops_pending_done(void *arg, int status);
/* Completion callback of a staged H2D copy: frees its record and buffer. */
void ops_stage_done(void *arg, int status);
/* The host address of device memory, or NULL when it has none. */
void *ops_host_addr(struct session *s, uint64_t dptr);
/* Whether nothing is queued on `device`. */
int ops_device_idle(struct session *s, int device);
/* Gives an allocation back to the backend. */
void ops_free_allocation(struct session *s, const struct alloc_range *r);
/* Frees a module and what refers to it (functions, global ranges). */
void ops_unload_module(struct session *s, uint64_t id, struct s_module *mod);

/* Unmaps the session's host regions (ops_region.c); after its streams are
 * drained, before the backend closes. */
void ops_regions_release(struct session *s);
/* How many host regions the session has mapped (ops_region.c). */
size_t ops_regions_count(const struct session *s);

/* Drains every stream of the session on `device` (-1: all devices). */
int session_drain(struct session *s, int device);
/* Publishes the session's allocated bytes in its status slot. */
void session_update_usage(struct session *s);

#endif
