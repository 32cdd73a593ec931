/* http.c - the HTTP server (libmicrohttpd, a thread per connection so an
 * SSE stream may block waiting for its next event). Bodies are collected
 * up to --max-body; beyond it the request is answered 413 without
 * buffering the rest. */
#include "hw_alloc.h"
#include "service.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

struct req {
    char *body;
    size_t len;
    int too_large;
};

static struct MHD_Daemon *daemon_;

int http_json(struct MHD_Connection *c, int status, json_t *body)
{
    char *s = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (!s)
        return MHD_NO;
    size_t n = strlen(s);
    char *withnl = hw_realloc(s, n + 2);
    if (withnl) {
        s = withnl;
        s[n++] = '\n';
        s[n] = '\0';
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(n, s, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    int rc = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    struct req *rq = *con_cls;
    if (!rq) {
        rq = hw_calloc(1, sizeof *rq);
        if (!rq)
            return MHD_NO;
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_size) {
        if (!rq->too_large) {
            if (rq->len + *upload_size > svc_cfg()->max_body) {
                rq->too_large = 1;
                free(rq->body);
                rq->body = NULL;
                rq->len = 0;
            } else {
                char *b = hw_realloc(rq->body, rq->len + *upload_size + 1);
                if (!b)
                    return MHD_NO;
                memcpy(b + rq->len, upload, *upload_size);
                rq->len += *upload_size;
                b[rq->len] = '\0';
                rq->body = b;
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    metrics_count("http_requests", method);
    return api_route(c, method, url, rq->body ? rq->body : "", rq->len, rq->too_large) == MHD_YES
               ? MHD_YES
               : MHD_NO;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    struct req *rq = *con_cls;
    if (rq) {
        free(rq->body);
        free(rq);
        *con_cls = NULL;
    }
}

int http_start(const char *host, int port)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    if (getaddrinfo(host, ps, &hints, &res) != 0) {
        fprintf(stderr, "hipwire-service: cannot resolve %s\n", host);
        return -1;
    }
    unsigned flags =
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (res->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    daemon_ =
        MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR,
                         res->ai_addr, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                         MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)600, MHD_OPTION_END);
    freeaddrinfo(res);
    if (!daemon_) {
        fprintf(stderr, "hipwire-service: cannot listen on %s:%d\n", host, port);
        return -1;
    }
    return 0;
}

void http_stop(void)
{
    if (daemon_)
        MHD_stop_daemon(daemon_);
    daemon_ = NULL;
}
