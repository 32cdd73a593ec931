#!/bin/sh
# hipwire-service on a GPU: builds what the service needs, starts a
# hip-worker on the GPU (cuda backend by default) and runs
# tools/bench/service_bench.py against it (warm submit->CHECKED for matmul
# at the problems' GPU sizes, 32 concurrent submissions, RSS).
#   tools/bench/service_gpu.sh [BUILD_DIR] [BACKEND] [GPU_TYPE]
# e.g. tools/bench/service_gpu.sh build-gpu cuda H100
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-gpu}
backend=${2:-cuda}
gpu=${3:-H100}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
cmake -S "$src" -B "$build" -DHIPWIRE_INSTALL_DEPS=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target hip-worker hipwire-service hipwire-runner hipwire-cc
portfile=$(mktemp)
rm -f "$portfile"
"$build/bin/hip-worker" --backend="$backend" --port=0 --port-file="$portfile" --resume-grace=0 \
  >"$build/service_gpu.worker.log" 2>&1 &
worker=$!
trap 'kill $worker 2>/dev/null' EXIT
i=0
while [ ! -s "$portfile" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$portfile")
python3 "$src/tools/bench/service_bench.py" --build "$build" --worker "127.0.0.1:$port" \
  --gpu "$gpu" --concurrent "${CONCURRENT:-32}" --runs "${RUNS:-10}"
