#!/usr/bin/env bash
# Runs every hipwire test the way CI does:
#   1. gcc, -Werror, the full ctest suite;
#   2. a gcc Release -Werror build (maybe-uninitialized and friends);
#   3. clang with AddressSanitizer + UndefinedBehaviorSanitizer, the full
#      suite, plus the libFuzzer harnesses, each for a bounded time.
# Missing Debian packages are installed by the CMake configure step when run
# as root (otherwise it prints the apt-get line). Build trees: build-test*/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# Tests run one worker process per test: twice the cores keeps both busy.
ctest_jobs=$((jobs * 2))

step() { printf '\n==== %s\n' "$*"; }

step "gcc build, -Werror"
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DHIPWIRE_WERROR=ON >/dev/null
cmake --build build-test -j"$jobs"
step "puppeteer-core for service_web_page (skips without npm)"
sh tests/service/web/install.sh || echo "puppeteer-core not installed: service_web_page will skip"
step "gcc: ctest"
ctest --test-dir build-test -j"$ctest_jobs" --output-on-failure --timeout 600

step "gcc Release build, -Werror (warnings only the optimizer sees)"
cmake -S . -B build-test-release -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
      -DHIPWIRE_WERROR=ON >/dev/null
cmake --build build-test-release -j"$jobs"

step "clang build, ASan + UBSan, libFuzzer harnesses"
cmake -S . -B build-test-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
      -DHIPWIRE_SANITIZE=ON -DHIPWIRE_FUZZ=ON -DHIPWIRE_WERROR=ON >/dev/null
cmake --build build-test-asan -j"$jobs"
step "clang ASan/UBSan: ctest (fuzzers included)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-test-asan -j"$ctest_jobs" --output-on-failure --timeout 600 -E 'bench_'

