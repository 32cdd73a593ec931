/*
 * metrics_http.h - the /metrics endpoint of hip-worker (libmicrohttpd, one
 * thread of the supervisor). Sessions never touch it: they only add to
 * their worker_metrics slot.
 */
#ifndef METRICS_HTTP_H
#define METRICS_HTTP_H

#include "worker_metrics.h"

struct metrics_http;
typedef void (*metrics_gauges_fn)(void *arg, struct wm_gauges *out);

/* Listens on "HOST:PORT" ("[v6]:PORT", ":PORT" for every address; PORT 0
 * picks one, reported in *port_out). NULL with a message on stderr. */
struct metrics_http *metrics_http_start(const char *hostport, struct worker_metrics *m,
                                        metrics_gauges_fn gauges, void *arg, int *port_out);
/* The listening socket, for a forked session to close. */
int metrics_http_fd(const struct metrics_http *h);
void metrics_http_stop(struct metrics_http *h);

/* Splits "HOST:PORT"; 0, or -1 when malformed. host: at least 256 bytes. */
int metrics_parse_hostport(const char *s, char *host, size_t hostlen, int *port);

#endif
