"""The pool: two external workers (with a token) join under their model name; when one
dies, submissions that land on it are retried once on the other, so all
finish CHECKED."""
import json
import os
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
                          "--resume-grace=0", "--token-file=" + tok], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers.append(w)
    for _ in range(200):
        if os.path.exists(pf) and open(pf).read().strip():
            break
        time.sleep(0.05)
    ports.append(int(open(pf).read()))
svc = Service(["--worker", "127.0.0.1:%d" % ports[0], "--worker", "127.0.0.1:%d" % ports[1],
               "--worker-token-file", tok], workdir=tmp)
try:
    st, body, _ = svc.request("GET", "/api/gpus")
    g = json.loads(body)
    check(len(g) == 1 and g[0]["type"] == "cpu" and g[0]["gpus"] == 2, body)
    workers[0].kill()
    workers[0].wait()
    code = problem("relu")["starter_code"]
    for i in range(4):
        status, ev, _ = svc.submit(code, problem="relu")
        check(names(ev)[-1] == "CHECKED", "submission %d with one worker dead: %s" % (i, names(ev)))
    print("2 workers, one killed: 4 submissions CHECKED")
    workers[1].kill()
    workers[1].wait()
    time.sleep(3.5)
    status, ev, _ = svc.submit(code, problem="relu")
    check(names(ev)[-1] == "ERROR", "no live worker: %s" % names(ev))
    print("both dead: %s" % ev[-1][1]["error"])
finally:
    svc.stop()
    for w in workers:
        if w.poll() is None:
            w.kill()
print("service pool: ok")
