#!/bin/sh
# Sessions on the GPU (docs/benchmarks.md, "Sessions"): hipwire-bench
# --sessions against `hip-worker --backend cuda`, cold and prewarmed, with
# the GPU memory each count costs. For the integrator's H100 runs.
#
#   tools/bench/gpu_sessions.sh BUILD_DIR OUT_DIR [cmake -D options...]
#
# Env: COUNTS (default 1,8,32,64), BACKEND (default cuda), HOLD_MS (500),
# MPS=1 to repeat the counts under NVIDIA MPS.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
out=$2
shift 2
mkdir -p "$out"
counts=${COUNTS:-1,8,32,64}
backend=${BACKEND:-cuda}
hold=${HOLD_MS:-500}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHIPWIRE_INSTALL_DEPS=OFF "$@" \
  >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target hip-worker hipwire-bench >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

bench() { # $1: name, then hipwire-bench arguments
  name=$1
  shift
  echo "== $name"
  HIPWIRE_BENCH_WORKER_LOG="$out/$name.worker.log" "$build/bin/hipwire-bench" \
    --spawn-worker "$build/bin/hip-worker" --backend "$backend" --hold-ms "$hold" "$@" \
    2>"$out/$name.err" | tee "$out/$name.txt"
  echo "exit $?" >>"$out/$name.txt"
}

status=0
# Cold: every session creates its context when its client says HELLO.
bench cold --sessions "$counts" || status=1
# Pools of 8 and 32 prewarmed contexts (each costs a context's GPU memory
# while it waits; a handed-over one is replaced at once).
# --settle-ms: the pool's contexts start in parallel; let them all be ready.
bench prewarm8 --sessions "$counts" --worker-arg --prewarm=8 --settle-ms 15000 || status=1
bench prewarm32 --sessions "$counts" --worker-arg --prewarm=32 --settle-ms 30000 || status=1
# 256 clients at once against 64 sessions: 192 wait in the admission queue.
bench queue256 --sessions 256 --worker-arg --max-sessions=64 --timeout 900 || status=1
# --isolation shared (docs/worker.md, "Isolation modes"): every session a
# thread of one device process on one context per GPU; GPU mem per count
# should be about one context plus the sessions' streams and allocations.
bench shared --sessions "$counts" --isolation shared || status=1
bench shared256 --sessions 256 --isolation process,shared --worker-arg --max-sessions=64 \
  --timeout 900 || status=1
# Optional (MPS=1): the same counts with every session an NVIDIA MPS client
# (docs/worker.md, "Isolation modes": the `mps` column). The daemon runs
# with private pipe and log directories and is stopped afterwards.
if [ "${MPS:-0}" = 1 ] && command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
  export CUDA_MPS_PIPE_DIRECTORY="$out/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$out/mps-log"
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    bench mps --sessions "$counts" || status=1
    bench mps-prewarm8 --sessions "$counts" --worker-arg --prewarm=8 --settle-ms 15000 || status=1
    echo quit | nvidia-cuda-mps-control
  else
    echo "MPS: nvidia-cuda-mps-control -d failed; skipped"
  fi
fi
echo "results in $out"
exit $status
