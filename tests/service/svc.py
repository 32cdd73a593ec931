"""svc.py - start a real hipwire-service (and what it starts: its private
hip-worker on the CPU device, hipwire-runner, hipwire-cc) for the service
tests, and talk HTTP/SSE to it with the standard library only."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SERVICE = os.environ["HW_SERVICE"]
PROBLEMS = os.environ["HW_PROBLEMS"]
WORKER = os.environ.get("HW_WORKER", "")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def problem(slug):
    with open(os.path.join(PROBLEMS, slug, "problem.json")) as f:
        return json.load(f)


class Service:
    def __init__(self, args=(), db=None, token=None, workdir=None):
        self.dir = workdir or tempfile.mkdtemp(prefix="hw-svc-test-")
        self.db = db or os.path.join(self.dir, "service.db")
        self.port = free_port()
        self.token = token
        self.log = open(os.path.join(self.dir, "service.log"), "ab")
        cmd = [SERVICE, "--listen", "127.0.0.1:%d" % self.port, "--db", self.db,
               "--problems", PROBLEMS] + list(args)
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                fail("hipwire-service exited with %d; log in %s" % (self.proc.returncode, self.dir))
            try:
                if self.request("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        fail("hipwire-service did not come up")

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def headers(self, token=None, extra=None):
        h = {"Content-Type": "application/json"}
        t = token if token is not None else self.token
        if t:
            h["Authorization"] = "Bearer " + t
        if extra:
            h.update(extra)
        return h

    def request(self, method, path, body=None, token=None, headers=None, raw=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.url(path), data=data, method=method,
                                     headers=self.headers(token, headers))
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, r.read().decode(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), dict(e.headers)

    def submit(self, code, problem="matrix-multiplication", gpu="cpu", endpoint="checker",
               language="hip", token=None, **extra):
        body = {"solution_code": code, "problem": problem, "problem_def": "", "gpu_type": gpu,
                "dtype": "float32", "language": language, "endpoint": endpoint}
        body.update(extra)
        status, text, hdrs = self.request("POST", "/api/amd/submit", body, token)
        return status, parse_sse(text) if status == 200 else text, hdrs

    def submit_timed(self, code, problem="vector-addition", gpu="cpu", endpoint="checker"):
        """Reads the stream as it arrives: [(event name, seconds since the POST)]."""
        import http.client
        body = json.dumps({"solution_code": code, "problem": problem, "gpu_type": gpu,
                           "endpoint": endpoint})
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        t0 = time.time()
        c.request("POST", "/api/amd/submit", body, self.headers())
        r = c.getresponse()
        seen, buf = [], b""
        while True:
            chunk = r.read1(65536)
            if not chunk:
                break
            buf += chunk
            while b"\n\n" in buf:
                frame, buf = buf.split(b"\n\n", 1)
                for line in frame.decode().split("\n"):
                    if line.startswith("event: "):
                        seen.append((line[7:], time.time() - t0))
        c.close()
        return seen

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def parse_sse(text):
    events = []
    for frame in text.split("\n\n"):
        name, data, eid = None, "", None
        for line in frame.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data += line[6:]
            elif line.startswith("id: "):
                eid = int(line[4:])
        if name:
            events.append((name, json.loads(data), eid))
    return events


def names(events):
    return [e[0] for e in events if e[0] != "heartbeat"]


def final(events):
    return names(events)[-1]


def last(events, name):
    for e in reversed(events):
        if e[0] == name:
            return e[1]
    return None
