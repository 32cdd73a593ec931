#!/bin/sh
# One GPU session of measurements (docs/benchmarks.md): builds what the GPU
# tests and benchmarks need, runs the GPU tests, then hipwire-bench and the
# MLP workload against a fresh `hip-worker --backend cuda`, each with the
# native CUDA column beside it. Everything lands in OUT_DIR.
#
#   tools/bench/gpu_session.sh BUILD_DIR OUT_DIR [cmake -D options...]
#
# Env: SKIP_TESTS=1 skips the GPU tests; BENCH_ARGS adds hipwire-bench
# options; VARIANTS="A=1 B=2" repeats the benchmark and the MLP run with
# each of those environment settings for the worker (e.g.
# HIPWIRE_CUDA_COMPLETIONS=callback, HIPWIRE_CUDA_CHUNK_KIB=256) to compare.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
out=$2
shift 2
mkdir -p "$out"
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHIPWIRE_INSTALL_DEPS=OFF "$@" \
  >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target hip-worker hipwire-bench with_worker gpu_check \
  test_vadd test_copies test_peer test_handles test_stream_value test_sync_order test_memory_api \
  test_attributes hipwire-bench-cpu-device test_gpu_basic test_gpu_overlap test_gpu_events test_gpu_copy1g \
  test_gpu_fault test_gpu_hiprtc hipwire_gpu_kernels hipwire-mlp hipwire-mlp-native hipwire-mlp-compare \
  hipwire_mlp_kernels hipwire_test_kernels >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

status=0
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  (cd "$build" && ctest -R '^gpu_' -V) >"$out/gpu-tests.log" 2>&1 || status=1
  grep -E "^[0-9]+: (overlap|events|copy|gpu |sizes|copies|stream)|tests passed|Failed|Passed" \
    "$out/gpu-tests.log" | grep -v "hip-worker\[" | tail -40
fi

ptx=$build/kernels/gpu_kernels.ptx
start_worker() { # $1: log file, $2: an environment assignment for the worker (or none)
  rm -f /tmp/hipwire-port
  env ${2:-} "$build/bin/hip-worker" --backend cuda --port 0 --port-file /tmp/hipwire-port \
    2>"$1" &
  wpid=$!
  for _ in $(seq 200); do [ -s /tmp/hipwire-port ] && break; sleep 0.05; done
  port=$(cat /tmp/hipwire-port)
}
stop_worker() { kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null; }

start_worker "$out/worker-bench.log"
"$build/bin/hipwire-bench" --worker "127.0.0.1:$port" --kernels "$ptx" \
  --json "$out/bench.json" ${BENCH_ARGS:-} >"$out/bench.txt" 2>"$out/bench.err" || status=1
stop_worker
sed -n '/side by side/,$p' "$out/bench.txt"

mlp() { # $1: output file, $2: an environment assignment for the worker (or none)
  start_worker "$1.worker.log" "${2:-}"
  TF_WORKER_HOST=127.0.0.1 TF_WORKER_PORT=$port "$build/bin/hipwire-mlp-compare" \
    --remote "$build/bin/hipwire-mlp" --native "$build/bin/hipwire-mlp-native" --rounds 3 -- \
    --kernels "$build/kernels/mlp_kernels.ptx" ${MLP_ARGS:-} >"$1" 2>&1 || status=1
  stop_worker
}
mlp "$out/mlp.txt"
sed -n '/== MLP/,$p' "$out/mlp.txt"

# Variants of the worker's settings, each a whole benchmark and MLP run.
n=0
for v in ${VARIANTS:-}; do
  n=$((n + 1))
  start_worker "$out/worker-v$n.log" "$v"
  "$build/bin/hipwire-bench" --worker "127.0.0.1:$port" --kernels "$ptx" \
    --json "$out/bench-v$n.json" >"$out/bench-v$n.txt" 2>&1
  stop_worker
  mlp "$out/mlp-v$n.txt" "$v"
  echo "== variant $n: $v"
  sed -n '/side by side/,/^H2D GB/p' "$out/bench-v$n.txt"
  grep -A11 '^H2D GB/s' "$out/bench-v$n.txt" | tail -7
  grep -A11 '^D2H GB/s' "$out/bench-v$n.txt" | tail -7
  grep -E "step time|round trips per step =" "$out/mlp-v$n.txt"
done
exit $status
