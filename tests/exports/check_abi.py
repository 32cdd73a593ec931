#!/usr/bin/env python3
"""exports_abi: the proxy must be a drop-in for the real libamdhip64.

Checks that the proxy has the real library's SONAME and version-node
chain, and exports every function the real library exports under the
same node (and as a default-version, defined symbol).  Exits 77 (ctest
SKIP) when the real library is not installed."""

import argparse
import os
import re
import subprocess
import sys

SKIP = 77


def objdump(tool, flag, path):
    return subprocess.run([tool, flag, path], check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def describe(tool, path):
    priv = objdump(tool, "-p", path)
    m = re.search(r"^\s*SONAME\s+(\S+)", priv, re.M)
    soname = m.group(1) if m else None
    nodes, parents, last, in_defs = [], {}, None, False
    for line in priv.split("\n"):
        if line.startswith("Version definitions:"):
            in_defs = True
            continue
        if not in_defs:
            continue
        m = re.match(r"^(\d+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(\S+)", line)
        if m:
            last = None if int(m.group(2), 16) & 1 else m.group(3)
            if last:
                nodes.append(last)
            continue
        m = re.match(r"^\s+(\S+)\s*$", line)
        if m and last:
            parents[last] = m.group(1)
            continue
        if not line.strip() and nodes:
            break
    syms = {}
    for line in objdump(tool, "-T", path).split("\n"):
        m = re.match(r"^[0-9a-f]+\s+(.{7})\s+(\S+)\s+[0-9a-f]+\s+(\(?[^\s()]*\)?)\s+(\S+)\s*$", line)
        if not m:
            continue
        flags, section, ver, name = m.groups()
        if section == "*UND*" or (section == "*ABS*" and name == ver):
            continue
        syms[name] = (ver, "F" in flags)
    return soname, nodes, parents, syms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--real", required=True)
    ap.add_argument("--proxy", required=True)
    ap.add_argument("--objdump", default="objdump")
    a = ap.parse_args()
    if not os.path.exists(a.real):
        print("SKIP: real HIP library %s not installed; nothing to compare with" % a.real)
        return SKIP
    if not os.path.exists(a.proxy):
        print("FAIL: proxy %s not built" % a.proxy)
        return 1
    r_soname, r_nodes, r_par, r_syms = describe(a.objdump, a.real)
    p_soname, p_nodes, p_par, p_syms = describe(a.objdump, a.proxy)
    errors = []
    if r_soname != p_soname:
        errors.append("SONAME %s, real library has %s" % (p_soname, r_soname))
    if r_nodes != p_nodes or r_par != p_par:
        errors.append("version nodes %s (parents %s), real library has %s (parents %s)"
                      % (p_nodes, p_par, r_nodes, r_par))
    for name in sorted(r_syms):
        rver, rfunc = r_syms[name]
        if name not in p_syms:
            errors.append("missing export %s@@%s" % (name, rver))
            continue
        pver, pfunc = p_syms[name]
        if pver != rver:
            errors.append("%s is in node %s, real library has %s" % (name, pver, rver))
        if pfunc != rfunc:
            errors.append("%s: function/object kind differs" % name)
    extra = sorted(n for n in p_syms if n not in r_syms)
    bad_extra = [n for n in extra if p_syms[n][0] not in r_nodes]
    for n in bad_extra:
        errors.append("extra export %s has node %r outside the real chain" % (n, p_syms[n][0]))
    for e in errors:
        print("FAIL: " + e)
    print("%d real exports checked, %d proxy-only exports (%s), %d errors"
          % (len(r_syms), len(extra), ", ".join(extra[:8]) + (" ..." if len(extra) > 8 else ""),
             len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
