/*
 * handshake.h - a connection until it is (or rejoins) a session: TLS,
 * authentication and the first request (lifecycle layer, handshake.c).
 */
#ifndef HANDSHAKE_H
#define HANDSHAKE_H

#include "hw_auth.h"
#include "hw_transport.h"
#include "session.h"

/* A connection before it is (or rejoins) a session: its transport, and
 * what the handshake agrees on. session: 0 on a new connection, else the
 * session a routed connection must name. heartbeat_ms: in, the session's
 * interval when resuming; out, the agreed one. */
/* The largest fixed part of a request a connection may send before it is a
 * session (AUTH_BEGIN, AUTH_PROOF, HELLO, SESSION_RESUME). */
#define LINK_FIXED_MAX 64

struct link_setup {
    struct hw_transport *tx;
    const struct worker_config *cfg;
    const char *peer;
    uint64_t session;
    int heartbeat_ms;
    /* Out, on a routed connection's SESSION_RESUME: what its proof covers. */
    struct hw_auth_transcript tr;
};

/* handshake.c: TLS or plain (peeks at the first byte), then authentication
 * and the first request. link_handshake returns 0 with the accepted final
 * request (HELLO, or SESSION_RESUME on a routed connection: its header, and
 * its fixed part in final_fixed, 64 bytes), 1 after answering a status
 * query (fresh connections only; s->link.tx must be l->tx), -1 when the
 * connection must close. first: a header already read, or NULL. */
int link_accept(struct link_setup *l);
int link_handshake(struct link_setup *l, struct session *s, const uint8_t *first,
                   struct hipr_header *final_h, uint8_t *final_fixed);
/* A reply written straight to a connection that is not (yet) the session's. */
int link_reply(struct hw_transport *t, uint16_t opcode, uint32_t request_id, int status,
               const void *body, size_t body_len);

#endif
