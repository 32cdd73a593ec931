#!/bin/sh
# `hipwire partition show` on the MI300X CPX capture: modes per GPU and, per
# logical device, the ROCR_VISIBLE_DEVICES index (rank in KFD order), CUs,
# memory and render node. Expected rows were worked out by hand from the
# capture: GPU 7 (0000:e5) starts at KFD node 58 = the 57th GPU node = index 56.
. "$NODE_TESTS/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_root mi300x-cpx "$tmp/root"
export HIPWIRE_HOST_ROOT="$tmp/root"
"$HIPWIRE" partition show > "$tmp/out" || fail "partition show failed"
assert_grep 'GPU 0  0000:05:00.0  MI300X  compute CPX (available: SPX, DPX, QPX, CPX)  memory NPS1 (available: NPS1, NPS4)' "$tmp/out"
assert_grep 'GPU 7  0000:e5:00.0  MI300X  compute CPX' "$tmp/out"
# dev, ROCR index, CUs (152 SIMDs / 4), memory, render node
grep -Eq '^  0 +0 +38 +24\.0G +/dev/dri/renderD128$' "$tmp/out" || fail "GPU 0 dev 0 row"
grep -Eq '^  7 +15 +38 +24\.0G +/dev/dri/renderD143$' "$tmp/out" || fail "GPU 1 dev 7 row"
grep -Eq '^  0 +56 +38 +24\.0G +/dev/dri/renderD184$' "$tmp/out" || fail "GPU 7 dev 0 row"
grep -Eq '^  6 +62 +38 +24\.0G +/dev/dri/renderD190$' "$tmp/out" || fail "GPU 7 dev 6 row"
[ "$(grep -Ec '^  [0-9]+ +[0-9]+ +38 ' "$tmp/out")" = 63 ] || fail "expected 63 logical devices"

"$HIPWIRE" partition show --json > "$tmp/json" || fail "partition show --json failed"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp/json" <<'PY' || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["gpus"]
assert len(g) == 8 and g[7]["bdf"] == "0000:e5:00.0"
assert g[0]["compute_partition"] == "CPX" and g[0]["memory_partition"] == "NPS1"
devs = [x for gpu in g for x in gpu["logical_devices"]]
assert [x["rocr_visible_devices"] for x in devs] == list(range(63))
assert g[7]["logical_devices"][0]["render_node"] == "/dev/dri/renderD184"
PY
fi

# A GPU without partition support shows '-' modes.
make_root mi210 "$tmp/mi210"
HIPWIRE_HOST_ROOT="$tmp/mi210" "$HIPWIRE" partition show > "$tmp/mi210.out" || fail "show on mi210"
assert_grep 'MI210  compute - (available: -)  memory - (available: -)' "$tmp/mi210.out"
grep -Eq '^  0 +2 +104 ' "$tmp/mi210.out" || fail "MI210 at 0000:03 is KFD node 4 = ROCR index 2"
echo "ok: partition show"
