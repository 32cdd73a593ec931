"""Persistence: after the service is killed (SIGKILL) and started again on
the same database, finished submissions are intact and the one that was
running is ERROR with the reason."""
import json
import signal
import tempfile
import threading
import time

from svc import Service, check, names, problem

HANG = """#include <hip/hip_runtime.h>
__global__ void spin(float* c) { volatile int f = 1; while (f) { } }
extern "C" void solution(const float* a, const float* b, float* c, size_t n) { spin<<<1, 1>>>(c); }
"""

tmp = tempfile.mkdtemp(prefix="hw-svc-restart-")
db = tmp + "/service.db"
svc = Service(["--time-limit", "30"], db=db, workdir=tmp)
status, ev, _ = svc.submit(problem("vector-addition")["starter_code"], problem="vector-addition")
done_id = ev[0][1]["submission_id"]
done_events = names(ev)
check(done_events[-1] == "CHECKED", "first: %s" % done_events)


def hang():
    try:
        svc.submit(HANG, problem="vector-addition")
    except Exception:  # the stream is cut when the service is killed
        pass


th = threading.Thread(target=hang, daemon=True)
th.start()
running_id = None
for _ in range(200):
    st, body, _ = svc.request("GET", "/api/submissions")
    rows = [r for r in json.loads(body) if r["id"] != done_id]
    if rows:
        running_id = rows[0]["id"]
        st, text, _ = svc.request("GET", "/api/submissions/" + running_id)
        if any(e["event"] == "CHECKING" for e in json.loads(text)["events"]):
            break
    time.sleep(0.05)
check(running_id is not None, "the hanging submission started")
svc.stop(signal.SIGKILL)
print("killed the service while %s was running" % running_id)
# What a SIGKILLed service cannot remove itself: its compiled references.
import re
import shutil
with open(tmp + "/service.log") as f:
    m = re.search(r"compiled references in (\S+)", f.read())
if m:
    shutil.rmtree(m.group(1), ignore_errors=True)

svc2 = Service(["--time-limit", "30"], db=db, workdir=tmp)
try:
    st, body, _ = svc2.request("GET", "/api/submissions/" + done_id)
    rec = json.loads(body)
    check(rec["status"] == "CHECKED" and [e["event"] for e in rec["events"]] == done_events,
          "finished submission intact: %s" % body[:300])
    st, body, _ = svc2.request("GET", "/api/submissions/" + running_id)
    rec = json.loads(body)
    check(rec["status"] == "ERROR" and "interrupted" in rec["result"]["error"],
          "interrupted one: %s" % body[:300])
    check(rec["events"][-1]["event"] == "ERROR", "its last event is ERROR")
    print("after restart: %s CHECKED intact; %s ERROR (%s)" % (done_id[:8], running_id[:8],
                                                              rec["result"]["error"]))
    status, ev, _ = svc2.submit(problem("relu")["starter_code"], problem="relu")
    check(names(ev)[-1] == "CHECKED", "serving again")
finally:
    svc2.stop()
print("service restart: ok")
