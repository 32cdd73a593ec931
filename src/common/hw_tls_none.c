/* hw_tls_none.c - the TLS entry points of a Linux build without OpenSSL:
 * every attempt to use TLS fails with a reason that says so. (Windows has
 * hw_tls_schannel.c.) */
#include "hw_transport.h"

#include <errno.h>
#include <stdio.h>

static void no_tls(char *why, size_t why_len)
{
    snprintf(why, why_len, "this build has no TLS (OpenSSL was not found at build time)");
}

int hw_tls_available(void)
{
    return 0;
}

struct hw_tls_ctx *hw_tls_server_ctx(const char *cert_file, const char *key_file, char *why,
                                     size_t why_len)
{
    (void)cert_file;
    (void)key_file;
    no_tls(why, why_len);
    return NULL;
}

struct hw_tls_ctx *hw_tls_client_ctx(const char *ca_file, int verify, char *why, size_t why_len)
{
    (void)ca_file;
    (void)verify;
    no_tls(why, why_len);
    return NULL;
}

void hw_tls_ctx_free(struct hw_tls_ctx *ctx)
{
    (void)ctx;
}

int hw_tls_accept(struct hw_transport *t, struct hw_tls_ctx *ctx, int timeout_ms, char *why,
                  size_t why_len)
{
    (void)t;
    (void)ctx;
    (void)timeout_ms;
    no_tls(why, why_len);
    return -1;
}

int hw_tls_connect(struct hw_transport *t, struct hw_tls_ctx *ctx, const char *host, int timeout_ms,
                   char *why, size_t why_len)
{
    (void)t;
    (void)ctx;
    (void)host;
    (void)timeout_ms;
    no_tls(why, why_len);
    return -1;
}

/* Never reached: no transport becomes TLS in this build. */
ssize_t hw_tls_recv(struct hw_transport *t, void *buf, size_t n)
{
    (void)t;
    (void)buf;
    (void)n;
    errno = EPROTO;
    return -1;
}

int hw_tls_writev(struct hw_transport *t, const struct iovec *iov, int iovcnt)
{
    (void)t;
    (void)iov;
    (void)iovcnt;
    errno = EPROTO;
    return -1;
}

int hw_tls_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN])
{
    (void)t;
    (void)out;
    return -1;
}

int hw_tls_has_exporter(void)
{
    return 0;
}

int hw_tls_cert_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN])
{
    (void)t;
    (void)out;
    return -1;
}

int hw_tls_pending(struct hw_transport *t)
{
    (void)t;
    return 0;
}

void hw_tls_free(struct hw_transport *t)
{
    (void)t;
}
