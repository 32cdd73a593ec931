#include "hw_worker_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_port(const char *s, size_t n, int *port)
{
    char buf[8];
    char *end;
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (buf[0] < '0' || buf[0] > '9')
        return -1;
    long v = strtol(buf, &end, 10);
    if (*end || v < 1 || v > 65535)
        return -1;
    *port = (int)v;
    return 0;
}

/* One entry, s[0..n) without surrounding spaces. */
static int parse_entry(const char *s, size_t n, int default_port, struct hw_worker_addr *a,
                       char *err, size_t errlen)
{
    const char *host = s;
    size_t host_len = n;
    int port = default_port;
    const char *colon = memchr(s, ':', n);

    if (n > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close) {
            snprintf(err, errlen, "'%.*s': no closing ']'", (int)n, s);
            return -1;
        }
        host = s + 1;
        host_len = (size_t)(close - host);
        size_t rest = n - (size_t)(close + 1 - s);
        if (rest && (close[1] != ':' || parse_port(close + 2, rest - 1, &port) < 0)) {
            snprintf(err, errlen, "'%.*s': bad port", (int)n, s);
            return -1;
        }
    } else if (colon && !memchr(colon + 1, ':', n - (size_t)(colon + 1 - s))) {
        host_len = (size_t)(colon - s);
        if (parse_port(colon + 1, n - host_len - 1, &port) < 0) {
            snprintf(err, errlen, "'%.*s': bad port", (int)n, s);
            return -1;
        }
    }
    if (host_len == 0) {
        snprintf(err, errlen, "'%.*s': no host", (int)n, s);
        return -1;
    }
    if (host_len >= sizeof a->host) {
        snprintf(err, errlen, "a host name longer than %zu characters", sizeof a->host - 1);
        return -1;
    }
    memcpy(a->host, host, host_len);
    a->host[host_len] = '\0';
    a->port = port;
    return 0;
}

int hw_worker_list_parse(const char *spec, int default_port, struct hw_worker_addr *out, int cap,
                         char *err, size_t errlen)
{
    struct hw_worker_addr tmp[HW_WORKER_LIST_MAX];
    int n = 0;
    if (cap > HW_WORKER_LIST_MAX)
        cap = HW_WORKER_LIST_MAX;
    for (const char *p = spec;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *s = p;
        while (len && (*s == ' ' || *s == '\t'))
            s++, len--;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        if (len == 0) {
            snprintf(err, errlen, "an empty entry");
            return -1;
        }
        if (n == cap) {
            snprintf(err, errlen, "more than %d workers", cap);
            return -1;
        }
        if (parse_entry(s, len, default_port, &tmp[n], err, errlen) < 0)
            return -1;
        n++;
        if (!end)
            break;
        p = end + 1;
    }
    memcpy(out, tmp, (size_t)n * sizeof *out);
    return n;
}

void hw_worker_addr_format(const struct hw_worker_addr *a, char *buf, size_t len)
{
    if (strchr(a->host, ':'))
        snprintf(buf, len, "[%s]:%d", a->host, a->port);
    else
        snprintf(buf, len, "%s:%d", a->host, a->port);
}
