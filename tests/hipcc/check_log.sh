#!/bin/sh
# check_log.sh LOG PATTERN=COUNT... -- COMMAND...
# Runs COMMAND (typically with_worker ... --log LOG ...), then checks that
# each fixed-string PATTERN occurs on exactly COUNT lines of LOG. The exit
# status is COMMAND's when it fails, else 1 if a count is off.
log=$1
shift
checks=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    checks="$checks
$1"
    shift
done
[ "$1" = "--" ] || { echo "usage: check_log.sh LOG PATTERN=COUNT... -- COMMAND..." >&2; exit 2; }
shift
"$@" || exit $?
status=0
while IFS= read -r check; do
    [ -n "$check" ] || continue
    pattern=${check%=*}
    want=${check##*=}
    got=$(grep -c -F -- "$pattern" "$log")
    if [ "$got" != "$want" ]; then
        echo "check_log: '$pattern' on $got line(s) of $log, expected $want" >&2
        status=1
    else
        echo "check_log: '$pattern' on $got line(s), as expected"
    fi
done <<EOF2
$checks
EOF2
exit $status
