#!/usr/bin/env bash
# The Debian packages on a fresh Debian 12 root: `apt install ./hipwire*.deb`
# offline in a podman container, the worker started as the packaged config
# and user have it, then a client on the host (the packaged proxy) runs the
# demo's vector_add through it and `hipwire status` in the container sees it.
# Usage: tests/deploy/debs.sh [WORK_DIR]. Exit 77: skipped (reason printed).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${1:-$src/build-deploy}")
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
echo "packages without systemd: ok"

# 2. The same packages on a root with systemd as init: postinst enables and
# starts hip-worker.service, which runs hardened, as user hipwire, with its
# token through LoadCredential=; a client in the container, using the proxy
# where hipwire-client put it, runs vector_add through it. Skipped (not
# failed) where systemd cannot boot in a container here.
if ! hw_base_image "$work/cache" "$HW_SYSTEMD_IMAGE" "$HW_SYSTEMD_PACKAGES"; then
    echo "systemd part skipped: $HW_SKIP"
    echo "debs: ok"
    exit 0
fi
sd=hipwire-debtest-sd-$$
trap 'podman rm -f "$name" "$sd" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
podman run -d --name "$sd" --systemd=always -v "$tmp:/pkgs" "$HW_SYSTEMD_IMAGE" /sbin/init >/dev/null 2>&1 ||
    { echo "systemd part skipped: podman cannot start /sbin/init"; echo "debs: ok"; exit 0; }
state=
for _ in $(seq 1 100); do
    state=$(podman exec "$sd" systemctl is-system-running 2>/dev/null || true)
    case $state in running | degraded) break ;; esac
    sleep 0.2
done
case $state in
running | degraded) ;;
*) echo "systemd part skipped: systemd in the container is '$state'"; echo "debs: ok"; exit 0 ;;
esac
cp "$work/bin/vector_add" "$work/kernels/demo_kernels.so" "$tmp/"
podman exec "$sd" sh -c 'apt-get install -y -q --no-install-recommends /pkgs/hipwire-*.deb >/pkgs/apt-sd.log 2>&1' ||
    { cat "$tmp/apt-sd.log"; fail "apt-get install on the systemd root"; }
active=
for _ in $(seq 1 50); do
    podman exec "$sd" systemctl is-active --quiet hip-worker.service && { active=1; break; }
    sleep 0.2
done
[ -n "$active" ] || { podman exec "$sd" systemctl status hip-worker --no-pager; fail "hip-worker.service is not active"; }
for _ in $(seq 1 50); do
    podman exec -e TF_WORKER_TOKEN_FILE=/etc/hipwire/token "$sd" hipwire status >"$tmp/sd-status" 2>&1 && break
    sleep 0.2
done
grep -q "127.0.0.1:18515  up" "$tmp/sd-status" || { cat "$tmp/sd-status"; podman exec "$sd" journalctl -u hip-worker --no-pager | tail; fail "hipwire status against the unit's worker"; }
owner=$(podman exec "$sd" sh -c 'stat -c %U /proc/$(systemctl show -p MainPID --value hip-worker)')
[ "$owner" = hipwire ] || fail "hip-worker.service runs as '$owner'"
podman exec "$sd" sh -c 'systemctl show -p ProtectSystem -p DevicePolicy -p NoNewPrivileges hip-worker' >"$tmp/sd-props"
grep -q "ProtectSystem=strict" "$tmp/sd-props" && grep -q "DevicePolicy=closed" "$tmp/sd-props" ||
    fail "the unit's hardening is not in effect: $(cat "$tmp/sd-props")"
out=$(podman exec -e LD_LIBRARY_PATH=/usr/lib/hipwire -e TF_WORKER_TOKEN_FILE=/etc/hipwire/token "$sd" \
    /pkgs/vector_add /pkgs/demo_kernels.so 2>&1) || { echo "$out"; fail "vector_add through hip-worker.service"; }
echo "$out" | grep -q "all results correct" || { echo "$out"; fail "vector_add results through the unit"; }
echo "systemd: hip-worker.service active as $owner (ProtectSystem=strict, DevicePolicy=closed, token by LoadCredential); vector_add through it: all results correct"
echo "debs: ok"
