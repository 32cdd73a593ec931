/* status_ask.h - one HIPR request before HELLO (WORKER_STATUS, WORKER_DRAIN,
 * ...) on a fresh connection, secured as the proxy would (cmd_status.c). */
#ifndef HIPWIRE_CLI_STATUS_ASK_H
#define HIPWIRE_CLI_STATUS_ASK_H

#include <stddef.h>
#include <stdint.h>

#include "hw_auth.h"
#include "hw_transport.h"
#include "hw_worker_list.h"

/* TLS and the token, as the proxy reads them (docs/client.md). */
struct status_security {
    struct hw_tls_ctx *tls; /* NULL: plain TCP */
    struct hw_token token;  /* len 0: none */
};

/* TF_WORKER_TOKEN[_FILE], TF_WORKER_TLS, TF_WORKER_CA, TF_WORKER_TLS_VERIFY.
 * 0, or -1 with the reason in err. */
int security_from_env(struct status_security *sec, char *err, size_t errlen);
/* One request (its fixed part req) on a fresh connection; its reply body
 * (after the reply header) in *body (malloc'd). 0, or -1 with the reason in
 * err. */
int status_ask(const struct hw_worker_addr *a, const struct status_security *sec, int timeout_ms,
               uint16_t opcode, const void *req, size_t req_len, uint8_t **body, size_t *body_len,
               char *err, size_t errlen);
/* The same with a request tail. */
int status_ask_tail(const struct hw_worker_addr *a, const struct status_security *sec,
                    int timeout_ms, uint16_t opcode, const void *req, size_t req_len,
                    const void *tail, size_t tail_len, uint8_t **body, size_t *body_len, char *err,
                    size_t errlen);

#endif
