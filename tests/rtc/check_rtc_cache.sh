#!/bin/sh
# check_rtc_cache.sh SCENARIO PROG HIPWIRE CACHE_DIR - run under with_worker
# (TF_WORKER_HOST/PORT set) against a worker started with
# --rtc-cache-dir=CACHE_DIR; each PROG run is a new session. Checks what
# `hipwire status` reports about the cache after each scenario.
#   hit      the same program compiled in two sessions: a miss, then a hit
#   evict    three programs of ~200 KB against --rtc-cache-max=500K: the
#            least recently used is evicted and compiles again (a miss)
#   damaged  an entry overwritten with garbage is ignored, recompiled and
#            replaced
set -u
scenario=$1 prog=$2 hipwire=$3 dir=$4
fail() { echo "check_rtc_cache: $*"; "$hipwire" status; exit 1; }
run() { "$prog" "$@" || fail "program '$*' failed"; }
expect() { # expect "text" : hipwire status must print a line containing it
    out=$("$hipwire" status) || fail "hipwire status failed"
    printf '%s\n' "$out" | grep -q -F -- "$1" || fail "status lacks '$1'"
    echo "check_rtc_cache: status shows '$1'"
}
case $scenario in
hit)
    run 3
    expect "compiled-kernel cache: 0 hits, 1 misses, 1 entries"
    run 3
    expect "compiled-kernel cache: 1 hits, 1 misses, 1 entries"
    ;;
evict)
    run 1 200000
    run 2 200000
    expect "0 hits, 2 misses, 2 entries"
    run 1 200000 # a hit: variant 1 is now the most recently used
    run 3 200000 # over the bound: variant 2, least recently used, goes
    expect "1 hits, 3 misses, 2 entries"
    expect "(1 evicted, 0 damaged)"
    run 1 200000
    expect "2 hits, 3 misses, 2 entries"
    run 2 200000
    expect "2 hits, 4 misses, 2 entries"
    ;;
damaged)
    run 5
    entry=$(ls "$dir"/*.rtc) || fail "no entry in $dir"
    size=$(wc -c < "$entry")
    # the same size, other bytes: only the entry's own checksum can tell
    head -c "$size" /dev/zero | tr '\0' 'x' > "$entry"
    run 5
    expect "0 hits, 2 misses, 1 entries"
    expect "(0 evicted, 1 damaged)"
    run 5
    expect "1 hits, 2 misses, 1 entries"
    ;;
*) fail "unknown scenario $scenario" ;;
esac
echo "check_rtc_cache: $scenario ok"
