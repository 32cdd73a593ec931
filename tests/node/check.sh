#!/bin/sh
# check.sh [--real-devices] FIXTURE EXPECTED_EXIT LINE...: runs `hipwire node
# check` on a fixture host and expects its exit status, each LINE (a fixed
# substring of the text report) and a --json report that agrees.
. "$NODE_TESTS/lib.sh"
fake=1
if [ "$1" = --real-devices ]; then fake=0; shift; fi
fixture=$1 expected=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_root "$fixture" "$tmp/root"
if [ $fake = 1 ]; then export HIPWIRE_NODE_FAKE_DEVICES=1; fi
export HIPWIRE_HOST_ROOT="$tmp/root"

rc=0
"$HIPWIRE" node check > "$tmp/out" 2>&1 || rc=$?
[ "$rc" = "$expected" ] || { cat "$tmp/out"; fail "node check exited $rc, expected $expected"; }
for line in "$@"; do assert_grep "$line" "$tmp/out"; done
# One line per check: every non-summary line carries a status tag.
if grep -v '^node is' "$tmp/out" | grep -qv '^\[\(FAIL\| OK \|WARN\|INFO\)\] '; then
    cat "$tmp/out"; fail "a report line without a status tag"
fi
# Every failure names its fix.
if grep '^\[FAIL\]' "$tmp/out" | grep -qv -- ' -- fix: '; then
    cat "$tmp/out"; fail "a failure without a fix"
fi

# One piece of advice: a node that is not ready ends with exactly one next
# step, the fix of its first failure; a ready one gives none.
first_fix=$(grep '^\[FAIL\]' "$tmp/out" | head -n 1 | sed 's/.* -- fix: //')
if [ "$expected" != 0 ]; then
    [ "$(grep -c -- '-- next step: ' "$tmp/out")" = 1 ] || { cat "$tmp/out"; fail "not one next step"; }
    tail -n 1 "$tmp/out" | grep -qF -- "-- next step: $first_fix" ||
        { cat "$tmp/out"; fail "the next step is not the first failure's fix"; }
elif grep -q -- '-- next step: ' "$tmp/out"; then
    cat "$tmp/out"; fail "a ready node with a next step"
fi

rc=0
"$HIPWIRE" node check --json > "$tmp/json" 2>&1 || rc=$?
[ "$rc" = "$expected" ] || fail "node check --json exited $rc, expected $expected"
if [ "$expected" = 0 ]; then ready=true; else ready=false; fi
assert_grep "\"ready\": $ready," "$tmp/json"
if command -v python3 >/dev/null 2>&1; then
    python3 -m json.tool "$tmp/json" > /dev/null || fail "node check --json is not valid JSON"
fi
echo "ok: node check $fixture -> $rc"
