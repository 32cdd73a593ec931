#!/usr/bin/env bash
# The Debian packages on a fresh Debian 12 root: `apt install ./hipwire*.deb`
# offline in a podman container, the worker started as the packaged config
# and user have it, then a client on the host (the packaged proxy) runs the
# demo's vector_add through it and `hipwire status` in the container sees it.
# Usage: tests/deploy/debs.sh [WORK_DIR]. Exit 77: skipped (reason printed).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$src/build-deploy}
# shellcheck source=../../deploy/lib.sh
source "$src/deploy/lib.sh"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

hw_podman_ready || skip "$HW_SKIP"
hw_build_debs "$work" || fail "building the packages in $work"
hw_base_image "$work/cache" || skip "$HW_SKIP"
hw_podman_runs || skip "$HW_SKIP"

tmp=$(mktemp -d)
name=hipwire-debtest-$$
trap 'podman rm -f "$name" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
chmod 777 "$tmp"
cp "$work"/hipwire-*.deb "$tmp/"
ls "$tmp"/hipwire-worker_*.deb "$tmp"/hipwire-client_*.deb "$tmp"/hipwire-tools_*.deb \
    "$tmp"/hipwire-provider_*.deb >/dev/null || fail "a package is missing"

# As hip-worker.service runs it: the hipwire user, the packaged config, the
# token handed over as a private copy (LoadCredential=). Host network: the
# host's client reaches the worker's loopback port.
podman run -d --name "$name" --network host -v "$tmp:/pkgs" "$HW_BASE_IMAGE" sh -c '
  set -e
  cd /pkgs
  apt-get install -y -q --no-install-recommends ./hipwire-*.deb >/pkgs/apt.log 2>&1
  id hipwire >/pkgs/id.txt
  mkdir -p /run/hipwire/creds && cp /etc/hipwire/token /run/hipwire/creds/token
  chown -R hipwire:hipwire /run/hipwire && chmod 400 /run/hipwire/creds/token
  cp /etc/hipwire/token /pkgs/token && chmod 644 /pkgs/token
  exec setpriv --reuid hipwire --regid hipwire --init-groups \
    hip-worker --config /etc/hipwire/hip-worker.conf --token-file /run/hipwire/creds/token \
    --backend cpu --port 0 --port-file /pkgs/port' >/dev/null

for _ in $(seq 1 300); do
    [ -s "$tmp/port" ] && break
    podman container exists "$name" && [ "$(podman inspect -f '{{.State.Running}}' "$name")" = true ] ||
        { cat "$tmp/apt.log" 2>/dev/null; podman logs "$name"; fail "the container stopped"; }
    sleep 0.2
done
[ -s "$tmp/port" ] || { cat "$tmp/apt.log"; podman logs "$name"; fail "the worker did not start"; }
port=$(cat "$tmp/port")
grep -q hipwire "$tmp/id.txt" || fail "the package made no hipwire user"
echo "packages installed; hip-worker runs as $(cut -d' ' -f1 "$tmp/id.txt") on port $port"

mkdir "$tmp/client"
dpkg-deb -x "$tmp"/hipwire-client_*.deb "$tmp/client"
out=$(LD_LIBRARY_PATH="$tmp/client/usr/lib/hipwire" TF_WORKER_HOST=127.0.0.1 TF_WORKER_PORT="$port" \
    TF_WORKER_TOKEN_FILE="$tmp/token" "$work/bin/vector_add" "$work/kernels/demo_kernels.so" 2>&1) ||
    { echo "$out"; podman logs "$name"; fail "vector_add through the packaged worker"; }
echo "$out"
echo "$out" | grep -q "results correct" || fail "vector_add did not report correct results"
ldd_out=$(LD_LIBRARY_PATH="$tmp/client/usr/lib/hipwire" ldd "$work/bin/vector_add")
echo "$ldd_out" | grep -q "$tmp/client/usr/lib/hipwire/libamdhip64.so" ||
    fail "vector_add did not load the packaged proxy: $ldd_out"

status=$(podman exec -e TF_WORKER_PORT="$port" -e TF_WORKER_TOKEN_FILE=/pkgs/token "$name" hipwire status) ||
    { echo "$status"; fail "hipwire status in the container"; }
echo "$status"
podman exec "$name" sh -c 'test -f /usr/lib/systemd/system/hip-worker.service &&
  test -x /usr/lib/hipwire/libamdhip64.so.5 -o -f /usr/lib/hipwire/libamdhip64.so.5 &&
  test -f /usr/lib/tensor-fusion/libaccelerator_amd.so && ! test -e /usr/lib/libamdhip64.so.5 &&
  man -w hip-worker >/dev/null 2>&1 || test -f /usr/share/man/man8/hip-worker.8*' ||
    fail "installed layout"
echo "debs: ok"
