#!/bin/sh
# `hipwire partition set|reset` against a writable copy of the MI300X host:
# the right mode string lands in the right file; invalid combinations and
# busy GPUs are refused before anything is written.
. "$NODE_TESTS/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_root mi300x-cpx "$tmp/root"
export HIPWIRE_HOST_ROOT="$tmp/root"
export HIPWIRE_NODE_BIN_DIR="$tmp/bin"
make_stubs "$tmp/bin" "$tmp/log" modprobe
dev="$tmp/root/sys/bus/pci/devices"
state() { cat "$dev"/*/current_compute_partition "$dev"/*/current_memory_partition | tr '\n' ' '; }
refused() { # EXPECTED_MESSAGE ARGS...: exits 1, says why, writes nothing
    msg=$1; shift
    before=$(state)
    rc=0; "$HIPWIRE" partition "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
    [ $rc = 1 ] || { cat "$tmp/out" "$tmp/err"; fail "'$*' exited $rc, expected 1"; }
    assert_grep "$msg" "$tmp/err"
    assert_grep "nothing was changed" "$tmp/err"
    [ "$(state)" = "$before" ] || fail "'$*' changed partition files"
}

# 1. one GPU to DPX: only its file changes
"$HIPWIRE" partition set --compute dpx --gpu 0 > "$tmp/out" || { cat "$tmp/out"; fail "set DPX"; }
[ "$(cat "$dev/0000:05:00.0/current_compute_partition")" = DPX ] || fail "GPU 0 not DPX"
[ "$(cat "$dev/0000:27:00.0/current_compute_partition")" = CPX ] || fail "GPU 1 changed"
assert_grep "GPU 0 0000:05:00.0: wrote DPX to " "$tmp/out"
# by BDF
"$HIPWIRE" partition set --compute QPX --gpu 0000:27:00.0 > /dev/null || fail "set by BDF"
[ "$(cat "$dev/0000:27:00.0/current_compute_partition")" = QPX ] || fail "GPU 1 not QPX"

# 2. invalid combinations and unavailable modes are refused for all GPUs
refused "SPX with NPS4 is invalid" set --compute SPX --memory NPS4
refused "NPS4 needs CPX" set --compute QPX --memory NPS4 --gpu 3
refused "compute mode TPX is not available" set --compute TPX
refused "memory mode NPS2 is not available" set --compute CPX --memory NPS2

# 3. a busy GPU (a KFD process holds memory on GPU 1's first partition)
#    blocks the request, even when other GPUs are idle; --force overrides
printf '5555\n' > "$tmp/root/sys/class/kfd/kfd/topology/nodes/10/gpu_id"
mkdir -p "$tmp/root/sys/class/kfd/kfd/proc/4242"
printf '1073741824\n' > "$tmp/root/sys/class/kfd/kfd/proc/4242/vram_5555"
refused "GPU 1 0000:27:00.0: in use by KFD processes" set --compute CPX
"$HIPWIRE" partition set --compute CPX --gpu 0 > /dev/null || fail "idle GPU 0 refused"
[ "$(cat "$dev/0000:05:00.0/current_compute_partition")" = CPX ] || fail "GPU 0 not back to CPX"
"$HIPWIRE" partition set --compute CPX --gpu 1 --force > /dev/null || fail "--force refused"
[ "$(cat "$dev/0000:27:00.0/current_compute_partition")" = CPX ] || fail "--force did not write"
rm -rf "$tmp/root/sys/class/kfd/kfd/proc/4242"

# 4. memory mode: written, and the user is told a driver reload is needed
"$HIPWIRE" partition set --compute CPX --memory NPS4 --gpu 2 > "$tmp/out" || fail "set CPX/NPS4"
[ "$(cat "$dev/0000:47:00.0/current_memory_partition")" = NPS4 ] || fail "NPS4 not written"
assert_grep "memory mode NPS4 takes effect when amdgpu is reloaded" "$tmp/out"
[ ! -s "$tmp/log" ] || fail "reloaded without --reload-driver"

# 5. reset from CPX/NPS4: NPS1 first; SPX cannot be set under NPS4 until the
#    reload, which --reload-driver does (modprobe through the stub)
"$HIPWIRE" partition reset --gpu 2 > "$tmp/out" || fail "reset without reload"
[ "$(cat "$dev/0000:47:00.0/current_memory_partition")" = NPS1 ] || fail "reset did not write NPS1"
[ "$(cat "$dev/0000:47:00.0/current_compute_partition")" = CPX ] || fail "SPX written under NPS4"
assert_grep "cannot be set under the current memory mode" "$tmp/out"
printf 'NPS4\n' > "$dev/0000:47:00.0/current_memory_partition"
"$HIPWIRE" partition reset --gpu 2 --reload-driver > "$tmp/out" || { cat "$tmp/out"; fail "reset --reload-driver"; }
printf 'modprobe -r amdgpu\nmodprobe amdgpu\n' > "$tmp/want"
cmp "$tmp/want" "$tmp/log" || fail "reload ran: $(cat "$tmp/log")"
[ "$(cat "$dev/0000:47:00.0/current_memory_partition")" = NPS1 ] || fail "reset: memory not NPS1"
[ "$(cat "$dev/0000:47:00.0/current_compute_partition")" = SPX ] || fail "reset: compute not SPX"
assert_grep "now SPX/NPS1" "$tmp/out"

# 6. reset of everything
"$HIPWIRE" partition reset > /dev/null || fail "reset all"
for f in "$dev"/0000:*/current_compute_partition; do
    case "$f" in *0000:02:00.0*) continue ;; esac
    [ "$(cat "$f")" = SPX ] || fail "$f not SPX after reset"
done

# 7. bad input and devices that cannot be partitioned
rc=0; "$HIPWIRE" partition set --compute XPX 2> /dev/null || rc=$?
[ $rc = 2 ] || fail "--compute XPX exited $rc"
rc=0; "$HIPWIRE" partition set 2> /dev/null || rc=$?
[ $rc = 2 ] || fail "set without --compute exited $rc"
rc=0; "$HIPWIRE" partition set --compute SPX --gpu 9 2> /dev/null || rc=$?
[ $rc = 2 ] || fail "--gpu 9 exited $rc"
make_root amd-vf "$tmp/vf"
rc=0; HIPWIRE_HOST_ROOT="$tmp/vf" "$HIPWIRE" partition set --compute CPX 2> "$tmp/err" || rc=$?
[ $rc = 1 ] || fail "VF partition exited $rc"
assert_grep "SR-IOV VF" "$tmp/err"
make_root mi210 "$tmp/mi210"
rc=0; HIPWIRE_HOST_ROOT="$tmp/mi210" "$HIPWIRE" partition set --compute CPX 2> "$tmp/err" || rc=$?
[ $rc = 1 ] || fail "MI210 partition exited $rc"
assert_grep "no compute partition support" "$tmp/err"
# Without write permission (not root) nothing is written. Root ignores modes.
if [ "$(id -u)" != 0 ]; then
    chmod 0444 "$dev"/*/current_compute_partition
    refused "(run as root)" set --compute DPX --gpu 0
fi
echo "ok: partition set"
