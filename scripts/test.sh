#!/usr/bin/env bash
# Runs every hipwire test the way CI does:
#   1. gcc, -Werror, the full ctest suite;
#   2. a gcc Release -Werror build (maybe-uninitialized and friends);
#   3. clang with AddressSanitizer + UndefinedBehaviorSanitizer, the full
#      suite, plus the libFuzzer harnesses, each for a bounded time;
#   4. the Windows client: cross-built with mingw-w64, its test programs run
#      under wine against stage 1's hip-worker (docs/windows.md).
# Missing Debian packages are installed by the CMake configure step when run
# as root (otherwise it prints the apt-get line); the Windows stage's tools
# (WINDOWS_PACKAGES, test-only) here. Build trees: build-test*/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# Tests run one worker process per test: twice the cores keeps both busy.
ctest_jobs=$((jobs * 2))

step() { printf '\n==== %s\n' "$*"; }

# Test-only: the mingw-w64 cross compiler and wine for stage 4.
WINDOWS_PACKAGES="mingw-w64 wine wine64"
install_windows_tools() {
  local missing=""
  for p in $WINDOWS_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing ||
      echo "could not install$missing"
  else
    echo "missing Debian packages for the Windows stage:$missing (sudo apt-get install -y$missing)"
  fi
}

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

step "Windows client: mingw-w64 cross build, tests under wine (uses build-test)"
command -v dpkg-query >/dev/null && install_windows_tools
if command -v x86_64-w64-mingw32-gcc >/dev/null; then
  cmake -S . -B build-test-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake -DHIPWIRE_WERROR=ON \
        -DHIPWIRE_HOST_BUILD="$PWD/build-test" >/dev/null
  cmake --build build-test-win -j"$jobs"
  # Each test skips with its reason when wine is missing.
  ctest --test-dir build-test-win -j"$jobs" --output-on-failure --timeout 600
else
  echo "SKIPPED: no mingw-w64 cross compiler (apt-get install $WINDOWS_PACKAGES)"
fi

# About 2.5 minutes cold (a Release build of the shipped binaries, two Debian 12
# roots from the mirror, npm packages), under 40 s after that. Needs podman,
# mmdebstrap and the Debian mirror (installed here when root), and npm for the
# chart; each part skips cleanly, with its reason, without them.
step "deploy: Debian packages on a fresh Debian 12 root, container images, Helm chart"
deploy_pkgs="podman buildah mmdebstrap uidmap runc dpkg-dev file openssl"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  missing=$(for p in $deploy_pkgs; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
    grep -q "install ok installed" || echo "$p"; done)
  if [ -n "$missing" ]; then
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
      echo "could not install $missing: the deploy checks that need them will skip"
  fi
fi
tests/deploy/run.sh build-deploy
