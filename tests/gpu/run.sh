#!/bin/sh
# Configures, builds and runs hipwire's GPU tests (docs/gpu-testing.md).
#   tests/gpu/run.sh [BUILD_DIR] [extra cmake -D options...]
# Builds only what the GPU tests need, so it works on a GPU box that lacks
# the packages other components want. Exit status is ctest's.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-gpu}
[ $# -gt 0 ] && shift
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
cmake -S "$src" -B "$build" -DHIPWIRE_INSTALL_DEPS=OFF "$@"
cmake --build "$build" -j "$jobs" --target hip-worker with_worker gpu_check test_vadd test_copies test_peer \
  test_handles test_stream_value test_sync_order test_memory_api test_attributes \
  test_gpu_basic test_gpu_overlap test_gpu_events test_gpu_copy1g test_gpu_fault test_gpu_hiprtc \
  test_gpu_pinned \
  test_op_states
if cmake --build "$build" --target help | grep -q hipwire_gpu_kernels; then
  cmake --build "$build" --target hipwire_gpu_kernels
fi
# hipwire-cc programs (tests/hipwire_cc): only where clang with HIP is installed.
if cmake --build "$build" --target help | grep -q hipwire_cc_programs; then
  cmake --build "$build" -j "$jobs" --target hipwire_cc_programs cc_lib_host
fi
if cmake --build "$build" --target help | grep -q test_cuda_decls; then
  cmake --build "$build" --target test_cuda_decls
  extra='|cuda_decls'
else
  extra=''
fi
cd "$build" && ctest -R "^(gpu_.*$extra)\$" --output-on-failure ${CTEST_FLAGS:-}
