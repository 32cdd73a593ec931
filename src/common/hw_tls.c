/*
 * hw_tls.c - TLS for hw_transport, with OpenSSL (TLS 1.2 or later).
 *
 * The socket is non-blocking; every OpenSSL call runs under t->lock and a
 * thread that has to wait for the socket drops the lock and polls, so a
 * reader waiting for data never blocks a writer (see hw_transport.h).
 * Session tickets and renegotiation are off: nothing makes a read write or
 * a write read behind the caller's back.
 */
#include "hw_alloc.h"
#include "hw_transport.h"
#include "hw_time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#if OPENSSL_VERSION_NUMBER < 0x30000000L
#define SSL_get1_peer_certificate SSL_get_peer_certificate
#endif

#define WSCRATCH_SIZE  16384 /* one full TLS record of plaintext */
#define EXPORTER_LABEL "EXPORTER-hipwire-auth"

struct hw_tls_ctx {
    SSL_CTX *ctx;
};

int hw_tls_available(void)
{
    return 1;
}

static void ssl_why(char *why, size_t why_len, const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "";
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    snprintf(why, why_len, "%s%s%s", what, e ? ": " : "", buf);
    ERR_clear_error();
}

static SSL_CTX *ctx_common(const SSL_METHOD *m)
{
    SSL_CTX *ctx = SSL_CTX_new(m);
    if (!ctx)
        return NULL;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx,
                        SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_TICKET);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* AES-128-GCM first: the fastest with AES instructions, and ample. */
    SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"
                                  "TLS_CHACHA20_POLY1305_SHA256");
    /* Bulk copies: read many records per recv() instead of two per record. */
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_default_read_buffer_len(ctx, 256 * 1024);
    return ctx;
}

struct hw_tls_ctx *hw_tls_server_ctx(const char *cert_file, const char *key_file, char *why,
                                     size_t why_len)
{
    struct hw_tls_ctx *c = hw_calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    c->ctx = ctx_common(TLS_server_method());
    if (!c->ctx) {
        ssl_why(why, why_len, "cannot create a TLS context");
        goto fail;
    }
    SSL_CTX_set_num_tickets(c->ctx, 0);
    if (SSL_CTX_use_certificate_chain_file(c->ctx, cert_file) != 1) {
        char what[512];
        snprintf(what, sizeof what, "cannot load the certificate %s", cert_file);
        ssl_why(why, why_len, what);
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(c->ctx, key_file, SSL_FILETYPE_PEM) != 1) {
        char what[512];
        snprintf(what, sizeof what, "cannot load the private key %s", key_file);
        ssl_why(why, why_len, what);
        goto fail;
    }
    if (SSL_CTX_check_private_key(c->ctx) != 1) {
        ssl_why(why, why_len, "the private key does not match the certificate");
        goto fail;
    }
    return c;
fail:
    hw_tls_ctx_free(c);
    return NULL;
}

