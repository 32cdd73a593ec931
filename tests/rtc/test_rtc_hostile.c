/*
 * test_rtc_hostile - RTC_COMPILE on the wire, from a client that ignores
 * the rules (tests/hostile's raw client, no proxy):
 *  - counts over their caps, flags set, a bad device, fewer or more strings
 *    than announced, an unterminated string: an error reply each, nothing
 *    read or allocated for the claim, and the session goes on;
 *  - a tail over HIPR_CAP_RTC_INPUT: the session ends at the header, before
 *    the worker reads a byte of it; other sessions are untouched;
 *  - a well-formed request: the reply's fields and tail add up;
 *  - a client that leaves in the middle of an endless compile: the compile
 *    is killed and the session is gone long before the time limit.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile_ops.h"
#include "hw_status.h"

static int rtc_raw(struct raw_conn *c, int32_t device, uint32_t flags, uint32_t headers,
                   uint32_t options, uint32_t names, const void *tail, size_t len,
                   struct raw_reply *r)
{
    struct hipr_rtc_compile_req m = { device, flags, headers, options, names };
    uint8_t fixed[HIPR_rtc_compile_req_SIZE];
    hipr_rtc_compile_req_encode(fixed, &m);
    return raw_call(c, HIPR_OP_RTC_COMPILE, fixed, sizeof fixed, tail, len, r);
}

static void expect_status(struct raw_conn *c, int32_t device, uint32_t flags, uint32_t headers,
                          uint32_t options, uint32_t names, const void *tail, size_t len,
                          int status, const char *what)
{
    struct raw_reply r;
    raw_begin(what);
    EXPECT(rtc_raw(c, device, flags, headers, options, names, tail, len, &r) == 0, "no reply");
    EXPECT(r.rh.status == status, "status %d, expected %d", r.rh.status, status);
    raw_reply_free(&r);
    EXPECT(op_ping(c, NULL) == 0, "the session did not go on");
    raw_pass();
}

/* name, source: the smallest well-formed tail. */
static const char two[] = "p.hip\0extern \"C\" __global__ void k(int *p) { *p = 1; }\n";

static void check_refusals(void)
{
    struct raw_conn c;
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0, "connect");
    expect_status(&c, 0, 0, HIPR_CAP_RTC_HEADERS + 1, 0, 0, two, sizeof two, HW_EINVAL,
                  "header_count over its cap");
    expect_status(&c, 0, 0, 0, 0xffffffffu, 0, two, sizeof two, HW_EINVAL, "option_count 2^32-1");
    expect_status(&c, 0, 0, 0, 0, HIPR_CAP_RTC_NAMES + 1, two, sizeof two, HW_EINVAL,
                  "name_count over its cap");
    expect_status(&c, 0, 1, 0, 0, 0, two, sizeof two, HW_EINVAL, "unknown flags");
    expect_status(&c, 7, 0, 0, 0, 0, two, sizeof two, HW_EDEVICE, "a device the worker lacks");
    expect_status(&c, 0, 0, 0, 2, 0, two, sizeof two, HW_EINVAL, "fewer strings than counted");
    static const char more[] = "p.hip\0src\0-O2"; /* three strings, two counted */
    expect_status(&c, 0, 0, 0, 0, 0, more, sizeof more, HW_EINVAL, "more strings than counted");
    static const char open_end[] = { 'p', 0, 's', 'r', 'c' };
    expect_status(&c, 0, 0, 0, 0, 0, open_end, sizeof open_end, HW_EINVAL,
                  "an unterminated string");
    expect_status(&c, 0, 0, 0, 0, 0, NULL, 0, HW_EINVAL, "no strings at all");
    raw_close(&c);
}

static void check_over_cap(void)
{
    struct raw_conn c, other;
    int err = 0;
    raw_begin("a tail over HIPR_CAP_RTC_INPUT ends the session at the header");
    EXPECT(raw_connect(&other) == 0 && raw_hello(&other) == 0, "connect");
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0, "connect");
    /* Only the header goes out: the worker must refuse on the length alone. */
    raw_send_header(&c, HIPR_OP_RTC_COMPILE, 0, HIPR_rtc_compile_req_SIZE + HIPR_CAP_RTC_INPUT + 1,
                    &err);
    EXPECT(err == 0, "send");
    EXPECT(raw_wait_closed(&c, 3000), "the session stayed open");
    raw_close(&c);
    EXPECT(op_ping(&other, NULL) == 0, "another session was affected");
    raw_close(&other);
    raw_pass();
}

