"""Checker flow through the real service: events in Tensara's order and
shape, the stored record, re-streaming from Last-Event-ID, WRONG_ANSWER
with debug info, poisoned outputs, COMPILE_ERROR, a crash (RUNTIME_ERROR
with the solution's output), the sample endpoint, and the hip-kernel
language."""
import os

from svc import Service, check, final, last, names, problem

MATMUL_BAD = problem("matrix-multiplication")["starter_code"].replace(
    "c[row * n + col] = s;", "c[row * n + col] = (row == 5 && col == 3) ? s + 1.0f : s;")
VADD_NO_WRITE = """#include <hip/hip_runtime.h>
__global__ void nothing(float* c, size_t n) { }
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    nothing<<<1, 1>>>(c, n);
}
"""
CRASH = """#include <hip/hip_runtime.h>
#include <stdio.h>
__global__ void touch(float* c) { c[0] = 0.0f; }
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    touch<<<1, 1>>>(c);
    fprintf(stderr, "about to crash\\n");
    fflush(stderr);
    *(volatile int*)nullptr = 1;
}
"""
KERNEL_ONLY = """extern "C" __global__ void solution(const float* a, const float* b, float* c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""

svc = Service()
try:
    code = problem("matrix-multiplication")["starter_code"]
    status, ev, hdrs = svc.submit(code, problem="matmul")
    check(status == 200, "submit: HTTP %s" % status)
    check(hdrs.get("Content-Type") == "text/event-stream", "Content-Type %s" % hdrs)
    check(hdrs.get("Cache-Control") == "no-cache, no-transform", "Cache-Control")
    check(hdrs.get("X-Accel-Buffering") == "no", "X-Accel-Buffering")
    check(names(ev) == ["IN_QUEUE", "COMPILING", "CHECKING", "TEST_RESULT", "TEST_RESULT",
                        "CHECKED"], "events %s" % names(ev))
    sid = ev[0][1]["submission_id"]
    check(all(e[1]["submission_id"] == sid for e in ev), "every event carries submission_id")
    check(ev[0][1]["position"] == 1, "IN_QUEUE position")
    done = last(ev, "CHECKED")
    check(done["passed_tests"] == 2 and done["total_tests"] == 2, "CHECKED counts %s" % done)
    check(last(ev, "COMPILING")["landlock"] in ("on", "Landlock is not available in this kernel"),
          "COMPILING says how the runner is confined")
    print("checker: CHECKED, events %s" % names(ev))

    status, body, _ = svc.request("GET", "/api/submissions/" + sid)
    import json
    rec = json.loads(body)
    check(status == 200 and rec["status"] == "CHECKED", "stored status %s" % body[:200])
    check([e["event"] for e in rec["events"]] == names(ev), "stored events")
    check(rec["result"]["status"] == "CHECKED", "stored result")
    status, text, _ = svc.request("GET", "/api/submissions/%s/events" % sid,
                                  headers={"Last-Event-ID": "2"})
    from svc import parse_sse
    again = parse_sse(text)
    check([e[2] for e in again] == [3, 4, 5], "re-stream after id 2: %s" % [e[2] for e in again])
    print("record and Last-Event-ID re-stream: ok")

    # The reference compiled once is reused, and only if its bytes are the
    # ones the service hashed: vector-addition's compiled reference (a valid
    # code object with a kernel of the same name, wrong for matmul) put in
    # matmul's place must not be loaded, or this right solution would fail.
    import glob
    import re as _re
    import shutil
    with open(svc.dir + "/service.log") as f:
        cache = _re.search(r"compiled references in (\S+)", f.read()).group(1)
    mm_obj = glob.glob(cache + "/ref-*.co")
    check(len(mm_obj) == 1, "one compiled reference: %s" % mm_obj)
    status, ev, _ = svc.submit(problem("vector-addition")["starter_code"],
                               problem="vector-addition")
    check(final(ev) == "CHECKED", "vector-addition: %s" % names(ev))
    va_obj = [o for o in glob.glob(cache + "/ref-*.co") if o != mm_obj[0]]
    os.chmod(mm_obj[0], 0o600)
    shutil.copyfile(va_obj[0], mm_obj[0])
    status, ev, _ = svc.submit(code, problem="matmul")
    check(final(ev) == "CHECKED", "with the cached reference swapped: %s" % names(ev))
    print("compiled references cached; a swapped one is refused (compiled again): ok")

    status, ev, _ = svc.submit(MATMUL_BAD)
    check(final(ev) == "WRONG_ANSWER", "off-by-one: %s" % names(ev))
    d = last(ev, "WRONG_ANSWER")["debug_info"]
    check(d["first_bad_index"] == 5 * 23 + 3 and d["bad_elements"] == 1, "debug_info %s" % d)
    check(abs(d["max_difference"] - 1.0) < 1e-3, "max_difference %s" % d)
    print("wrong answer: first_bad_index %d, max_difference %.4f" % (d["first_bad_index"],
                                                                    d["max_difference"]))

    status, ev, _ = svc.submit(VADD_NO_WRITE, problem="vector-addition")
    check(final(ev) == "WRONG_ANSWER", "a solution that writes nothing: %s" % names(ev))
    check(last(ev, "WRONG_ANSWER")["debug_info"]["actual"] == "nan/inf", "poisoned output seen")
    print("outputs are poisoned: ok")

    status, ev, _ = svc.submit("this is not HIP", problem="vector-addition")
    check(final(ev) == "COMPILE_ERROR", "compile error: %s" % names(ev))
    check("error" in last(ev, "COMPILE_ERROR")["details"], "compiler messages passed on")
    print("compile error: ok")

    status, ev, _ = svc.submit(problem("relu")["starter_code"], problem="relu", endpoint="sample")
    s = last(ev, "SAMPLE_RESULT")
    check(s and s["passed"] and len(s["output"]["output"]) == 8, "sample: %s" % names(ev))
    print("sample: ok")

    status, ev, _ = svc.submit(CRASH, problem="vector-addition")
    r = last(ev, "RUNTIME_ERROR")
    check(r and "killed by signal" in r["message"] and "about to crash" in r["output"],
          "a crashing solution: %s" % ev[-1:])
    print("crash: RUNTIME_ERROR (%s), its output shown" % r["message"])

    status, ev, _ = svc.submit(KERNEL_ONLY, problem="vector-addition", language="hip-kernel")
    check(final(ev) == "CHECKED", "hip-kernel: %s" % names(ev))
    status, ev, _ = svc.submit(KERNEL_ONLY, problem="vector-addition", endpoint="sandbox")
    check(final(ev) == "ERROR", "sandbox endpoint")
    print("hip-kernel language, sandbox refusal: ok")
finally:
    svc.stop()
print("service checker: ok")
