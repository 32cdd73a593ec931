#!/usr/bin/env python3
"""layer_check.py - the modules of one library call only downward.

Reads the object files of a library with `nm` (what each defines, what it
needs), turns them into a file-level call graph (a.c -> b.c when a.c uses a
symbol b.c defines) and fails when

  * two files call each other, directly or round a longer circle (a cycle
    in the graph: there is no order in which each calls only downward);
  * a file calls one in a higher layer than its own (--layers: a file that
    lists the layers bottom up, one per line, "layer: file.c file.c ...";
    every object file must be in one of them, or in the layer that says
    "*": every file no other layer names);
  * a file named with --no-exports uses a symbol that the library exports
    (for the proxy: an exported `hip…` entry point, which records the
    thread's last error and checks capture state, so replay must call the
    internal hw_… function beneath it).

Usage:
  layer_check.py [--layers FILE] [--no-exports FILE.c ...] [--ignore FILE.c ...]
                 [--print] OBJ...

--ignore leaves a file out: the proxy's generated exports.c, the table of
every entry point, which hipGetProcAddress reads and so sits above and below
everything at once.

--print writes the graph (one "a.c -> b.c c.c" line per file) and passes.
See docs/architecture.md ("Layers").
"""
import argparse
import os
import re
import subprocess
import sys


def source_name(obj):
    base = os.path.basename(obj)
    return base[:-2] if base.endswith(".o") else base


def object_files(args):
    """The object files named, those under a directory named (a CMake
    target's <target>.dir), and static archives (.a) as they are."""
    out = []
    for a in args:
        if os.path.isdir(a):
            for root, _, files in sorted(os.walk(a)):
                out += [os.path.join(root, f) for f in sorted(files) if f.endswith(".o")]
        else:
            out.append(a)
    return out


def read_symbols(objs):
    defined = {}  # symbol -> file
    needs = {}  # file -> set of symbols
    for obj in objs:
        if obj.endswith(".o"):
            needs.setdefault(source_name(obj), set())
    # One nm for all: -A names the file (and an archive's member) on every line.
    out = subprocess.run(["nm", "-A"] + objs, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        # "file.o:ADDR T sym", "file.o: U sym", "lib.a:member.o:ADDR T sym"
        fields = line.split()
        if len(fields) < 3:
            continue
        head, kind, sym = fields[0].split(":"), fields[-2], fields[-1]
        name = source_name(head[1] if len(head) == 3 else head[0])
        needs.setdefault(name, set())
        if kind == "U":
            needs[name].add(sym)
        elif kind in "TDBRVWC" and kind.isupper():
            defined[sym] = name
    return defined, needs, None


def exported_symbols(objs, defined):
    """Symbols with default visibility: what the shared library exports."""
    out = set()
    dump = subprocess.run(["readelf", "-sW"] + objs, check=True, capture_output=True,
                          text=True).stdout
    for line in dump.splitlines():
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) >= 8 and f[4] in ("GLOBAL", "WEAK") and f[5] == "DEFAULT" and f[6] != "UND":
            out.add(f[7].split("@")[0])
    return out & set(defined)


def build_graph(defined, needs):
    graph = {}
    why = {}
    for f, syms in needs.items():
        graph.setdefault(f, set())
        for s in syms:
            g = defined.get(s)
            if g and g != f:
                graph[f].add(g)
                why.setdefault((f, g), []).append(s)
    return graph, why


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def read_layers(path):
    """rank[file] (0 = bottom), the layer names, and the rank of the layer
    listed as "*" (every file the others do not name), or None."""
    rank = {}
    names = []
    rest = None
    with open(path) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            layer, _, files = line.partition(":")
            names.append(layer.strip())
            for f in files.split():
                if f == "*":
                    rest = len(names) - 1
                else:
                    rank[f] = len(names) - 1
    return rank, names, rest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers")
    ap.add_argument("--no-exports", nargs="*", default=[])
    ap.add_argument("--print", action="store_true")
    ap.add_argument("--ignore", nargs="*", default=[],
                    help="object files left out of the graph (a generated table of everything)")
    ap.add_argument("objs", nargs="+")
    a = ap.parse_args()

    a.objs = object_files(a.objs)
    defined, needs, _ = read_symbols(a.objs)
    for f in a.ignore:
        needs.pop(f, None)
        for sym in [sym for sym, g in defined.items() if g == f]:
            del defined[sym]
    graph, why = build_graph(defined, needs)
    if a.print:
        for f in sorted(graph):
            print(f"{f} -> {' '.join(sorted(graph[f]))}")
        return 0

    bad = 0
    for comp in cycles(graph):
        bad += 1
        print(f"cycle: {' '.join(comp)} call each other:")
        for f in comp:
            for g in sorted(graph[f] & set(comp)):
                print(f"  {f} -> {g} ({', '.join(sorted(why[(f, g)])[:4])})")

    if a.layers:
        rank, names, rest = read_layers(a.layers)
        for f in sorted(graph):
            if f not in rank and rest is not None:
                rank[f] = rest
            elif f not in rank:
                bad += 1
                print(f"{f}: in no layer of {a.layers}")
        for f in sorted(set(rank) - set(graph)):
            if rank[f] != rest:
                bad += 1
                print(f"{f}: named in {a.layers} but no such object file")
        for f in sorted(graph):
            for g in sorted(graph[f]):
                if f in rank and g in rank and rank[g] > rank[f]:
                    bad += 1
                    print(f"upward call: {f} ({names[rank[f]]}) -> {g} ({names[rank[g]]}): "
                          f"{', '.join(sorted(why[(f, g)])[:4])}")

    if a.no_exports:
        exported = exported_symbols(a.objs, defined)
        for f in a.no_exports:
            if f not in needs:
                bad += 1
                print(f"--no-exports {f}: no such object file")
                continue
            used = sorted(s for s in needs[f] if s in exported)
            if used:
                bad += 1
                print(f"{f} calls exported entry points {', '.join(used)}: call the internal "
                      f"function beneath them")

    if bad:
        print(f"layer_check: {bad} problem(s) in {len(graph)} files")
        return 1
    print(f"layer_check: {len(graph)} files, no cycles"
          + (", every call downward" if a.layers else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
