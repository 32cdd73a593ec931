#!/usr/bin/env python3
"""fake_dstack.py - a stand-in for dstack's server implementing the HTTP API
hipwire-service uses (runs apply / get / list / stop, bearer auth). When a
run starts it starts a local hip-worker on the CPU device and reports it
as the job's hostname and mapped port, as dstack does for a task with
`ports`. GPU types not in --capacity end as dstack ends them when no offer
exists: status failed, status_message "no capacity".

usage: fake_dstack.py --port-file F --worker HIP_WORKER --token T [--capacity A,B]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

runs = {}
lock = threading.Lock()
workers = []
args = None
calls = []


def start_worker(env):
    """The task's command, locally: a CPU-device worker, with --token-file
    when the run's environment carries the token."""
    pf = tempfile.mktemp(prefix="fake-dstack-port-")
    cmd = [args.worker, "--backend=cpu", "--port=0", "--port-file=" + pf, "--resume-grace=0"]
    if env.get("HIPWIRE_WORKER_TOKEN"):
        fd, tf = tempfile.mkstemp(prefix="fake-dstack-token-")
        os.write(fd, env["HIPWIRE_WORKER_TOKEN"].encode())
        os.close(fd)
        cmd.append("--token-file=" + tf)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers.append(p)
    for _ in range(200):
        try:
            with open(pf) as f:
                port = int(f.read().strip())
            os.unlink(pf)
            return port
        except (OSError, ValueError):
            time.sleep(0.05)
    raise RuntimeError("hip-worker did not start")


def progress(name):
    run = runs[name]
    gpu = run["run_spec"]["configuration"]["resources"]["gpu"]["name"]
    steps = ["provisioning", "pulling"]
    for st in steps:
        time.sleep(0.3)
        with lock:
            run["status"] = "provisioning"
            run["latest_job_submission"]["status"] = st
    time.sleep(0.3)
    if gpu not in args.capacity:
        with lock:
            run["status"] = "failed"
            run["status_message"] = "no capacity"
            sub = run["latest_job_submission"]
            sub["status"] = "failed"
            sub["status_message"] = "no capacity"
            sub["termination_reason"] = "failed_to_start_due_to_no_capacity"
        return
    port = start_worker(run["run_spec"]["configuration"].get("env", {}))
    cport = str(run["run_spec"]["configuration"]["ports"][0])
    with lock:
        run["status"] = "running"
        run["status_message"] = "running"
        sub = run["latest_job_submission"]
        sub["status"] = "running"
        sub["job_provisioning_data"] = {"hostname": "127.0.0.1", "backend": "fake"}
        sub["job_runtime_data"] = {"ports": {cport: port}}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n) or b"{}")
        calls.append({"path": self.path, "body": body})
        if args.calls:
            with open(args.calls, "w") as f:
                json.dump(calls, f)
        if self.headers.get("Authorization") != "Bearer " + args.token:
            return self.reply(403, {"detail": [{"msg": "Invalid token"}]})
        parts = self.path.strip("/").split("/")
        if parts[:2] == ["api", "project"] and parts[3:5] == ["runs", "apply"]:
            spec = body["plan"]["run_spec"]
            name = spec["run_name"]
            with lock:
                runs[name] = {"id": name, "project_name": parts[2], "run_spec": spec,
                              "status": "submitted", "status_message": "submitted",
                              "latest_job_submission": {"status": "submitted"}}
                out = json.loads(json.dumps(runs[name]))
            threading.Thread(target=progress, args=(name,), daemon=True).start()
            return self.reply(200, out)
        if parts[:2] == ["api", "project"] and parts[3:5] == ["runs", "get"]:
            with lock:
                run = runs.get(body.get("run_name"))
                out = json.loads(json.dumps(run)) if run else None
            return self.reply(200, out) if out else self.reply(400, {"detail": "no such run"})
        if parts[:2] == ["api", "project"] and parts[3:5] == ["runs", "stop"]:
            with lock:
                for n in body.get("runs_names", []):
                    if n in runs:
                        runs[n]["status"] = "terminated"
            return self.reply(200, {})
        if parts == ["api", "runs", "list"]:
            with lock:
                out = [json.loads(json.dumps(r)) for r in runs.values()
                       if not body.get("only_active") or r["status"] in ("submitted", "provisioning", "running")]
            return self.reply(200, out)
        return self.reply(404, {"detail": "not found"})


def main():
    global args
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--worker", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--capacity", default="MI300X")
    ap.add_argument("--calls")
    args = ap.parse_args()
    args.capacity = args.capacity.split(",")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    try:
        srv.serve_forever()
    finally:
        for w in workers:
            w.kill()


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    main()