struct hw_tls_ctx *hw_tls_client_ctx(const char *ca_file, int verify, char *why, size_t why_len)
{
    struct hw_tls_ctx *c = hw_calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    c->ctx = ctx_common(TLS_client_method());
    if (!c->ctx) {
        ssl_why(why, why_len, "cannot create a TLS context");
        goto fail;
    }
    if (ca_file && *ca_file) {
        if (SSL_CTX_load_verify_locations(c->ctx, ca_file, NULL) != 1) {
            char what[512];
            snprintf(what, sizeof what, "cannot load the CA file %s", ca_file);
            ssl_why(why, why_len, what);
            goto fail;
        }
    } else if (SSL_CTX_set_default_verify_paths(c->ctx) != 1) {
        ssl_why(why, why_len, "cannot load the system's trusted certificates");
        goto fail;
    }
    SSL_CTX_set_verify(c->ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
    return c;
fail:
    hw_tls_ctx_free(c);
    return NULL;
}

void hw_tls_ctx_free(struct hw_tls_ctx *c)
{
    if (!c)
        return;
    SSL_CTX_free(c->ctx);
    free(c);
}

/*
 * OpenSSL's socket BIO writes with write(2): to a peer that reset the
 * connection that raises SIGPIPE, which kills an application that has not
 * ignored it (the proxy lives inside one). This BIO is the socket BIO with
 * its write done by send(2) with MSG_NOSIGNAL; the failure comes back as
 * EPIPE instead.
 */
static BIO_METHOD *nosig_method;
static pthread_once_t nosig_once = PTHREAD_ONCE_INIT;

static int nosig_write(BIO *b, const char *data, int len)
{
    int fd = -1;
    BIO_get_fd(b, &fd);
    ssize_t r;
    do
        r = send(fd, data, (size_t)len, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    BIO_clear_retry_flags(b);
    if (r <= 0 && BIO_sock_should_retry((int)r))
        BIO_set_retry_write(b);
    return (int)r;
}

static void nosig_init(void)
{
    const BIO_METHOD *sock = BIO_s_socket();
    BIO_METHOD *m = BIO_meth_new(BIO_TYPE_SOCKET, "hipwire socket");
    if (!m)
        return;
    BIO_meth_set_write(m, nosig_write);
    BIO_meth_set_read(m, BIO_meth_get_read(sock));
    BIO_meth_set_puts(m, BIO_meth_get_puts(sock));
    BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(sock));
    BIO_meth_set_create(m, BIO_meth_get_create(sock));
    BIO_meth_set_destroy(m, BIO_meth_get_destroy(sock));
    nosig_method = m;
}

/* The SSL reads and writes fd through the no-SIGPIPE BIO. 1, or 0. */
static int set_socket(SSL *ssl, int fd)
{
    pthread_once(&nosig_once, nosig_init);
    BIO *bio = nosig_method ? BIO_new(nosig_method) : NULL;
    if (!bio)
        return 0;
    BIO_set_fd(bio, fd, BIO_NOCLOSE);
    SSL_set_bio(ssl, bio, bio);
    return 1;
}

/* Waits until fd is ready for events; timeout_ms 0 waits forever. */
static int wait_fd(int fd, short events, int timeout_ms)
{
    for (;;) {
        struct pollfd p = { .fd = fd, .events = events };
        int r = poll(&p, 1, timeout_ms > 0 ? timeout_ms : -1);
        if (r > 0)
            return 0;
        if (r == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (errno != EINTR)
            return -1;
    }
}

static int handshake(struct hw_transport *t, SSL *ssl, int server, int timeout_ms, char *why,
                     size_t why_len)
{
    int64_t deadline = (int64_t)hw_now_ms() + timeout_ms;
    for (;;) {
        ERR_clear_error();
        int r = server ? SSL_accept(ssl) : SSL_connect(ssl);
        if (r == 1)
            return 0;
        int e = SSL_get_error(ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            int64_t left = deadline - (int64_t)hw_now_ms();
            if (left <= 0 ||
                wait_fd(t->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, (int)left) < 0) {
                snprintf(why, why_len, "TLS handshake timed out");
                return -1;
            }
            continue;
        }
        long vr = SSL_get_verify_result(ssl);
        if (!server && vr != X509_V_OK) {
            snprintf(why, why_len, "certificate verification failed: %s",
                     X509_verify_cert_error_string(vr));
            ERR_clear_error();
        } else if (e == SSL_ERROR_SYSCALL || e == SSL_ERROR_ZERO_RETURN) {
            snprintf(why, why_len, "TLS handshake: the peer closed the connection%s",
                     server ? "" : " (does the worker have --tls-cert?)");
        } else {
            ssl_why(why, why_len, "TLS handshake failed");
        }
        return -1;
    }
}

static int tls_start(struct hw_transport *t, struct hw_tls_ctx *ctx, const char *host, int server,
                     int timeout_ms, char *why, size_t why_len)
{
    SSL *ssl = SSL_new(ctx->ctx);
    uint8_t *scratch = hw_malloc(WSCRATCH_SIZE);
    int fl = fcntl(t->fd, F_GETFL);
    if (!ssl || !scratch || fl < 0 || fcntl(t->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        !set_socket(ssl, t->fd)) {
        ssl_why(why, why_len, "cannot set up TLS");
        goto fail;
    }
    if (!server && host) {
        struct in6_addr a6;
        struct in_addr a4;
        int is_ip = inet_pton(AF_INET, host, &a4) == 1 || inet_pton(AF_INET6, host, &a6) == 1;
        if (is_ip) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
        } else {
            SSL_set_tlsext_host_name(ssl, host);
            SSL_set1_host(ssl, host);
        }
    }
    if (handshake(t, ssl, server, timeout_ms, why, why_len) < 0)
        goto fail;
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        snprintf(why, why_len, "cannot set up TLS");
        goto fail;
    }
    t->ssl = ssl;
    t->wscratch = scratch;
    return 0;
fail:
    SSL_free(ssl);
    free(scratch);
    if (fl >= 0)
        fcntl(t->fd, F_SETFL, fl);
    return -1;
}

int hw_tls_accept(struct hw_transport *t, struct hw_tls_ctx *ctx, int timeout_ms, char *why,
                  size_t why_len)
{
    return tls_start(t, ctx, NULL, 1, timeout_ms, why, why_len);
}

int hw_tls_connect(struct hw_transport *t, struct hw_tls_ctx *ctx, const char *host, int timeout_ms,
                   char *why, size_t why_len)
{
    return tls_start(t, ctx, host, 0, timeout_ms, why, why_len);
}

ssize_t hw_tls_recv(struct hw_transport *t, void *buf, size_t n)
{
    SSL *ssl = t->ssl;
    int want = n > INT_MAX ? INT_MAX : (int)n;
    for (;;) {
        pthread_mutex_lock(&t->lock);
        ERR_clear_error();
        int r = SSL_read(ssl, buf, want);
        int e = r > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, r);
        int saved = errno;
        pthread_mutex_unlock(&t->lock);
        if (r > 0)
            return r;
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            int budget = hw_tx_wait_budget(t);
            if (budget < 0 ||
                wait_fd(t->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, budget) < 0)
                return -1;
            continue;
        }
        if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && saved == 0)) {
            errno = 0;
            return 0;
        }
        ERR_clear_error();
        errno = e == SSL_ERROR_SYSCALL && saved ? saved : EPROTO;
        return -1;
    }
}

