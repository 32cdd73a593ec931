/*
 * hw_worker_list.h - the TF_WORKER_HOST list, shared by the proxy and the
 * hipwire CLI.
 *
 * TF_WORKER_HOST is a comma-separated list of workers. Each entry is
 * `host`, `host:port`, `[ipv6]` or `[ipv6]:port`; a bare IPv6 address
 * (more than one colon, no brackets) has no port. Entries without a port
 * take TF_WORKER_PORT (default 18515). Spaces around entries are ignored.
 */
#ifndef HW_WORKER_LIST_H
#define HW_WORKER_LIST_H

#include <stddef.h>

#define HW_WORKER_LIST_MAX 64

struct hw_worker_addr {
    char host[256];
    int port;
};

/* Parses spec into out[0..cap). Returns the number of entries, or -1 with
 * the reason in err (an empty entry, a bad port, a host too long, more than
 * cap entries); out is untouched on failure. */
int hw_worker_list_parse(const char *spec, int default_port, struct hw_worker_addr *out, int cap,
                         char *err, size_t errlen);

/* "host:port", or "[ipv6]:port", for messages. */
void hw_worker_addr_format(const struct hw_worker_addr *a, char *buf, size_t len);

#endif
