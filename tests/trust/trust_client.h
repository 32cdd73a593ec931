/*
 * trust_client.h - the authentication handshake spoken by hand, on top of
 * the hostile tests' raw client, so a test can record, replay, forge or
 * skip any step of it.
 */
#ifndef HIPWIRE_TRUST_CLIENT_H
#define HIPWIRE_TRUST_CLIENT_H

#include "hw_auth.h"
#include "raw_client.h"

/* Every byte a client sent, so the exact handshake can be replayed. */
struct trust_record {
    uint8_t bytes[1024];
    size_t len;
};

struct trust_begin {
    int status; /* AUTH_BEGIN's reply status, or RAW_* */
    uint8_t cnonce[HW_AUTH_NONCE_LEN];
    uint8_t wnonce[HW_AUTH_NONCE_LEN];
    uint32_t requires, link, heartbeat_ms;
};

/* Sends one frame (recorded when rec != NULL); returns its request id. */
uint32_t trust_send(struct raw_conn *c, uint16_t opcode, const void *fixed, size_t n,
                    struct trust_record *rec);
/* AUTH_BEGIN with a fresh client nonce for `session` (0: a new one),
 * proposing heartbeat_ms (0: none). */
void trust_begin(struct raw_conn *c, uint64_t session, uint32_t heartbeat_ms, struct trust_begin *b,
                 struct trust_record *rec);
/* AUTH_PROOF computed with tok; returns the reply status (RAW_* on no reply)
 * and, on success, checks the worker's proof (a wrong one fails the test). */
int trust_proof(struct raw_conn *c, const struct hw_token *tok, const struct trust_begin *b,
                uint64_t session, struct trust_record *rec);
/* HELLO; returns the reply status, fills c->session_id/session_pid on success. */
int trust_hello(struct raw_conn *c, struct trust_record *rec);
/* HELLO with a resume token (0: none), as trust_hello. */
int trust_hello_resumable(struct raw_conn *c, uint64_t resume_token, struct trust_record *rec);
/* connect + AUTH_BEGIN + AUTH_PROOF (tok NULL: skip the proof). 0 or -1. */
int trust_connect(struct raw_conn *c, const struct hw_token *tok);
int trust_connect_hb(struct raw_conn *c, const struct hw_token *tok, uint32_t heartbeat_ms);
/* WORKER_STATUS on an authenticated connection. 0 or -1. */
int trust_worker_status(const struct hw_token *tok, struct raw_worker_status *st);
/* Loads a token file or fails the test. */
void trust_load_token(const char *path, struct hw_token *tok);

#endif