static int write_all(struct hw_transport *t, const uint8_t *p, size_t n)
{
    SSL *ssl = t->ssl;
    while (n > 0) {
        int want = n > INT_MAX ? INT_MAX : (int)n;
        pthread_mutex_lock(&t->lock);
        ERR_clear_error();
        int r = SSL_write(ssl, p, want);
        int e = r > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, r);
        int saved = errno;
        pthread_mutex_unlock(&t->lock);
        if (r > 0) {
            p += r;
            n -= (size_t)r;
            continue;
        }
        if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
            if (wait_fd(t->fd, e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN, t->send_timeout_ms) <
                0)
                return -1;
            continue;
        }
        ERR_clear_error();
        errno = e == SSL_ERROR_SYSCALL && saved ? saved : EPIPE;
        return -1;
    }
    return 0;
}

/* Small pieces (headers, fixed parts, small tails) are gathered into one
 * record; a piece of a record's size or more goes out from its own memory. */
int hw_tls_writev(struct hw_transport *t, const struct iovec *iov, int iovcnt)
{
    size_t fill = 0;
    for (int i = 0; i < iovcnt; i++) {
        const uint8_t *p = iov[i].iov_base;
        size_t n = iov[i].iov_len;
        while (n > 0) {
            if (fill == 0 && n >= WSCRATCH_SIZE) {
                size_t whole = n - n % WSCRATCH_SIZE;
                if (write_all(t, p, whole) < 0)
                    return -1;
                p += whole;
                n -= whole;
                continue;
            }
            size_t take = WSCRATCH_SIZE - fill < n ? WSCRATCH_SIZE - fill : n;
            memcpy(t->wscratch + fill, p, take);
            fill += take;
            p += take;
            n -= take;
            if (fill == WSCRATCH_SIZE) {
                if (write_all(t, t->wscratch, fill) < 0)
                    return -1;
                fill = 0;
            }
        }
    }
    return fill ? write_all(t, t->wscratch, fill) : 0;
}

int hw_tls_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN])
{
    pthread_mutex_lock(&t->lock);
    int ok = SSL_export_keying_material(t->ssl, out, HW_TLS_CHANNEL_BINDING_LEN, EXPORTER_LABEL,
                                        strlen(EXPORTER_LABEL), NULL, 0, 0);
    pthread_mutex_unlock(&t->lock);
    return ok == 1 ? 0 : -1;
}

int hw_tls_has_exporter(void)
{
    return 1;
}

/* SHA-256 of the worker's certificate: on the worker its own, on a client
 * the peer's (a Windows client binds to this; docs/security.md). */
int hw_tls_cert_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN])
{
    unsigned int len = 0;
    int ok = 0;
    pthread_mutex_lock(&t->lock);
    if (SSL_is_server(t->ssl)) {
        X509 *cert = SSL_get_certificate(t->ssl);
        ok = cert && X509_digest(cert, EVP_sha256(), out, &len) == 1;
    } else {
        X509 *cert = SSL_get1_peer_certificate(t->ssl);
        ok = cert && X509_digest(cert, EVP_sha256(), out, &len) == 1;
        X509_free(cert);
    }
    pthread_mutex_unlock(&t->lock);
    return ok && len == HW_TLS_CHANNEL_BINDING_LEN ? 0 : -1;
}

int hw_tls_pending(struct hw_transport *t)
{
    pthread_mutex_lock(&t->lock);
    int n = SSL_pending(t->ssl);
    pthread_mutex_unlock(&t->lock);
    return n;
}

void hw_tls_free(struct hw_transport *t)
{
    SSL_free(t->ssl);
    t->ssl = NULL;
    free(t->wscratch);
    t->wscratch = NULL;
    pthread_mutex_destroy(&t->lock);
}
