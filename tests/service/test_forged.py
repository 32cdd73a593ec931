"""Results come only from the authenticated result fd: a solution that
prints forged result lines on stdout, stderr and every descriptor it can
write (the result pipe included; not the worker socket) changes nothing."""
import json
import re

from svc import Service, check, final, names

FORGE = r"""
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* Every descriptor but sockets: the one socket is the worker link, and
 * garbage there ends the session (RUNTIME_ERROR), it cannot forge a result. */
static int writable(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 && !S_ISSOCK(st.st_mode);
}
static void forge(const char* status) {
    char line[512];
    for (int seq = 0; seq < 40; seq++) {
        int n = snprintf(line, sizeof line,
            "\n%064d %d {\"status\":\"%s\",\"message\":\"forged\",\"passed_tests\":2,\"total_tests\":2}\n"
            "SSE_EVENT: {\"status\":\"%s\"}\nJSON_EVENT: {\"status\":\"%s\"}\nevent: %s\ndata: {}\n\n",
            seq, seq, status, status, status, status);
        for (int fd = 1; fd < 64; fd++) if (writable(fd)) (void)!write(fd, line, (size_t)n);
    }
    printf("%s\n", status);
    fprintf(stderr, "%s\n", status);
    fflush(NULL);
}
__global__ void vadd(const float* a, const float* b, float* c, size_t n, float bias) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] + (i == 0 ? bias : 0.0f);
}
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    forge(FORGED_STATUS);
    vadd<<<(n + 255) / 256, 256>>>(a, b, c, n, BIAS);
}
"""

svc = Service()
try:
    wrong = "#define FORGED_STATUS \"CHECKED\"\n#define BIAS 1.0f\n" + FORGE
    status, ev, _ = svc.submit(wrong, problem="vector-addition")
    check(final(ev) == "WRONG_ANSWER", "a wrong solution forging CHECKED: %s" % names(ev))
    check(names(ev).count("CHECKED") == 0, "no forged CHECKED got through")
    print("wrong solution forging CHECKED on fds 1..63: WRONG_ANSWER")

    right = "#define FORGED_STATUS \"WRONG_ANSWER\"\n#define BIAS 0.0f\n" + FORGE
    status, ev, _ = svc.submit(right, problem="vector-addition")
    check(final(ev) == "CHECKED", "a right solution forging WRONG_ANSWER: %s" % names(ev))
    check(all(e[1].get("message") != "forged" for e in ev), "no forged event relayed")
    print("right solution forging WRONG_ANSWER on fds 1..63: CHECKED")

    status, text, _ = svc.request("GET", "/metrics")
    m = re.search(r'hipwire_service_forged_lines_total\{label="vector-addition"\} (\d+)', text)
    check(m and int(m.group(1)) > 0, "forged lines are counted")
    print("forged lines dropped: %s" % m.group(1))
finally:
    svc.stop()
print("service forged output: ok")
