"""dstack through its HTTP API, against tests/service/fake_dstack.py: a GPU
type the pool lacks is provisioned (PROVISIONING events carry dstack's
statuses), the run starts hip-worker with an idle duration, the next
submission finds it warm, and "no capacity" ends a submission at once with
ERROR."""
import json
import os
import subprocess
import sys
import tempfile
import time

from svc import WORKER, Service, check, final, names, problem

here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp(prefix="hw-svc-dstack-")
pf, calls, tokf = tmp + "/port", tmp + "/calls.json", tmp + "/dstack-token"
with open(tokf, "w") as f:
    f.write("dstack-secret\n")
wtok = tmp + "/worker-token"
with open(wtok, "w") as f:
    f.write("worker-secret-0123456789")
os.chmod(wtok, 0o600)
fake = subprocess.Popen([sys.executable, os.path.join(here, "fake_dstack.py"), "--port-file", pf,
                         "--worker", WORKER, "--token", "dstack-secret", "--capacity", "MI300X",
                         "--calls", calls])
for _ in range(100):
    if os.path.exists(pf):
        break
    time.sleep(0.05)
port = int(open(pf).read())
try:
    svc = Service(["--dstack-url", "http://127.0.0.1:%d" % port, "--dstack-token-file", tokf,
                   "--dstack-project", "p1", "--dstack-gpu", "MI300X", "--dstack-gpu", "MI325X",
                   "--dstack-poll", "0.1", "--worker-token-file", wtok], workdir=tmp)
except BaseException:
    fake.kill()
    raise
try:
    st, body, _ = svc.request("GET", "/api/gpus")
    types = {g["type"]: g for g in json.loads(body)}
    check(types["MI300X"]["provisionable"] and types["MI300X"]["available"] == 0, body)
    check("cpu" in types and "MI325X" in types, body)

    code = problem("vector-addition")["starter_code"]
    status, ev, _ = svc.submit(code, problem="vector-addition", gpu="MI300X")
    check(final(ev) == "CHECKED", "provisioned: %s" % names(ev))
    prov = [e[1]["dstack_status"] for e in ev if e[0] == "PROVISIONING"]
    check(prov[0] == "submitting" and "provisioning" in prov and "pulling" in prov and
          "running" in prov, "dstack statuses: %s" % prov)
    print("MI300X provisioned through dstack: PROVISIONING %s, then %s" % (prov, final(ev)))
    c = json.load(open(calls))
    apply = [x for x in c if x["path"] == "/api/project/p1/runs/apply"]
    check(len(apply) == 1, "one run applied")
    conf = apply[0]["body"]["plan"]["run_spec"]["configuration"]
    check(conf["idle_duration"] == "10m" and conf["resources"]["gpu"]["name"] == "MI300X" and
          "hip-worker" in conf["commands"][0], "run spec: %s" % conf)
    check(conf["env"]["HIPWIRE_WORKER_TOKEN"] == "worker-secret-0123456789" and
          "--token-file" in conf["commands"][0], "the worker gets the token: %s" % conf)

    status, ev, _ = svc.submit(code, problem="vector-addition", gpu="MI300X")
    check(final(ev) == "CHECKED" and "PROVISIONING" not in names(ev), "warm: %s" % names(ev))
    print("second MI300X submission: warm, %s" % names(ev))

    t0 = time.time()
    status, ev, _ = svc.submit(code, problem="vector-addition", gpu="MI325X")
    took = time.time() - t0
    check(final(ev) == "ERROR" and "no capacity" in ev[-1][1]["error"], "no capacity: %s" % ev[-1:])
    check(took < 10, "ended at once (%.1f s)" % took)
    print("MI325X: %s after %.1f s" % (ev[-1][1]["error"], took))
finally:
    svc.stop()
    fake.terminate()
    fake.wait()
print("service dstack: ok")
