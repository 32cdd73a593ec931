#!/bin/sh
# Allocation-failure loop (docs/testing.md), as curl's and libuv's torture
# runs do: for N = 1, 2, ... make the Nth allocation in one process fail, and
# with HIPWIRE_FAIL_ALLOC_EVERY=1 every later one too, until the run gets
# through without reaching N. Each run must end cleanly: no signal death, no
# sanitizer report, and a message on stderr whenever it fails. A HIP call
# fails with hipErrorOutOfMemory (hipErrorNotInitialized when the connection
# could not be set up), not with a code that hides the cause. A run that
# exits 0 despite the faults must print what a fault-free run prints.
# usage: alloc_faults.sh BUILD_DIR FIXTURES_DIR [MAX_N] [devices|test_vadd|test_graph|worker|all]
#        (alloc_faults.sh --client-probe MAX_N LABEL CMD...: one probe, run
#        by the script itself under one worker)
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# run_faulted WHO N EVERY CMD...: runs CMD with allocation N failing (and
# every later one when EVERY is 1) in WHO, client or worker; sets rc and bad.
run_faulted() {
    who=$1 at=$2 every=$3
    shift 3
    if [ "$who" = client ]; then
        HIPWIRE_FAIL_ALLOC=$at HIPWIRE_FAIL_ALLOC_EVERY=$every "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    else
        HIPWIRE_WORKER_FAULTS=$at HIPWIRE_WORKER_FAULTS_EVERY=$every "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    fi
    rc=$?
    bad=''
    if [ "$rc" -gt 128 ]; then
        bad="died from signal $((rc - 128))"
    elif grep -qE 'died from signal|Sanitizer|runtime error:' "$tmp/err" "$tmp/worker.log" 2> /dev/null; then
        bad="crashed (see below)"
    elif [ "$rc" -ne 0 ] && [ ! -s "$tmp/err" ]; then
        bad="failed (exit $rc) without a word on stderr"
    elif grep -oE '(failed: |returned )hipError[A-Za-z]+' "$tmp/err" | sed 's/.* //' |
        grep -vqxE 'hipErrorOutOfMemory|hipErrorNotInitialized'; then
        bad="a HIP call failed with another code than out of memory (a failure swallowed earlier?)"
    elif [ "$rc" -eq 0 ] && ! cmp -s "$tmp/out" "$tmp/want.out"; then
        bad="exited 0 but printed something else than a fault-free run"
    fi
}

# probe LABEL WHO CMD...: first every allocation from the Nth on fails, for
# N = 1, 2, ... until a run never gets to N (that N - 1 is how many the run
# makes); then each of those fails alone, the rest succeeding.
probe() {
    label=$1 who=$2
    shift 2
    t0=$(date +%s)
    rm -f "$tmp/worker.log"
    "$@" > "$tmp/want.out" 2> "$tmp/want.err" < /dev/null
    if [ $? -ne 0 ]; then
        echo "alloc_faults: $label fails without faults:" >&2
        cat "$tmp/want.err" >&2
        failures=$((failures + 1))
        return
    fi
    limit=$max
    for every in 1 0; do
        n=1
        while [ "$n" -le "$limit" ]; do
            rm -f "$tmp/worker.log"
            run_faulted "$who" "$n" "$every" "$@"
            if [ -n "$bad" ]; then
                echo "alloc_faults: $label, allocation $n failing (every later one too: $every): $bad" >&2
                tail -n 20 "$tmp/err" >&2
                [ -f "$tmp/worker.log" ] && tail -n 20 "$tmp/worker.log" >&2
                failures=$((failures + 1))
                return
            fi
            if [ "$every" = 1 ] && [ "$rc" -eq 0 ]; then
                limit=$((n - 1))
                break
            fi
            n=$((n + 1))
        done
    done
    echo "alloc_faults: $label: $limit allocations, each failing alone and with all after it: no crash ($(($(date +%s) - t0)) s)"
}

# The worker's faults ride in its own environment: with_worker passes its
# environment on, so the test program drops the variables again.
with_worker() {
    if [ -n "${HIPWIRE_WORKER_FAULTS:-}" ]; then
        HIPWIRE_FAIL_ALLOC=$HIPWIRE_WORKER_FAULTS HIPWIRE_FAIL_ALLOC_EVERY=$HIPWIRE_WORKER_FAULTS_EVERY \
            "$build/tests/with_worker" --worker "$build/bin/hip-worker" --log "$tmp/worker.log" \
            --arg --backend=cpu --arg --resume-grace=0 -- env -u HIPWIRE_FAIL_ALLOC -u HIPWIRE_FAIL_ALLOC_EVERY "$@"
    else
        "$build/tests/with_worker" --worker "$build/bin/hip-worker" --log "$tmp/worker.log" \
            --arg --backend=cpu -- "$@"
    fi
}

if [ "$1" = --client-probe ]; then
    max=$2 label=$3
    shift 3
    probe "$label" client "$@"
    exit "$failures"
fi
build=$1 fixtures=$2 max=${3:-400}
export HIPWIRE_KERNELS="$build/kernels/test_kernels.so"
sh "$fixtures/make-host-root.sh" mi300x-cpx "$tmp/mi300x" || exit 1
devices() {
    HIPWIRE_HOST_ROOT="$tmp/mi300x" "$build/bin/hipwire" devices --json
}

# PART: one probe alone, so ctest runs them side by side (each one is mostly
# waiting on process start-up and sockets, not CPU).
part=${4:-all}
case $part in all | devices)
    probe "hipwire devices --json" client devices
esac
# One worker serves every client run: a fresh one each time would cost more
# than the runs themselves.
for prog in test_vadd test_graph; do
    case $part in all | "$prog")
        with_worker sh "$0" --client-probe "$max" "$prog, client" "$build/tests/$prog" ||
            failures=$((failures + 1))
    esac
done
case $part in all | worker)
    probe "test_vadd, worker" worker with_worker "$build/tests/test_vadd"
esac

if [ "$failures" -ne 0 ]; then
    echo "alloc_faults: $failures probe(s) found a crash or a silent failure" >&2
    exit 1
fi