static void check_reply_layout(void)
{
    struct raw_conn c;
    struct raw_reply r;
    /* name, source, one header pair, one option, two name expressions. */
    static const char tail[] = "lay.hip\0#include \"h.h\"\nextern \"C\" __global__ void k(T *p) "
                               "{ *p = 1; }\n__device__ T g;\n\0h.h\0typedef int T;\n\0-O1\0&k\0g";
    raw_begin("a well-formed compile: the reply's sizes add up");
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0, "connect");
    EXPECT(rtc_raw(&c, 0, 0, 1, 1, 2, tail, sizeof tail, &r) == 0, "no reply");
    EXPECT(r.rh.status == 0, "status %d", r.rh.status);
    EXPECT(r.body_len >= HIPR_rtc_compile_rep_SIZE, "short reply");
    struct hipr_rtc_compile_rep rep;
    hipr_rtc_compile_rep_decode(r.body, r.body_len, &rep);
    EXPECT(rep.result == 0 && rep.name_count == 2 && rep.code_size > 0,
           "result %d, %u names, %llu bytes of code", rep.result, rep.name_count,
           (unsigned long long)rep.code_size);
    size_t names = r.body_len - HIPR_rtc_compile_rep_SIZE - rep.code_size - rep.log_size;
    const char *n = (const char *)r.body + HIPR_rtc_compile_rep_SIZE + rep.code_size + rep.log_size;
    EXPECT(names == 4 && strcmp(n, "k") == 0 && strcmp(n + 2, "g") == 0, "names part of %zu bytes",
           names);
    raw_reply_free(&r);
    raw_close(&c);
    raw_pass();
}

/* Processes (of this user) working in a compile directory under dir. */
static int compiler_processes(const char *dir, int report)
{
    int n = 0;
    DIR *proc = opendir("/proc");
    struct dirent *e;
    EXPECT(proc != NULL, "no /proc");
    while ((e = readdir(proc))) {
        char link[300], cwd[4096];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(link, sizeof link, "/proc/%s/cwd", e->d_name);
        ssize_t len = readlink(link, cwd, sizeof cwd - 1);
        if (len <= 0)
            continue;
        cwd[len] = '\0';
        if (strncmp(cwd, dir, strlen(dir)) == 0) {
            if (report)
                fprintf(stderr, "process %s still works in %s\n", e->d_name, cwd);
            n++;
        }
    }
    closedir(proc);
    return n;
}

static void check_leave_mid_compile(const char *dir)
{
    struct raw_conn c;
    int err = 0;
    static const char tail[] =
        "endless.hip\0#define A0(x) x x\n#define A1(x) A0(A0(x))\n#define A2(x) A1(A1(x))\n"
        "#define A3(x) A2(A2(x))\n#define A4(x) A3(A3(x))\n#define A5(x) A4(A4(x))\n"
        "__device__ int v = A5(1+) 0;\n";
    struct hipr_rtc_compile_req m = { 0, 0, 0, 0, 0 };
    uint8_t fixed[HIPR_rtc_compile_req_SIZE];
    raw_begin("a client leaving mid-compile: the compile is killed, the session ends");
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0, "connect");
    hipr_rtc_compile_req_encode(fixed, &m);
    raw_send(&c, HIPR_OP_RTC_COMPILE, 0, fixed, sizeof fixed, tail, sizeof tail, &err);
    EXPECT(err == 0, "send");
    /* Wait until the compiler runs in its directory. */
    for (int i = 0; i < 100 && compiler_processes(dir, 0) == 0; i++)
        raw_sleep_ms(50);
    EXPECT(compiler_processes(dir, 0) > 0, "no compiler process started under %s", dir);
    raw_close(&c);
    /* The time limit is 60 s; the session must be gone well before. */
    struct raw_worker_status st;
    EXPECT(raw_wait_worker_idle(0, 0, 8000, &st) == 0, "%u sessions still there", st.sessions);
    /* Killed processes take a moment to leave /proc. */
    for (int i = 0; i < 100 && compiler_processes(dir, 0) > 0; i++)
        raw_sleep_ms(50);
    EXPECT(compiler_processes(dir, 1) == 0, "compiler processes outlived their session");
    raw_pass();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_rtc_hostile RTC_DIR\n");
        return 2;
    }
    check_refusals();
    check_over_cap();
    check_reply_layout();
    check_leave_mid_compile(argv[1]);
    printf("rtc hostile: ok\n");
    return 0;
}
