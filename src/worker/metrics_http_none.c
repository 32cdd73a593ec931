/* metrics_http_none.c - metrics_http.h where libmicrohttpd was not found at
 * build time: --metrics-listen says so and the worker does not start, rather
 * than run without the endpoint it was asked for. */
#include <stdio.h>

#include "metrics_http.h"

struct metrics_http *metrics_http_start(const char *hostport, struct worker_metrics *m,
                                        metrics_gauges_fn gauges, void *arg, int *port_out)
{
    (void)m;
    (void)gauges;
    (void)arg;
    (void)port_out;
    fprintf(stderr,
            "hip-worker: --metrics-listen %s: this build has no metrics endpoint (libmicrohttpd "
            "was not found when it was built: apt-get install libmicrohttpd-dev and rebuild)\n",
            hostport);
    return NULL;
}

int metrics_http_fd(const struct metrics_http *h)
{
    (void)h;
    return -1;
}

void metrics_http_stop(struct metrics_http *h)
{
    (void)h;
}
