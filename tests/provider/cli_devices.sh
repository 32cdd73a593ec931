#!/bin/sh
# hipwire devices against the fixture host roots: the provider's view as the
# CLI prints it, table and JSON, and a clear error without KFD.
# usage: cli_devices.sh HIPWIRE_BIN FIXTURES_DIR
set -eu
bin=$1 fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$fixtures/make-host-root.sh" mi300x-cpx "$tmp/mi300x"
sh "$fixtures/make-host-root.sh" mi210-8gpu "$tmp/mi210"

HIPWIRE_HOST_ROOT="$tmp/mi300x" "$bin" devices --json > "$tmp/mi300x.json"
HIPWIRE_HOST_ROOT="$tmp/mi210" "$bin" devices --json > "$tmp/mi210.json"
python3 - "$tmp/mi300x.json" "$tmp/mi210.json" <<'PY'
import json, sys
mi300 = json.load(open(sys.argv[1]))["gpus"]
mi210 = json.load(open(sys.argv[2]))["gpus"]
def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
check(len(mi300) == 8, "MI300X node: 8 physical GPUs")
for g in mi300:
    check(g["model"] == "MI300X" and g["gfx_target"] == "gfx942", "MI300X model and target")
    check(g["compute_units"] == 304, "MI300X: 304 CUs per GPU")
    check(g["compute_partition"] == "CPX", "MI300X in CPX mode")
    check(all(p["compute_units"] == 38 for p in g["partitions"]), "CPX partitions of 38 CUs")
    check(g["uuid"] == g["uuid"].lower() and g["uuid"].startswith("amdgpu-"), "lower-case UUID")
    check(all(p["uuid"].startswith(g["uuid"] + "-p") for p in g["partitions"]), "partition UUIDs")
# The capture shows 7 of the last GPU's 8 partitions (see tests/fixtures/README.md).
check([len(g["partitions"]) for g in mi300] == [8] * 7 + [7], "partitions as captured")
check(len({g["uuid"] for g in mi300}) == 8, "distinct UUIDs")
check(len(mi210) == 8, "MI210 node: 8 GPUs")
for g in mi210:
    check(g["model"] == "MI210" and g["compute_units"] == 104, "MI210: 104 CUs")
print("hipwire devices: MI300X CPX and MI210 views ok")
PY

HIPWIRE_HOST_ROOT="$tmp/mi210" "$bin" devices > "$tmp/table.txt"
grep -q '^GPU' "$tmp/table.txt"
test "$(grep -c 'MI210' "$tmp/table.txt")" -eq 8

mkdir -p "$tmp/empty"
if HIPWIRE_HOST_ROOT="$tmp/empty" "$bin" devices > /dev/null 2> "$tmp/err.txt"; then
    echo "FAIL: no KFD must be an error" >&2
    exit 1
fi
grep -q 'no KFD topology' "$tmp/err.txt"
grep -q 'VRAM_GIB' "$tmp/table.txt"
grep -q ' 64.0 ' "$tmp/table.txt"   # 68702699520 bytes in GiB

# --watch --json is NDJSON: one document per line; 64-bit ids are strings
HIPWIRE_HOST_ROOT="$tmp/mi210" timeout 3 "$bin" devices --watch 1 --json > "$tmp/nd.txt" || true
python3 - "$tmp/nd.txt" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
if len(lines) < 2:
    sys.exit("FAIL: --watch --json printed %d lines" % len(lines))
for l in lines:
    doc = json.loads(l)
    for g in doc["gpus"]:
        if not isinstance(g["xgmi_hive_id"], str) or not g["xgmi_hive_id"].startswith("0x"):
            sys.exit("FAIL: xgmi_hive_id is not a hex string")
PY
echo "hipwire devices: table and missing-KFD error ok"
