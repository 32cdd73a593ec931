#!/usr/bin/env python3
"""Classify the cases of a tools/conformance/run.sh results dir and write
cases.tsv, unimplemented.tsv and summary.md into it.

Classes, in the order they are decided:
  crash         the case died of a signal (Catch2's "fatal error condition",
                or an exit status above 128 without a Catch2 summary), or the
                worker died while it ran; an abort after an ordinary failed
                assertion or after hip-tests' HIPCHECK line is not a crash
  timeout       it ran past the time limit
  notrun        the name did not select exactly one case (a runner bug)
  pass          exit status 0 and no skip marker
  skip          exit status 0 and hip-tests' HIP_SKIP_THIS_TEST marker
  needs-kernel  it failed after a kernel launch (or kernel node) that went
                through or was refused with hipErrorNoBinaryForGpu (the launch
                probe's lines), unless its failure is a call's error code
                other than that one
  unimplemented it failed after calling a function the proxy does not forward
                ("hipwire: NAME is not supported yet" under TF_DEBUG=1, or the
                loader's "undefined symbol: NAME"); the first NAME is the one
                it "stops at"
  wrong         any other failure: an assertion on a value or an error code
  env           a failing case listed in ENVIRONMENT: the toolchain, not the
                proxy, makes it fail (not counted as runnable)
"""
import argparse
import collections
import os
import re
import sys

AREAS = ["errorHandling", "event", "device", "stream", "memory", "graph", "module"]
CLASSES = ["pass", "skip", "needs-kernel", "unimplemented", "wrong", "crash", "timeout",
           "notrun", "env"]

# Cases no proxy can pass with this toolchain, and why.  Each entry is a
# fact about the build, checked by hand; keep the list short.
ENVIRONMENT = {
    "Unit_hipExtModuleLaunchKernel_CheckCodeObjAttr":
        "looks for uniform_work_group_size in copyKernel.s; Debian's clang 15 never emits it",
}

UNSUP = re.compile(r"hipwire: (\S+) is not supported yet"
                   r"|symbol lookup error: .*undefined symbol: (\S+?)(?:,|\s|$)")


def unsup_names(text):
    """Functions the proxy said it does not forward, or the loader missed."""
    return [a or b for a, b in UNSUP.findall(text)]


PROBE = re.compile(r"hipwire-probe: kernel use (\S+) -> (-?\d+)")
SUMMARY = re.compile(r"^(All tests passed|test cases:)", re.M)
NOMATCH = re.compile(r"No test cases matched|No tests ran")


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


HIPCHECK_ABORT = re.compile(r"^error: '.*'\(-?\d+\) from .* at \S+:\d+$", re.M)
CATCH_FAILED = re.compile(r"^(\S.*?):(\d+): FAILED:\s*$")


def failure_blocks(text, limit=12):
    """Catch2's FAILED blocks as (is_fatal_signal, one-line message)."""
    lines = text.splitlines()
    blocks = []
    for i, line in enumerate(lines):
        m = CATCH_FAILED.match(line)
        if not m:
            continue
        body = []
        for nxt in lines[i + 1:i + 1 + limit]:
            if nxt.startswith("---") or nxt.startswith("===") or CATCH_FAILED.match(nxt):
                break
            s = nxt.strip()
            if s and not s.startswith("In File:"):
                body.append(s)
        fatal = bool(body) and body[0].startswith("due to a fatal error condition")
        blocks.append((fatal, "%s:%s: %s" % (os.path.basename(m.group(1)), m.group(2),
                                             " | ".join(body))))
    return blocks


def failure_message(text):
    """The first Catch2 FAILED block (or HIPCHECK's line before an abort),
    else the end of the output."""
    blocks = failure_blocks(text)
    if blocks and not blocks[0][0]:
        return blocks[0][1]
    m = HIPCHECK_ABORT.search(text)
    if m:
        line = m.group(0)
        return re.sub(r" at \S+/", " at ", line)
    if blocks:
        return blocks[0][1]
    tail = [l.strip() for l in text.splitlines()
            if l.strip() and not l.startswith("hipwire[")]
    return " | ".join(tail[-4:])


