/*
 * hw_auth.h - the shared-secret handshake of docs/protocol.md ("Authentication").
 *
 * Both sides hold the same token. The client sends a fresh nonce, the worker
 * answers with its own; each side then proves it holds the token with an
 * HMAC-SHA256 over both nonces, the session being opened or resumed and,
 * on TLS, the channel's exported keying material. The token itself never
 * crosses the wire, and a recorded handshake is useless against the next
 * worker nonce.
 */
#ifndef HW_AUTH_H
#define HW_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define HW_AUTH_NONCE_LEN 32
#define HW_AUTH_PROOF_LEN 32
#define HW_AUTH_TOKEN_MIN 16
#define HW_AUTH_TOKEN_MAX 1024

struct hw_token {
    size_t len; /* 0: no token configured */
    uint8_t key[HW_AUTH_TOKEN_MAX];
};

/* A token from a string or a file: surrounding whitespace (a trailing
 * newline, say) is not part of it. 0, or -1 with a reason in why. */
int hw_token_from_string(const char *s, struct hw_token *t, char *why, size_t why_len);
int hw_token_from_file(const char *path, struct hw_token *t, char *why, size_t why_len);
void hw_token_clear(struct hw_token *t);

/* Fills buf from the kernel's random source. 0 or -1. */
int hw_random_bytes(void *buf, size_t n);

/* What both proofs of one connection cover, kept to prove more on it
 * (SESSION_RESUME). */
struct hw_auth_transcript {
    uint8_t cnonce[HW_AUTH_NONCE_LEN];
    uint8_t wnonce[HW_AUTH_NONCE_LEN];
    uint8_t binding[32];
};

enum hw_proof_role {
    HW_PROOF_CLIENT,
    HW_PROOF_WORKER,
    HW_PROOF_RESUME_CLIENT,
    HW_PROOF_RESUME_WORKER
};

/* HMAC-SHA256(token, label(role) | cnonce | wnonce | u64le session | binding).
 * session: 0 for a new session, else the one being resumed. binding: the TLS
 * channel binding, or all zeros on a plain link. */
void hw_auth_proof(const struct hw_token *t, enum hw_proof_role role,
                   const uint8_t cnonce[HW_AUTH_NONCE_LEN], const uint8_t wnonce[HW_AUTH_NONCE_LEN],
                   uint64_t session, const uint8_t binding[32], uint8_t out[HW_AUTH_PROOF_LEN]);

/* The proofs of SESSION_RESUME: hw_auth_proof keyed by the session's 64-bit
 * resume token (little-endian) with the resume roles, over the routed
 * connection's AUTH_BEGIN nonces. Whoever cannot answer with the worker's
 * proof is not the session, and learns nothing that resumes it later. */
void hw_resume_proof(uint64_t resume_token, enum hw_proof_role role,
                     const uint8_t cnonce[HW_AUTH_NONCE_LEN],
                     const uint8_t wnonce[HW_AUTH_NONCE_LEN], uint64_t session,
                     const uint8_t binding[32], uint8_t out[HW_AUTH_PROOF_LEN]);

#endif
