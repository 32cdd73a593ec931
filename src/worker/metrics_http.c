#include "metrics_http.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_net.h"

struct metrics_http {
    struct MHD_Daemon *d;
    int fd;
    struct worker_metrics *m;
    metrics_gauges_fn gauges;
    void *arg;
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **con_cls)
{
    struct metrics_http *h = cls;
    struct MHD_Response *r;
    enum MHD_Result ret;
    unsigned status = MHD_HTTP_OK;
    char *body = NULL;
    size_t len = 0;

    (void)version;
    (void)upload;
    (void)upload_len;
    (void)con_cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static const char msg[] = "only GET\n";
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
        r = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
    } else if (strcmp(url, "/metrics") != 0) {
        static const char msg[] = "hip-worker serves /metrics\n";
        status = MHD_HTTP_NOT_FOUND;
        r = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
    } else {
        struct wm_gauges g;
        memset(&g, 0, sizeof g);
        h->gauges(h->arg, &g);
        body = worker_metrics_render(h->m, &g, &len);
        if (body == NULL)
            return MHD_NO;
        r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    }
    if (r == NULL) {
        free(body);
        return MHD_NO;
    }
    if (status == MHD_HTTP_OK)
        MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

struct metrics_http *metrics_http_start(const char *hostport, struct worker_metrics *m,
                                        metrics_gauges_fn gauges, void *arg, int *port_out)
{
    char host[256];
    int port, fd = -1;
    struct metrics_http *h = NULL;

    if (metrics_parse_hostport(hostport, host, sizeof host, &port) < 0) {
        fprintf(stderr, "hip-worker: --metrics-listen %s: expected HOST:PORT\n", hostport);
        return NULL;
    }
    int err = hw_tcp_listen(host, port, &fd, port_out);
    if (err < 0) {
        fprintf(stderr, "hip-worker: --metrics-listen %s: %s\n", hostport, strerror(-err));
        return NULL;
    }
    h = hw_calloc(1, sizeof *h);
    if (h == NULL)
        goto fail;
    h->fd = fd;
    h->m = m;
    h->gauges = gauges;
    h->arg = arg;
    h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, answer, h,
                            MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned)10, MHD_OPTION_END);
    if (h->d == NULL) {
        fprintf(stderr, "hip-worker: --metrics-listen %s: cannot start the HTTP server\n",
                hostport);
        goto fail;
    }
    return h;
fail:
    free(h);
    close(fd);
    return NULL;
}

int metrics_http_fd(const struct metrics_http *h)
{
    return h ? h->fd : -1;
}

void metrics_http_stop(struct metrics_http *h)
{
    if (h == NULL)
        return;
    MHD_stop_daemon(h->d); /* closes the listening socket it was given */
    free(h);
}
