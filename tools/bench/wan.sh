#!/bin/sh
# wan.sh - the MLP training step across a simulated wide-area link
# (docs/benchmarks.md, "Towards the internet").
#
#   tools/bench/wan.sh BUILD_DIR [--backend cpu|cuda] [--rtt-ms "1 10 50"]
#                      [--gbits "1 10"] [--steps N] [--shaper auto|netem|relay]
#
# A hip-worker and hipwire-mlp (the step of tools/bench/mlp/mlp.c) talk across
# a link with the given round-trip time and rate:
#   netem  two network namespaces joined by a veth pair, `tc netem` delay and
#          rate on both ends (root, iproute2 and the sch_netem module);
#   relay  tests/harness/fault_relay on loopback: half the RTT of delay and the
#          rate in each direction, in user space (anywhere).
# auto picks netem when it can be set up, else relay, and says which.
#
# Per link it prints the step time, the round trips per step (the proxy's
# count, hipwire_client_stats) and the bound a step must stay within:
#   base + round trips x RTT + bytes per step / rate, plus 5%
# where base is the step over the same path with no delay and no rate limit
# and bytes per step is measured through the relay (steps 2N minus N).
set -eu

usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
}
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h|--help) usage; exit 0 ;; --version) echo "wan.sh (hipwire)"; exit 0 ;; esac
build=$(cd "$1" && pwd); shift
backend=cpu rtts="1 10 50" gbits="1 10" steps=100 shaper=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend=$2; shift 2 ;;
    --rtt-ms) rtts=$2; shift 2 ;;
    --gbits) gbits=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --shaper) shaper=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "wan.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
worker=$build/bin/hip-worker mlp=$build/bin/hipwire-mlp relay=$build/tests/fault_relay
# The CPU device gets a small model: the network, not the arithmetic, is
# what is measured.
case "$backend" in
  cpu) kernels=$build/kernels/mlp_kernels_cpu.so size="--batch 64 --in 32 --hidden 64 --classes 8" ;;
  cuda) kernels=$build/kernels/mlp_kernels.ptx size="" ;;
  *) echo "wan.sh: --backend cpu or cuda" >&2; exit 2 ;;
esac
for f in "$worker" "$mlp" "$relay" "$kernels"; do
  [ -e "$f" ] || { echo "wan.sh: $f is missing (build the tree first)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hipwire-wan.XXXXXX")
