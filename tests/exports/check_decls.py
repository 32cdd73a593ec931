#!/usr/bin/env python3
"""exports_decls: every C function the HIP headers declare is exported by
the proxy under the right version node, and hipGetProcAddress returns the
address the dynamic linker gives for it.

The list of declarations comes from clang's AST of the headers, not from
tools/gen_hip_exports.py, so a function the generator's parser missed
fails here.  The expected node is the real library's (objdump of the
installed library, else the committed symbols.txt record, which holds the
real library's nodes); a function the real library does not export must be
at the newest node.  The proxy is then loaded by test_exports_procaddr
(a C program, so sanitizer builds work) which checks dlvsym and
hipGetProcAddress for each name.  Exits 77 without headers or clang."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
# Headers that declare exported C API (as in tools/gen_hip_exports.py),
# parsed as C; hip_ext.h only compiles as C++ (its extern "C" ones count).
C_HEADERS = ["hip/hip_runtime_api.h", "hip/hip_deprecated.h", "hip/hiprtc.h",
             "hip/hip_gl_interop.h", "hip/amd_detail/hip_runtime_prof.h"]
CXX_HEADERS = ["hip/hip_ext.h"]
PATH_RE = re.compile(r"(/[^\s:<>,']+):\d+")


def declared(clang, include, header, lang):
    """C-linkage functions declared in files under include/hip."""
    src = "#include <stdbool.h>\n#include <stdint.h>\n#include <hip/hip_runtime_api.h>\n" \
          "#include <%s>\n" % header
    cmd = [clang, "-x", lang, "-fsyntax-only", "-D__HIP_PLATFORM_AMD__", "-I", include,
           "-Wno-everything", "-Xclang", "-ast-dump", "-"]
    r = subprocess.run(cmd, input=src, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed on %s:\n%s" % (clang, header, r.stderr[-2000:]))
    hipdir = os.path.realpath(os.path.join(include, "hip")) + os.sep
    names, cur, c_blocks = set(), None, []   # c_blocks: indents of extern "C" blocks
    for line in r.stdout.split("\n"):
        m = re.match(r"^([| `]*)[-]?(\w+)", line)
        if not m:
            continue
        indent, kind = len(m.group(1)), m.group(2)
        while c_blocks and indent <= c_blocks[-1]:
            c_blocks.pop()
        paths = PATH_RE.findall(line)
        if paths:
            cur = paths[-1]
        if kind == "LinkageSpecDecl" and line.rstrip().endswith(" C"):
            c_blocks.append(indent)
            continue
        if kind != "FunctionDecl" or " implicit " in line or cur is None:
            continue
        top = indent <= 1 or (c_blocks and indent <= c_blocks[-1] + 2)
        if not top or not os.path.realpath(cur).startswith(hipdir):
            continue
        if lang == "c++" and not c_blocks:
            continue                      # C++ linkage: mangled, see exports_abi
        if re.search(r"'\s*(static|inline)\b|\binline\b", line.split("'")[-1]):
            continue
        dm = re.search(r" (\w+) '", line)
        if dm:
            names.add(dm.group(1))
    return names


def exports_of(objdump, path):
    syms = {}
    out = subprocess.run([objdump, "-T", path], check=True, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    for line in out.split("\n"):
        m = re.match(r"^[0-9a-f]+\s+(.{7})\s+(\S+)\s+[0-9a-f]+\s+(\(?[^\s()]*\)?)\s+(\S+)\s*$", line)
        if m and m.group(2) != "*UND*":
            syms[m.group(4)] = m.group(3).strip("()")
    return syms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hip-include", required=True)
    ap.add_argument("--proxy", required=True)
    ap.add_argument("--symbols", required=True, help="committed symbols.txt")
    ap.add_argument("--real", default="", help="the real library, when installed")
    ap.add_argument("--checker", required=True, help="test_exports_procaddr")
    ap.add_argument("--hip-version", required=True, help="major*100+minor of the headers")
    ap.add_argument("--clang", default="clang")
    ap.add_argument("--objdump", default="objdump")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.hip_include, "hip", "hip_runtime_api.h")):
        print("SKIP: no HIP headers under %s" % a.hip_include)
        return SKIP
    if shutil.which(a.clang) is None:
        print("SKIP: %s not found; it lists the headers' declarations" % a.clang)
        return SKIP
    names = set()
    for lang, headers in (("c", C_HEADERS), ("c++", CXX_HEADERS)):
        for h in headers:
            if os.path.exists(os.path.join(a.hip_include, h)):
                names |= declared(a.clang, a.hip_include, h, lang)
    nodes, recorded = [], {}
    with open(a.symbols) as f:
        for line in f:
            if line.startswith("# nodes "):
                nodes = line.split()[2:]
            elif line.strip() and not line.startswith("#"):
                name, node, _kind, origin = line.split()
                if origin == "lib":
                    recorded[name] = node
    real = exports_of(a.objdump, a.real) if a.real and os.path.exists(a.real) else recorded
    proxy = exports_of(a.objdump, a.proxy)
    errors = []
    expect = {}
    for name in sorted(names):
        want = real.get(name, nodes[-1])
        expect[name] = want
        got = proxy.get(name)
        if got is None:
            errors.append("%s is declared by the headers but not exported" % name)
        elif got != want:
            errors.append("%s is exported at %s, expected %s" % (name, got, want))
    for e in errors:
        print("FAIL: " + e)
    if len(names) < 300:
        print("FAIL: only %d declarations found; the AST reading is broken" % len(names))
        return 1
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as t:
        for name in sorted(expect):
            t.write("%s %s\n" % (name, expect[name]))
        listing = t.name
    try:
        rc = subprocess.run([a.checker, a.proxy, listing, a.hip_version]).returncode
    finally:
        os.unlink(listing)
    print("%d declared functions checked against %s, %d errors"
          % (len(names), "the real library" if real is not recorded else "symbols.txt",
             len(errors)))
    return 1 if errors or rc != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
