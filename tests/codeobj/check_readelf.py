#!/usr/bin/env python3
"""Compare hipwire_codeobj's reading of AMDGPU code objects with LLVM's.

llvm-readelf --notes decodes the NT_AMDGPU_METADATA note itself and prints
it as YAML: that is the compiler's own view, independent of hipwire's
msgpack reader. For every code object (bare .co files, or each amdgcn entry
of a host object's bundle, extracted by codeobj_dump --extract) every field
hipwire reports must equal readelf's.

usage: check_readelf.py CODEOBJ_DUMP LLVM_READELF WORKDIR FILE...
Exit 77 (ctest skip) when PyYAML is missing.
"""
import os
import re
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("SKIP: python3-yaml is not installed")
    sys.exit(77)

KERNEL_FIELDS = ["symbol", "kernarg_segment_size", "kernarg_segment_align",
                 "group_segment_fixed_size", "private_segment_fixed_size",
                 "sgpr_count", "vgpr_count", "max_flat_workgroup_size",
                 "wavefront_size"]


def readelf_metadata(readelf, path):
    out = subprocess.run([readelf, "--notes", path], check=True,
                         capture_output=True, text=True).stdout
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip() == "---")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "...")
    return yaml.safe_load("\n".join(lines[start + 1:end]))


def kv(line):
    return dict(re.findall(r"(\w+)=(\S*)", line))


def dump_metadata(dump, path):
    out = subprocess.run([dump, path], check=True, capture_output=True,
                         text=True).stdout
    meta, kernels, cur = None, {}, None
    for line in out.splitlines():
        if line.startswith("metadata "):
            meta = kv(line)
        elif line.startswith("kernel "):
            cur = kv(line)
            cur["args"], cur["hidden"] = [], []
            kernels[cur["name"]] = cur
        elif line.startswith("  arg ") or line.startswith("  hidden "):
            cur["args" if line.startswith("  arg ") else "hidden"].append(kv(line))
    return meta, kernels


def compare(dump, readelf, path):
    errors = []
    ref = readelf_metadata(readelf, path)
    meta, kernels = dump_metadata(dump, path)
    version = "%d.%d" % tuple(ref["amdhsa.version"][:2])
    if meta["version"] != version:
        errors.append("version %s != %s" % (meta["version"], version))
    if meta["target"] != ref.get("amdhsa.target", ""):
        errors.append("target %s != %s" % (meta["target"], ref.get("amdhsa.target")))
    ref_kernels = {k[".name"]: k for k in ref.get("amdhsa.kernels", [])}
    if set(ref_kernels) != set(kernels):
        errors.append("kernel names differ: %s vs %s" % (sorted(ref_kernels), sorted(kernels)))
    nargs = 0
    for name, rk in ref_kernels.items():
        hk = kernels.get(name)
        if hk is None:
            continue
        for f in KERNEL_FIELDS:
            if str(rk.get("." + f, 0)) != hk[f]:
                errors.append("%s .%s: readelf %s, hipwire %s" % (name, f, rk.get("." + f), hk[f]))
        ref_vis = [a for a in rk.get(".args", []) if not a[".value_kind"].startswith("hidden_")]
        ref_hid = [a for a in rk.get(".args", []) if a[".value_kind"].startswith("hidden_")]
        for kind, ra, ha in (("arg", ref_vis, hk["args"]), ("hidden", ref_hid, hk["hidden"])):
            if len(ra) != len(ha):
                errors.append("%s: %d %s args vs %d" % (name, len(ra), kind, len(ha)))
                continue
            for i, (r, h) in enumerate(zip(ra, ha)):
                for f in ("offset", "size", "value_kind", "address_space", "name", "type_name"):
                    rv = str(r.get("." + f, "-"))
                    if rv != h[f]:
                        errors.append("%s %s[%d] .%s: readelf %s, hipwire %s" % (name, kind, i, f, rv, h[f]))
                nargs += 1
    return errors, len(ref_kernels), nargs


def main():
    dump, readelf, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    cos = []
    for f in sys.argv[4:]:
        if f.endswith(".co"):
            cos.append(f)
            continue
        d = os.path.join(work, os.path.basename(f) + ".d")
        os.makedirs(d, exist_ok=True)
        subprocess.run([dump, f, "--extract", d], check=True, capture_output=True)
        cos += sorted(os.path.join(d, x) for x in os.listdir(d) if x.endswith(".co"))
    if not cos:
        print("FAIL: no code objects found")
        return 1
    failed = False
    for co in cos:
        errors, nk, na = compare(dump, readelf, co)
        for e in errors:
            print("FAIL %s: %s" % (co, e))
        failed |= bool(errors)
        print("%s: %d kernels, %d arguments: %s" % (co, nk, na, "MISMATCH" if errors else "same as llvm-readelf"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
