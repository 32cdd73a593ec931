#!/bin/sh
# Every hipwire command and subcommand answers --help on stdout with exit 0,
# and an unknown option is a usage error (exit 2).
# usage: cli_help.sh HIPWIRE_BIN
set -u
bin=$1
fail=0
for cmd in "" "node" "node check" "node setup" "node labels" "partition" "partition show" \
           "partition set" "partition reset" "devices" "status" "drain" "metrics"; do
    # shellcheck disable=SC2086
    out=$("$bin" $cmd --help 2>/dev/null); rc=$?
    if [ $rc -ne 0 ] || [ -z "$out" ]; then
        echo "FAIL: hipwire $cmd --help: exit $rc, ${#out} bytes on stdout"; fail=1
    fi
done
for cmd in "devices" "status" "drain" "metrics" "partition show"; do
    # shellcheck disable=SC2086
    "$bin" $cmd --no-such-option > /dev/null 2>&1; rc=$?
    if [ $rc -ne 2 ]; then
        echo "FAIL: hipwire $cmd --no-such-option: exit $rc, expected 2"; fail=1
    fi
done
[ $fail -eq 0 ] && echo "cli_help: ok"
exit $fail
