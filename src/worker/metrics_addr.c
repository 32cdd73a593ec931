/* metrics_addr.c - --metrics-listen's address (metrics_http.h); apart from
 * the endpoint so a build without libmicrohttpd still checks the option. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_http.h"

int metrics_parse_hostport(const char *s, char *host, size_t hostlen, int *port)
{
    const char *colon = strrchr(s, ':');
    const char *h = s;
    size_t hl;
    char *end;

    if (colon == NULL)
        return -1;
    hl = (size_t)(colon - s);
    if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
        h = s + 1;
        hl -= 2;
    }
    if (hl >= hostlen)
        return -1;
    long p = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || p < 0 || p > 65535)
        return -1;
    memcpy(host, h, hl);
    host[hl] = '\0';
    if (host[0] == '\0')
        snprintf(host, hostlen, "0.0.0.0");
    *port = (int)p;
    return 0;
}