wpid=""
cleanup() {
  [ -n "$wpid" ] && kill "$wpid" 2>/dev/null || true
  ip netns del hwwan-w 2>/dev/null || true
  ip netns del hwwan-c 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

netem_ok() {
  [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v tc >/dev/null || return 1
  ip netns add hwwan-w 2>/dev/null || return 1
  ip netns add hwwan-c || return 1
  ip link add hwwan0 netns hwwan-w type veth peer name hwwan1 netns hwwan-c || return 1
  ip -n hwwan-w addr add 10.213.0.1/30 dev hwwan0 && ip -n hwwan-c addr add 10.213.0.2/30 dev hwwan1
  for ns in hwwan-w hwwan-c; do ip -n $ns link set lo up; done
  ip -n hwwan-w link set hwwan0 up && ip -n hwwan-c link set hwwan1 up
  ip netns exec hwwan-w tc qdisc add dev hwwan0 root netem delay 1ms 2>/dev/null || return 1
}
if [ "$shaper" != relay ] && netem_ok; then
  shaper=netem
else
  [ "$shaper" = netem ] && { echo "wan.sh: netem cannot be set up here (root, iproute2 and the sch_netem module are needed)" >&2; exit 1; }
  ip netns del hwwan-w 2>/dev/null || true; ip netns del hwwan-c 2>/dev/null || true
  shaper=relay
fi

# The worker: in its namespace under netem, on loopback for the relay.
if [ $shaper = netem ]; then
  ip netns exec hwwan-w "$worker" --backend "$backend" --bind 10.213.0.1 --port 0 \
    --port-file "$tmp/port" >"$tmp/worker.log" 2>&1 &
  host=10.213.0.1
else
  "$worker" --backend "$backend" --bind 127.0.0.1 --port 0 --port-file "$tmp/port" \
    >"$tmp/worker.log" 2>&1 &
  host=127.0.0.1
fi
wpid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { cat "$tmp/worker.log" >&2; echo "wan.sh: the worker did not start" >&2; exit 1; }
port=$(cat "$tmp/port")

mlp_args="--kernels $kernels --warmup 5 $size"
# The link under test is TCP: on one host the proxy would otherwise move the
# session into shared memory, around the relay and the veth pair.
export TF_TRANSPORT=tcp
val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2"; }
# run_relay STEPS ONE_WAY_US BYTES_PER_S OUT: the MLP through the relay.
run_relay() {
  TF_WORKER_HOST=$host TF_WORKER_PORT=$port "$relay" --latency-us "$2" --rate "$3" --stats \
    -- "$mlp" $mlp_args --steps "$1" >"$4" 2>"$4.err" || { cat "$4.err" >&2; exit 1; }
}
# run_netem STEPS ONE_WAY_US GBITS OUT: the MLP across the veth pair.
run_netem() {
  for end in "hwwan-w hwwan0" "hwwan-c hwwan1"; do
    ns=${end% *}; dev=${end#* }
    if [ "$3" = 0 ]; then
      ip netns exec $ns tc qdisc replace dev $dev root netem delay "$2"us
    else
      ip netns exec $ns tc qdisc replace dev $dev root netem delay "$2"us rate "$3"gbit
    fi
  done
  ip netns exec hwwan-c env TF_WORKER_HOST=$host TF_WORKER_PORT=$port "$mlp" $mlp_args \
    --steps "$1" >"$4" 2>"$4.err" || { cat "$4.err" >&2; exit 1; }
}

# Bytes per step, from the relay's counts of two runs.
run_relay "$steps" 0 0 "$tmp/b1"
run_relay $((steps * 2)) 0 0 "$tmp/b2"
bytes() { sed -n 's/.*c2w=\([0-9]*\) w2c=\([0-9]*\).*/\1 \2/p' "$1.err"; }
set -- $(bytes "$tmp/b1") $(bytes "$tmp/b2")
bytes_step=$(awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" -v n="$steps" \
  'BEGIN { x = ((c + d) - (a + b)) / n; printf "%.0f", x < 0 ? 0 : x }')
# The base: the same path with no delay and no rate limit.
# The faster of two runs: a base inflated by a busy machine would loosen the bound.
if [ $shaper = netem ]; then
  run_netem "$steps" 0 0 "$tmp/b1"
  run_netem $((steps * 2)) 0 0 "$tmp/b2"
fi
base_ms=$(awk -v a="$(val step_ms "$tmp/b1")" -v b="$(val step_ms "$tmp/b2")" \
  'BEGIN { print (a < b ? a : b) }')

echo "hipwire WAN simulation: backend $backend, shaper $shaper, $steps steps per link"
echo "base step (no delay, no limit): $base_ms ms; bytes per step: $bytes_step"
printf '%8s %8s %10s %12s %10s %8s\n' "RTT ms" "Gbit/s" "step ms" "trips/step" "bound ms" "ratio"
worst=0
for rtt in $rtts; do
  for g in $gbits; do
    one_way_us=$(awk -v r="$rtt" 'BEGIN { printf "%d", r * 500 }')
    out="$tmp/r$rtt-$g"
    if [ $shaper = netem ]; then
      run_netem "$steps" "$one_way_us" "$g" "$out"
    else
      run_relay "$steps" "$one_way_us" "$(awk -v g="$g" 'BEGIN { printf "%.0f", g * 1e9 / 8 }')" "$out"
    fi
    step=$(val step_ms "$out") trips=$(val round_trips_per_step "$out")
    set -- $(awk -v b="$base_ms" -v t="$trips" -v r="$rtt" -v B="$bytes_step" -v g="$g" -v s="$step" \
      'BEGIN { bound = b + t * r + B * 8 / (g * 1e9) * 1e3; printf "%.3f %.3f", bound, s / bound }')
    printf '%8s %8s %10s %12s %10s %8s\n' "$rtt" "$g" "$step" "$trips" "$1" "$2"
    worst=$(awk -v w="$worst" -v x="$2" 'BEGIN { print (x > w ? x : w) }')
  done
done
echo "Targets"
verdict=$(awk -v w="$worst" 'BEGIN { print (w <= 1.05 ? "MET   " : "MISSED") }')
echo "  [$verdict] step <= round trips x RTT + transfer + 5% (worst ratio to the bound): $worst"
