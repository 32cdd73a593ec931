/*
 * hw_transport.h - the byte stream under HIPR: plain TCP, TLS, or shared
 * memory on one host (hw_shm.h).
 *
 * Both the worker and the proxy read and write frames only through this, so
 * the protocol code does not know which one it runs on. Plain TCP keeps the
 * blocking recv/sendmsg fast path with no extra copy or lock. TLS runs the
 * socket non-blocking and holds a mutex only around each OpenSSL call, never
 * across a wait, so one thread may sit in a read while another writes (an
 * SSL object must never be used by two threads at once).
 *
 * Callers serialise their writers (the proxy's write lock, the worker's send
 * lock) and have at most one reader at a time.
 */
#ifndef HW_TRANSPORT_H
#define HW_TRANSPORT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hw_os.h"

struct hw_tls_ctx;  /* an SSL_CTX: certificates, verification settings */
struct hw_shm_link; /* hw_shm.h */

struct hw_transport {
    int fd;
    void *ssl;            /* SSL *; NULL on a plain link */
    pthread_mutex_t lock; /* TLS: one OpenSSL call at a time */
    int timeout_ms;       /* receive timeout; 0 = wait forever */
    int send_timeout_ms;  /* a write that makes no progress for this long fails; 0 = none */
    uint64_t deadline_ms; /* hw_now_ms() after which reads fail; 0 = none */
    uint8_t *wscratch;    /* TLS: small pieces of a writev become one record */
    /* Same-host rings: when set, every read and write goes through them and
     * the socket (TCP or TLS) only says whether the peer is still there. */
    struct hw_shm_link *shm;
};

#define HW_TLS_CHANNEL_BINDING_LEN 32

/* A plain transport over a connected socket. */
void hw_tx_init_plain(struct hw_transport *t, int fd);
int hw_tx_is_tls(const struct hw_transport *t);
/* Whether the stream runs through shared memory. */
int hw_tx_is_shm(const struct hw_transport *t);
/* From now on the stream runs through l (owned by t from then on); the
 * caller makes sure no byte is in flight on the socket. */
void hw_tx_attach_shm(struct hw_transport *t, struct hw_shm_link *l);
/* "shared memory", "TLS" or "plain TCP", for log lines. */
const char *hw_tx_kind(const struct hw_transport *t);

/* Like recv(): > 0 bytes, 0 at end of stream (errno 0), -1 on error
 * (ETIMEDOUT when the receive timeout passed). */
ssize_t hw_tx_recv(struct hw_transport *t, void *buf, size_t n);
/* Exactly n bytes. 0, or -1 (errno 0 at end of stream). */
int hw_tx_read_full(struct hw_transport *t, void *buf, size_t n);
int hw_tx_discard(struct hw_transport *t, uint64_t n);
/* All of iov (modified). 0 or -1. */
int hw_tx_writev_full(struct hw_transport *t, struct iovec *iov, int iovcnt);
int hw_tx_write_full(struct hw_transport *t, const void *buf, size_t n);
/* 1 when a read would find data within timeout_ms (decrypted data already
 * buffered counts), 0 when not, -1 on error. */
int hw_tx_poll_readable(struct hw_transport *t, int timeout_ms);
/* Receive timeout for later reads; 0 removes it. */
void hw_tx_set_recv_timeout(struct hw_transport *t, int ms);
/* A write blocked for ms with no progress (a peer that stopped reading)
 * fails with errno ETIMEDOUT; 0 removes the limit. */
void hw_tx_set_send_timeout(struct hw_transport *t, int ms);
/* One deadline for every read from now on (a handshake: a peer that sends a
 * byte at a time cannot stretch it); 0 removes it. */
void hw_tx_set_deadline(struct hw_transport *t, int ms);
/* How long the next wait for input may take, in ms (0: forever), or -1 with
 * errno ETIMEDOUT when the deadline has passed. */
int hw_tx_wait_budget(const struct hw_transport *t);
/* The TLS channel binding (exported keying material): 0, or -1 on a plain
 * link (out is then all zeros). */
int hw_tx_channel_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN]);
/* Wakes every thread blocked on the link; the transport stays valid. */
void hw_tx_shutdown(struct hw_transport *t);
/* Frees the TLS state and closes the socket. */
void hw_tx_close(struct hw_transport *t);
/* Moves an open transport (no thread using it) into dst, which must hold
 * none; src is left closed. How a resumed connection replaces a lost one. */
int hw_tx_move(struct hw_transport *dst, struct hw_transport *src);

/* ---- TLS (hw_tls.c with OpenSSL, hw_tls_schannel.c on Windows, hw_tls_none.c
 * without either) ---------------------------------------------------------- */

/* Whether this build has TLS. */
int hw_tls_available(void);
/* Worker side: certificate chain and key (PEM). NULL with a reason. */
struct hw_tls_ctx *hw_tls_server_ctx(const char *cert_file, const char *key_file, char *why,
                                     size_t why_len);
/* Client side: ca_file NULL uses the system's trust store; verify 0 turns
 * certificate checks off (the caller says so loudly). */
struct hw_tls_ctx *hw_tls_client_ctx(const char *ca_file, int verify, char *why, size_t why_len);
void hw_tls_ctx_free(struct hw_tls_ctx *ctx);
/* TLS handshake on t's socket, within timeout_ms; on success t becomes a TLS
 * transport. host: the name or address the certificate must match. */
int hw_tls_accept(struct hw_transport *t, struct hw_tls_ctx *ctx, int timeout_ms, char *why,
                  size_t why_len);
int hw_tls_connect(struct hw_transport *t, struct hw_tls_ctx *ctx, const char *host, int timeout_ms,
                   char *why, size_t why_len);
/* The first byte of every TLS connection (a handshake record). */
#define HW_TLS_RECORD_HANDSHAKE 0x16

/* Used by hw_transport.c for TLS links. */
ssize_t hw_tls_recv(struct hw_transport *t, void *buf, size_t n);
int hw_tls_writev(struct hw_transport *t, const struct iovec *iov, int iovcnt);
int hw_tls_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN]);
/* Whether hw_tls_binding works here (RFC 5705 exporter: OpenSSL yes,
 * Schannel no). A client without it asks for the certificate binding. */
int hw_tls_has_exporter(void);
/* The certificate binding of a TLS link: SHA-256 of the worker's
 * certificate (DER), the one the worker sent on either side. 0 or -1. */
int hw_tls_cert_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN]);
int hw_tls_pending(struct hw_transport *t);
void hw_tls_free(struct hw_transport *t);

#endif
