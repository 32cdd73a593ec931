"""A hung kernel runs into the time limit: TIME_LIMIT_EXCEEDED, and only its
session ends (the worker and the service keep serving). Cancelling a
running submission (DELETE) ends it with ERROR."""
import json
import threading
import time

from svc import Service, check, final, names, problem

HANG = """#include <hip/hip_runtime.h>
__global__ void spin(float* c, size_t n) {
    volatile int forever = 1;
    while (forever) { }
}
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    spin<<<1, 1>>>(c, n);
}
"""
GOOD = problem("vector-addition")["starter_code"]

# 12 s: the limit covers compiling too, and the submission after the hung
# one must compile and check within it on a loaded 2-core CI machine (6 s
# did not: the hung one's compile alone took 7 s there).
svc = Service(["--time-limit", "12"])
try:
    seen = svc.submit_timed(HANG)
    took = seen[-1][1]
    check(seen[-1][0] == "TIME_LIMIT_EXCEEDED", "hung kernel: %s" % seen)
    check(11.5 < took < 40, "ended by the limit (%.1f s)" % took)
    # Live, not in a burst at the end: CHECKING reached the client long before.
    checking = [t for n, t in seen if n == "CHECKING"][0]
    check(took - checking > 2, "CHECKING arrived at %.1f s, the end at %.1f s" % (checking, took))
    print("hung kernel: CHECKING streamed at %.1f s, TIME_LIMIT_EXCEEDED at %.1f s"
          % (checking, took))
    status, ev, _ = svc.submit(GOOD, problem="vector-addition")
    check(final(ev) == "CHECKED", "the next submission: %s" % names(ev))
    print("next submission on the same worker: CHECKED")

    result = {}

    def run():
        result["ev"] = svc.submit(HANG, problem="vector-addition")[1]

    th = threading.Thread(target=run)
    th.start()
    sid = None
    for _ in range(100):
        status, body, _ = svc.request("GET", "/api/submissions")
        rows = [r for r in json.loads(body) if r["status"] == "IN_QUEUE"]
        if rows:
            sid = rows[0]["id"]
            break
        time.sleep(0.05)
    check(sid is not None, "the running submission is listed")
    time.sleep(0.5)
    status, body, _ = svc.request("DELETE", "/api/submissions/" + sid)
    check(status == 202, "DELETE: %s %s" % (status, body))
    th.join(20)
    ev = result.get("ev")
    check(ev and final(ev) == "ERROR" and ev[-1][1]["error"] == "cancelled",
          "cancelled: %s" % (names(ev) if ev else None))
    status, body, _ = svc.request("DELETE", "/api/submissions/" + sid)
    check(status == 409, "cancelling a finished submission: %s" % status)
    print("cancel: ERROR cancelled; again: 409")
finally:
    svc.stop()
print("service limits: ok")