def classify(name, rc, secs, text, timeout):
    unsup = unsup_names(text)
    probes = PROBE.findall(text)
    fatal = "due to a fatal error condition" in text
    has_summary = bool(SUMMARY.search(text))
    if rc == "worker":
        return "crash", "the worker died during the case; " + failure_message(text)
    if rc == "-":
        return "notrun", "area not built"
    rc = int(rc)
    if rc != 0 and name in ENVIRONMENT:
        return "env", ENVIRONMENT[name]
    if rc in (124, 137) and secs >= timeout - 1:
        return "timeout", "ran past %ss" % timeout
    if fatal or (rc > 128 and not has_summary):
        sig = rc - 128 if rc > 128 else 0
        blocks = failure_blocks(text)
        # An abort after an ordinary failed assertion is Catch2's REQUIRE
        # failing outside the main thread (std::terminate), and one after
        # "error: '...'(N) from CALL" is hip-tests' old HIPCHECK macro, which
        # calls abort(): neither is a crash; the case is classified by that
        # failure.
        hipcheck = HIPCHECK_ABORT.search(text)
        if not (sig == 6 and ((blocks and not blocks[0][0]) or hipcheck)):
            pre = [l for l in text.splitlines() if "double free" in l or "corrupt" in l
                   or "Assertion" in l or "terminate called" in l]
            return "crash", ("signal %d; " % sig if sig else "") + \
                (pre[0].strip() + "; " if pre else "") + failure_message(text)
    if NOMATCH.search(text):
        return "notrun", "the name selected no case"
    if rc == 0:
        if "HIP_SKIP_THIS_TEST" in text:
            m = re.search(r"Skipping test\. Reason: (.*)", text)
            return "skip", m.group(1).strip() if m else "HIP_SKIP_THIS_TEST"
        return "pass", ""
    msg = failure_message(text)
    # A kernel that was launched (or refused for want of a binary) explains
    # a failure, unless the failure is an error code a call returned other
    # than hipErrorNoBinaryForGpu: a launch refused for its parameters, or a
    # function the proxy does not forward, is a result of its own.  Success
    # where an error was expected (hipEventQuery not seeing the busy device a
    # kernel should have made) is still the kernel's doing.
    ran = [p for p in probes if int(p[1]) in (0, 209)]
    code = (re.search(r"Actual Code:\s*(-?\d+)", msg)
            or re.search(r"(?<!Expected )\bCode:\s*(-?\d+)", msg)
            or re.search(r"'\((-?\d+)\) from ", msg))
    own_code = code and int(code.group(1)) not in (0, 209)
    if (ran or "hipErrorNoBinaryForGpu" in text or "no kernel image is available" in text) \
            and not own_code:
        used = sorted({p[0] for p in ran})
        return "needs-kernel", ("kernel use: " + ",".join(used) + "; " if used else "") + msg
    if unsup:
        return "unimplemented", unsup[0] + " (" + ",".join(dict.fromkeys(unsup)) + "); " + msg
    if not has_summary:
        return "wrong", "exit %d without a Catch2 summary; %s" % (rc, msg)
    return "wrong", msg


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="results dir written by run.sh")
    ap.add_argument("--timeout", type=float, default=60.0, help="per-case limit used")
    args = ap.parse_args()
    out = args.out

    rows = []
    for area in AREAS:
        raw = os.path.join(out, "run", area + ".raw")
        if not os.path.exists(raw):
            continue
        with open(raw, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 6:
                    continue
                a, tag, idx, rc, secs, name = parts[:6]
                text = "" if idx == "-" else read(
                    os.path.join(out, "logs", a, "%04d.log" % int(idx)))
                secs_f = float(secs) if secs not in ("-", "") else 0.0
                cls, msg = classify(name, rc, secs_f, text, args.timeout)
                unsup = list(dict.fromkeys(unsup_names(text)))
                rows.append(dict(area=a, tag=tag, idx=idx, name=name, rc=rc, secs=secs,
                                 cls=cls, stop=unsup[0] if cls == "unimplemented" else "",
                                 unsup=",".join(unsup), msg=msg[:600]))

    with open(os.path.join(out, "cases.tsv"), "w") as f:
        f.write("area\ttag\tindex\tcase\tclass\texit\tseconds\tstops_at\tunsupported_called\t"
                "message\n")
        for r in rows:
            f.write("\t".join([r["area"], r["tag"], r["idx"], r["name"], r["cls"], r["rc"],
                               r["secs"], r["stop"], r["unsup"],
                               r["msg"].replace("\t", " ")]) + "\n")

    per = collections.OrderedDict()
    for r in rows:
        per.setdefault(r["area"], collections.Counter())[r["cls"]] += 1
    stops = collections.Counter(r["stop"] for r in rows if r["stop"])
    stop_areas = collections.defaultdict(collections.Counter)
    for r in rows:
        if r["stop"]:
            stop_areas[r["stop"]][r["area"]] += 1
    called = collections.Counter()
    for r in rows:
        for n in filter(None, r["unsup"].split(",")):
            called[n] += 1

    with open(os.path.join(out, "unimplemented.tsv"), "w") as f:
        f.write("function\tcases_stopping_at_it\tcases_calling_it\tareas\n")
        for n, c in sorted(called.items(), key=lambda kv: (-stops[kv[0]], -kv[1], kv[0])):
            f.write("%s\t%d\t%d\t%s\n" % (n, stops[n], c, ",".join(
                "%s:%d" % kv for kv in sorted(stop_areas[n].items()))))

    meta = read(os.path.join(out, "meta.txt")).strip()
    nb = [l.split("\t") for l in read(os.path.join(out, "not-built.tsv")).splitlines() if l]
    md = ["# hip-tests through hipwire: %s" % os.path.basename(os.path.abspath(out)), ""]
    if meta:
        md += ["```", meta, "```", ""]
    hdr = ["area", "tag", "cases"] + CLASSES + ["pass % of runnable w/o kernels"]
    md += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    total = collections.Counter()
    tags = {r["area"]: r["tag"] for r in rows}

    def pct(c):
        runnable = sum(c[k] for k in ("pass", "unimplemented", "wrong", "crash", "timeout"))
        return "%.1f%% (%d/%d)" % (100.0 * c["pass"] / runnable, c["pass"], runnable) \
            if runnable else "-"

    for a, c in per.items():
        total.update(c)
        md.append("| " + " | ".join([a, tags[a], str(sum(c.values()))] +
                                    [str(c[k]) for k in CLASSES] + [pct(c)]) + " |")
    md.append("| " + " | ".join(["**total**", "", str(sum(total.values()))] +
                                [str(total[k]) for k in CLASSES] + [pct(total)]) + " |")
    md += ["", "Runnable without kernels = pass + unimplemented + wrong + crash + timeout.", ""]

    if nb:
        md += ["## Source files not built (the HIP 5.2 headers lack what they use)", ""]
        md += ["- %s/%s (%s): %s" % (x[0], x[2], x[1], x[3] if len(x) > 3 else "")
               for x in nb]
        md.append("")

    md += ["## Unimplemented functions by the number of cases that stop at them", "",
           "| # | function | cases stopping | cases calling | areas |", "|---|---|---|---|---|"]
    for i, (n, c) in enumerate(sorted(stops.items(), key=lambda kv: (-kv[1], kv[0])), 1):
        md.append("| %d | %s | %d | %d | %s |" % (i, n, c, called[n], ", ".join(
            "%s:%d" % kv for kv in sorted(stop_areas[n].items()))))
    md.append("")
    for cls, title in (("crash", "Crashes"), ("wrong", "Wrong results and error codes"),
                       ("timeout", "Timeouts"), ("notrun", "Not run"),
                       ("env", "Failing because of the toolchain")):
        sel = [r for r in rows if r["cls"] == cls]
        md += ["## %s (%d)" % (title, len(sel)), ""]
        md += ["- `%s` %s: %s" % (r["area"], r["name"], r["msg"]) for r in sel]
        md.append("")
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md))
    sys.stdout.write("\n".join(md[:len(per) + 8]) + "\n")


if __name__ == "__main__":
    main()
