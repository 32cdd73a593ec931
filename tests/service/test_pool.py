"""The pool: two external workers (with a token) join under their model name; when one
dies, submissions that land on it are retried once on the other, so all
finish CHECKED; when the last one dies, what was running and what was
queued for it end with an error instead of waiting for ever."""
import json
import os
import signal
import subprocess
import tempfile
import time

from svc import WORKER, Service, check, names, problem

tmp = tempfile.mkdtemp(prefix="hw-svc-pool-")
tok = tmp + "/worker-token"
with open(tok, "w") as f:
    f.write("pool-worker-secret-0123")
os.chmod(tok, 0o600)
workers = []
ports = []
for i in range(2):
    pf = "%s/port%d" % (tmp, i)
    w = subprocess.Popen([WORKER, "--backend=cpu", "--port=0", "--port-file=" + pf,
                          "--resume-grace=0", "--token-file=" + tok],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    workers.append(w)
    for _ in range(200):
        if os.path.exists(pf) and open(pf).read().strip():
            break
        time.sleep(0.05)
    ports.append(int(open(pf).read()))
svc = Service(["--worker", "127.0.0.1:%d" % ports[0], "--worker", "127.0.0.1:%d" % ports[1],
               "--worker-token-file", tok, "--check-slots", "1", "--time-limit", "60"], workdir=tmp)
try:
    st, body, _ = svc.request("GET", "/api/gpus")
    g = json.loads(body)
    check(len(g) == 1 and g[0]["type"] == "cpu" and g[0]["gpus"] == 2, body)
    os.killpg(workers[0].pid, signal.SIGKILL)
    workers[0].wait()
    code = problem("relu")["starter_code"]
    for i in range(4):
        status, ev, _ = svc.submit(code, problem="relu")
        check(names(ev)[-1] == "CHECKED", "submission %d with one worker dead: %s" % (i, names(ev)))
    print("2 workers, one killed: 4 submissions CHECKED")
    import threading
    HANG = """#include <hip/hip_runtime.h>
__global__ void spin(float* o) { volatile int f = 1; while (f) { } }
extern "C" void solution(const float* i, float* o, size_t n, size_t m) { spin<<<1, 1>>>(o); }
"""
    out = {}

    def run(key, c):
        out[key] = names(svc.submit(c, problem="relu")[1])

    th = [threading.Thread(target=run, args=("hang", HANG))]
    th[0].start()
    time.sleep(1.5)  # the hang holds the only check slot
    th.append(threading.Thread(target=run, args=("queued", code)))
    th[1].start()
    time.sleep(0.5)
    os.killpg(workers[1].pid, signal.SIGKILL)  # the worker and its session processes
    workers[1].wait()
    t0 = time.time()
    for t in th:
        t.join(30)
    check(out.get("hang", [""])[-1] in ("RUNTIME_ERROR", "ERROR"), "running: %s" % out.get("hang"))
    check(out.get("queued", [""])[-1] == "ERROR", "queued: %s" % out.get("queued"))
    print("last worker killed: running one %s, queued one %s, within %.1f s"
          % (out["hang"][-1], out["queued"][-1], time.time() - t0))
    status, ev, _ = svc.submit(code, problem="relu")
    check(names(ev)[-1] == "ERROR", "no live worker: %s" % names(ev))
    print("then: %s" % ev[-1][1]["error"])
finally:
    svc.stop()
    for w in workers:
        try:
            os.killpg(w.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
print("service pool: ok")
