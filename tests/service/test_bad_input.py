"""Bad input gets a clear answer and breaks nothing: 401/403 without or with
a wrong token, malformed JSON 400, missing fields 400 naming them, a body
over --max-body 413, an unknown problem 404, an unknown GPU type ERROR
naming the types available, too many requests 429 (per token)."""
import json
import os

from svc import Service, check, final, names, problem

import tempfile

tmp = tempfile.mkdtemp(prefix="hw-svc-bad-")
tf = os.path.join(tmp, "tokens")
with open(tf, "w") as f:
    f.write("alice:tok-alice-0123456789\nbob:tok-bob-0123456789\ncarol:tok-carol-0123456789\n")
os.chmod(tf, 0o600)
svc = Service(["--token-file", tf, "--max-body", "8192", "--rate", "4"], token="tok-alice-0123456789",
              workdir=tmp)
try:
    st, body, _ = svc.request("GET", "/api/problems", token="")
    check(st == 401, "no token: %s" % st)
    st, body, _ = svc.request("GET", "/api/problems", token="nope")
    check(st == 403, "wrong token: %s" % st)
    st, body, _ = svc.request("GET", "/api/problems")
    probs = json.loads(body)
    check(st == 200 and len(probs) >= 8, "problems: %d" % len(probs))
    mm = [p for p in probs if p["slug"] == "matrix-multiplication"][0]
    check("matmul" in mm["aliases"], "matmul alias")
    print("auth: 401 without, 403 wrong; %d problems" % len(probs))

    st, body, _ = svc.request("POST", "/api/amd/submit", raw=b'{"solution_code": "x", ')
    check(st == 400 and "malformed JSON" in body, "malformed: %s %s" % (st, body))
    st, body, _ = svc.request("POST", "/api/amd/submit", {"problem": "relu"})
    check(st == 400 and json.loads(body)["missing"] == "solution_code, gpu_type",
          "missing: %s %s" % (st, body))
    st, body, _ = svc.request("POST", "/api/amd/submit",
                              {"solution_code": "x" * 10000, "problem": "relu", "gpu_type": "cpu"})
    check(st == 413 and "8192" in body, "too large: %s %s" % (st, body))
    print("400 malformed, 400 missing (named), 413 over --max-body")

    status, body, _ = svc.submit("x", problem="no-such-problem")
    check(status == 404 and "no-such-problem" in body, "unknown problem: %s" % status)
    status, ev, _ = svc.submit("x", problem="relu", gpu="H100")
    check(status == 200 and final(ev) == "ERROR", "unknown GPU: %s" % names(ev))
    err = ev[-1][1]["error"]
    check("H100" in err and "cpu" in err, err)
    print("404 unknown problem; unknown GPU: %s" % err)

    # carol: --rate 4 per minute, then 429; bob is not affected.
    codes = []
    for _ in range(5):
        st, body, _ = svc.request("POST", "/api/amd/submit",
                                  {"solution_code": "x", "problem": "no-such", "gpu_type": "cpu"},
                                  token="tok-carol-0123456789")
        codes.append(st)
    check(codes == [404, 404, 404, 404, 429] and json.loads(body)["status"] == "RATE_LIMIT_EXCEEDED",
          "rate: %s %s" % (codes, body))
    status, ev, _ = svc.submit(problem("relu")["starter_code"], problem="relu",
                               token="tok-bob-0123456789")
    check(status == 200 and final(ev) == "CHECKED", "bob is not limited by carol: %s" % status)
    print("429 RATE_LIMIT_EXCEEDED after --rate 4: %s; another token still served" % codes)

    st, body, _ = svc.request("GET", "/healthz", token="")
    check(st == 200, "healthz")
    st, body, _ = svc.request("GET", "/metrics", token="")
    check("hipwire_service_queue_length" in body and "rate_limited" in body, "metrics")
    st, body, _ = svc.request("GET", "/api/gpus")
    check(json.loads(body)[0]["type"] == "cpu", "gpus: %s" % body)
    check(svc.proc.poll() is None, "the service is still running")
finally:
    svc.stop()
print("service bad input: ok")
