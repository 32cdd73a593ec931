"""Scheduling: the queue is fair across tokens (a token's second submission
waits behind another token's first), and a benchmark has its GPU alone
(a check that arrives meanwhile stays queued until it ends)."""
import json
import os
import tempfile
import threading
import time

from svc import Service, check, names, problem

HANG = """#include <hip/hip_runtime.h>
__global__ void spin(float* c) { volatile int f = 1; while (f) { } }
extern "C" void solution(const float* a, const float* b, float* c, size_t n) { spin<<<1, 1>>>(c); }
"""
GOOD = problem("vector-addition")["starter_code"]
tmp = tempfile.mkdtemp(prefix="hw-svc-fair-")
with open(tmp + "/tokens", "w") as f:
    f.write("alice:alice-token-0001\nbob:bob-token-00001\n")
svc = Service(["--token-file", tmp + "/tokens", "--check-slots", "1", "--time-limit", "5",
               "--bench-budget", "1"], workdir=tmp)
ids = {}


def record(sid, token):
    st, body, _ = svc.request("GET", "/api/submissions/" + sid, token=token)
    return json.loads(body)


def submit(key, code, token, endpoint="checker"):
    st, ev, _ = svc.submit(code, problem="vector-addition", token=token, endpoint=endpoint)
    ids[key] = ev[0][1]["submission_id"]


def start(key, code, token, wait_for, endpoint="checker"):
    """Submits in a thread; returns once the submission has event wait_for."""
    before = set()
    st, body, _ = svc.request("GET", "/api/submissions", token=token)
    before = {r["id"] for r in json.loads(body)}
    th = threading.Thread(target=submit, args=(key, code, token, endpoint))
    th.start()
    for _ in range(400):
        st, body, _ = svc.request("GET", "/api/submissions", token=token)
        new = [r["id"] for r in json.loads(body) if r["id"] not in before]
        if new and wait_for in [e["event"] for e in record(new[0], token)["events"]]:
            return th, new[0]
        time.sleep(0.025)
    check(False, "%s never reached %s" % (key, wait_for))


try:
    A, B = "alice-token-0001", "bob-token-00001"
    t1, a1 = start("a1", HANG, A, "COMPILING")  # holds the only check slot
    t2, a2 = start("a2", GOOD, A, "IN_QUEUE")
    t3, a3 = start("a3", GOOD, A, "IN_QUEUE")
    t4, b1 = start("b1", GOOD, B, "IN_QUEUE")
    for t in (t1, t2, t3, t4):
        t.join(60)
    fa2, fa3, fb1 = (record(x, tok)["finished"] for x, tok in ((a2, A), (a3, A), (b1, B)))
    check(fb1 < fa2 < fa3, "bob's first before alice's second: b1 %.3f a2 %.3f a3 %.3f"
          % (fb1, fa2, fa3))
    print("fair queue: alice a1 (running), a2, a3 and bob b1 queued -> b1 ran before a2, a3")

    svc2 = None
    tb, x = start("x", GOOD, A, "COMPILING", endpoint="benchmark")
    ty, y = start("y", GOOD, B, "IN_QUEUE")
    seen_alone = 0
    while tb.is_alive():
        # y first: if x is still unfinished afterwards, y was read during x's run.
        ry = record(y, B)
        rx = record(x, A)
        if rx["status"] in ("IN_QUEUE",) and "BENCHMARKED" not in [e["event"] for e in rx["events"]]:
            ev_y = [e["event"] for e in ry["events"]]
            check(ev_y == ["IN_QUEUE"], "a check ran beside a benchmark: %s" % ev_y)
            seen_alone += 1
        time.sleep(0.05)
    ty.join(60)
    check(seen_alone > 0, "observed the benchmark running")
    check(record(y, B)["status"] == "CHECKED", "the check ran afterwards")
    print("benchmark alone on its GPU: the check waited (%d observations), then CHECKED"
          % seen_alone)
finally:
    svc.stop()
print("service fair: ok")
