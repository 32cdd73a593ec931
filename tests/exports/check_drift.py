#!/usr/bin/env python3
"""exports_drift: the committed src/client/generated/hip<N> must be what
tools/gen_hip_exports.py produces from the installed headers and the
current src/client sources.  Regenerates into a temporary directory twice
(reusing the committed version nodes, and, when installed, reading the
real library) and fails with a diff on any difference."""

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77
FILES = ("exports.c", "exports.map", "symbols.txt", "STATUS.md")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--generator", required=True)
    ap.add_argument("--hip-include", required=True)
    ap.add_argument("--impl-dir", required=True)
    ap.add_argument("--committed", required=True)
    ap.add_argument("--real-lib", default="none")
    ap.add_argument("--expect-major", help="the committed table's HIP major version")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.committed, "symbols.txt")) and a.expect_major:
        print("SKIP: no committed table %s for HIP %s" % (a.committed, a.expect_major))
        return SKIP
    if not a.hip_include or \
            not os.path.exists(os.path.join(a.hip_include, "hip", "hip_runtime_api.h")):
        print("SKIP: no HIP %s headers%s; configure with -DHIPWIRE_HIP%s_ROOT=<prefix of "
              "include/hip> (docs/exports.md: Other HIP versions) to check %s"
              % (a.expect_major or "", " under " + a.hip_include if a.hip_include else "",
                 a.expect_major or "N", a.committed))
        return SKIP
    if a.expect_major:
        with open(os.path.join(a.hip_include, "hip", "hip_version.h")) as f:
            m = re.search(r"#define\s+HIP_VERSION_MAJOR\s+(\d+)", f.read())
        if not m or m.group(1) != a.expect_major:
            print("FAIL: headers under %s are not HIP %s" % (a.hip_include, a.expect_major))
            return 1
    modes = [("committed version nodes", "none")]
    if a.real_lib != "none" and os.path.exists(a.real_lib):
        modes.append(("real library " + a.real_lib, a.real_lib))
    failed = False
    for label, real in modes:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, a.generator, "--hip-include", a.hip_include,
                   "--real-lib", real, "--impl-dir", a.impl_dir, "--out", tmp,
                   "--symbols-in", os.path.join(a.committed, "symbols.txt")]
            if subprocess.run(cmd).returncode != 0:
                print("FAIL: generator failed (%s)" % label)
                failed = True
                continue
            for fn in FILES:
                with open(os.path.join(tmp, fn)) as f:
                    new = f.read().splitlines(True)
                try:
                    with open(os.path.join(a.committed, fn)) as f:
                        old = f.read().splitlines(True)
                except OSError:
                    old = []
                if old != new:
                    failed = True
                    diff = list(difflib.unified_diff(old, new, "committed/" + fn,
                                                     "regenerated/" + fn))
                    print("FAIL: %s differs (%s):" % (fn, label))
                    sys.stdout.writelines(diff[:80])
                    if len(diff) > 80:
                        print("... %d more diff lines" % (len(diff) - 80))
    if failed:
        print("\nThe committed export table is stale. Regenerate with:\n"
              "  cmake --build <build> --target hip_exports_regen\n"
              "(see docs/exports.md) and commit the result.")
        return 1
    print("export table matches headers and sources (%s)"
          % "; ".join(l for l, _ in modes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
