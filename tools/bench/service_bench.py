#!/usr/bin/env python3
"""service_bench.py - hipwire-service's numbers (docs/service.md, Performance):

  1. warm submit -> CHECKED latency for matmul (the problem's starter
     solution, language hip: hipwire-cc compile, reference, checks), the
     median and max of --runs submissions after one warm-up;
  2. --concurrent submissions at once on one worker: all must end CHECKED;
  3. the service's RSS before, at its peak during, and after those.

Usage:
  tools/bench/service_bench.py [--build build] [--runs 10] [--concurrent 32]
      [--worker HOST:PORT --gpu TYPE]    # e.g. a cuda worker: --gpu H100
Without --worker the service starts its private CPU-device worker (gpu cpu).
Exit status 1 when any submission does not end CHECKED."""
import argparse
import os
import statistics
import sys
import threading
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "tests", "service"))


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--concurrent", type=int, default=32)
    ap.add_argument("--worker", action="append", default=[])
    ap.add_argument("--gpu", default="cpu")
    ap.add_argument("--problem", default="matmul")
    a = ap.parse_args()
    os.environ.setdefault("HW_SERVICE", os.path.join(a.build, "bin", "hipwire-service"))
    os.environ.setdefault("HW_PROBLEMS", os.path.join(root, "problems"))
    from svc import Service, names, problem  # noqa: E402

    args = ["--max-active", str(a.concurrent * 2), "--rate", "100000", "--time-limit", "300"]
    for w in a.worker:
        args += ["--worker", w]
    svc = Service(args)
    code = problem("matrix-multiplication")["starter_code"]
    failures = 0
    try:
        rss0 = rss_kib(svc.proc.pid)
        st, ev, _ = svc.submit(code, problem=a.problem, gpu=a.gpu)  # warm-up
        if names(ev)[-1] != "CHECKED":
            print("warm-up did not check: %s" % names(ev))
            return 1
        lat = []
        for _ in range(a.runs):
            t0 = time.time()
            st, ev, _ = svc.submit(code, problem=a.problem, gpu=a.gpu)
            lat.append(time.time() - t0)
            failures += names(ev)[-1] != "CHECKED"
        print("warm submit -> CHECKED, %s on %s, %d runs: median %.3f s, min %.3f s, max %.3f s"
              % (a.problem, a.gpu, a.runs, statistics.median(lat), min(lat), max(lat)))
        rss1 = rss_kib(svc.proc.pid)

        results, peak = [], [rss1]
        done = threading.Event()

        def one():
            st, ev, _ = svc.submit(code, problem=a.problem, gpu=a.gpu)
            results.append(names(ev)[-1] if st == 200 else "HTTP %d" % st)

        def watch():
            while not done.is_set():
                peak.append(rss_kib(svc.proc.pid))
                time.sleep(0.05)

        wt = threading.Thread(target=watch)
        wt.start()
        t0 = time.time()
        ths = [threading.Thread(target=one) for _ in range(a.concurrent)]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        took = time.time() - t0
        done.set()
        wt.join()
        ok = results.count("CHECKED")
        failures += a.concurrent - ok
        print("%d concurrent submissions: %d CHECKED in %.2f s (%s)"
              % (a.concurrent, ok, took, ", ".join(sorted(set(results)))))
        time.sleep(0.5)
        rss2 = rss_kib(svc.proc.pid)
        print("service RSS: %d KiB at start, %d KiB after the warm runs, peak %d KiB during the "
              "concurrent ones, %d KiB after" % (rss0, rss1, max(peak), rss2))
    finally:
        svc.stop()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
