/* TF_WORKER_HOST parsing (src/common/hw_worker_list.c): every accepted form,
 * and a clear reason for each rejected one with the output left alone. */
#include <string.h>

#include "hw_worker_list.h"
#include "testutil.h"

static void expect_entry(const struct hw_worker_addr *a, const char *host, int port)
{
    if (strcmp(a->host, host) != 0 || a->port != port) {
        fprintf(stderr, "got %s port %d, expected %s port %d\n", a->host, a->port, host, port);
        exit(1);
    }
}

static void expect_error(const char *spec, const char *reason)
{
    struct hw_worker_addr out[4];
    char err[256] = "";
    memset(out, 0x5a, sizeof out);
    CHECK_EQ(hw_worker_list_parse(spec, 18515, out, 4, err, sizeof err), -1);
    if (!strstr(err, reason)) {
        fprintf(stderr, "'%s': error '%s' does not say '%s'\n", spec, err, reason);
        exit(1);
    }
    CHECK(out[0].port == 0x5a5a5a5a); /* untouched */
}

int main(void)
{
    struct hw_worker_addr w[HW_WORKER_LIST_MAX];
    char err[256], buf[300];

    CHECK_EQ(hw_worker_list_parse("gpu1", 18515, w, 8, err, sizeof err), 1);
    expect_entry(&w[0], "gpu1", 18515);

    CHECK_EQ(hw_worker_list_parse(" a , b:2000,10.0.0.3:7 ,[fe80::1]:9,::1,[::2]", 4000, w, 8, err,
                                  sizeof err),
             6);
    expect_entry(&w[0], "a", 4000);
    expect_entry(&w[1], "b", 2000);
    expect_entry(&w[2], "10.0.0.3", 7);
    expect_entry(&w[3], "fe80::1", 9);
    expect_entry(&w[4], "::1", 4000); /* bare IPv6: no port */
    expect_entry(&w[5], "::2", 4000);
    hw_worker_addr_format(&w[3], buf, sizeof buf);
    CHECK(strcmp(buf, "[fe80::1]:9") == 0);
    hw_worker_addr_format(&w[1], buf, sizeof buf);
    CHECK(strcmp(buf, "b:2000") == 0);

    expect_error("a,,b", "empty entry");
    expect_error("a,", "empty entry");
    expect_error("host:0", "bad port");
    expect_error("host:65536", "bad port");
    expect_error("host:12x", "bad port");
    expect_error("host:", "bad port");
    expect_error("host:-1", "bad port");
    expect_error("[::1", "no closing");
    expect_error("[::1]x", "bad port");
    expect_error(":80", "no host");
    expect_error("a,b,c,d,e", "more than 4 workers");
    char longhost[400];
    memset(longhost, 'h', sizeof longhost - 1);
    longhost[sizeof longhost - 1] = '\0';
    expect_error(longhost, "longer than");
    printf("worker list parsing: ok\n");
    return 0;
}
