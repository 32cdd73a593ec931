#!/bin/sh
# A session process's layers call only downward (docs/architecture.md,
# "Inside a session"): fails when a file of one layer includes the header of
# a layer above it, or when session.h (the aggregate) declares a function.
# The compiler does the rest: a lower layer that cannot see struct session
# cannot reach into it.
# usage: style_worker_layers.sh SOURCE_DIR
set -eu
cd "$1/src/worker"
lifecycle='handshake.h resume.h heartbeat.h session_main.h shm_link.h'
ops="ops.h dispatch.h copy_staged.h module.h rtc.h $lifecycle"
limits="session_limits.h inflight.h quota.h idle.h session.h $ops"
# The link and the resources are side by side: neither needs the other.
above_res="session_link.h $limits"
above_link="session_res.h $limits"
fail=0
check() { # layer-name "forbidden headers" files...
    name=$1
    forbidden=$2
    shift 2
    for f in "$@"; do
        [ -f "$f" ] || continue
        for h in $forbidden; do
            if grep -q "^#include \"$h\"" "$f"; then
                echo "$f ($name layer) includes $h, a layer above it" >&2
                fail=1
            fi
        done
    done
}
check link "$above_link" session_link.c session_link.h stage_buf.c stage_buf.h reply_log.c reply_log.h
check resources "$above_res" session_res.c session_res.h handle_map.c handle_map.h alloc_table.c \
    alloc_table.h
check limits "$ops session.h" session_limits.c session_limits.h inflight.c inflight.h quota.c \
    quota.h idle.c idle.h
check operations "$lifecycle" ops.h ops_*.c dispatch.c dispatch.h copy_staged.c copy_staged.h \
    module.c module.h rtc.c rtc.h
# session.h is only the aggregate: a function declared there is a hub again.
if grep -nE '^[a-z].*\(' session.h >&2; then
    echo "session.h declares the function(s) above: declare them in their module's header" >&2
    fail=1
fi
[ "$fail" -eq 0 ] && echo "worker layers: no upward include"
exit "$fail"
