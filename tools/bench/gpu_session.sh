#!/bin/sh
# One GPU session of measurements (docs/benchmarks.md): builds what the GPU
# tests and benchmarks need, runs the GPU tests, then hipwire-bench and the
# MLP workload against a fresh `hip-worker --backend cuda`, each with the
# native CUDA column beside it. Everything lands in OUT_DIR.
#
#   tools/bench/gpu_session.sh BUILD_DIR OUT_DIR [cmake -D options...]
#
# Env: SKIP_TESTS=1 skips the GPU tests; BENCH_ARGS adds hipwire-bench
# options; CHUNKS="256 4096" also runs the copy section with those staging
# chunk sizes (KiB, HIPWIRE_CUDA_CHUNK_KIB) to compare.
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
  test_vadd test_copies test_gpu_basic test_gpu_overlap test_gpu_events test_gpu_copy1g \
  test_gpu_fault hipwire_gpu_kernels hipwire-mlp hipwire-mlp-native hipwire-mlp-compare \
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

for kib in ${CHUNKS:-}; do
  start_worker "$out/worker-chunk$kib.log" "HIPWIRE_CUDA_CHUNK_KIB=$kib"
  "$build/bin/hipwire-bench" --worker "127.0.0.1:$port" --kernels "$ptx" --section 3 \
    >"$out/bench-chunk$kib.txt" 2>&1
  stop_worker
  echo "== chunk $kib KiB"
  grep -A12 "^size" "$out/bench-chunk$kib.txt" | head -13
done

start_worker "$out/worker-mlp.log"
TF_WORKER_HOST=127.0.0.1 TF_WORKER_PORT=$port "$build/bin/hipwire-mlp-compare" \
  --remote "$build/bin/hipwire-mlp" --native "$build/bin/hipwire-mlp-native" --rounds 3 -- \
  --kernels "$build/kernels/mlp_kernels.ptx" ${MLP_ARGS:-} >"$out/mlp.txt" 2>&1 || status=1
stop_worker
sed -n '/== MLP/,$p' "$out/mlp.txt"
exit $status
