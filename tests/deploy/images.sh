#!/usr/bin/env bash
# The container images (deploy/images/build.sh), built offline from the
# packages: the worker image runs with podman (non-root, health check) and a
# client on the host runs the demo's vector_add through its published port;
# the provider image has seed §2.1's layout; the client stub injects the proxy.
# Usage: tests/deploy/images.sh [WORK_DIR]. Exit 77: skipped (reason printed).
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
tag=test-$$
"$src/deploy/images/build.sh" --debs "$work" --tag "$tag" || fail "deploy/images/build.sh"

tmp=$(mktemp -d)
name=hipwire-imgtest-$$
trap 'podman rm -f "$name" "hipwire-svctest-$$" >/dev/null 2>&1 || true
      for i in hipwire-amd-provider hipwire-worker hipwire-client-stub hipwire-service; do
        podman rmi -f "localhost/$i:$tag" >/dev/null 2>&1 || true; done
      rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$tmp/token"
chmod 644 "$tmp/token"

# The worker image as the chart runs it: the token Secret mounted, 18515
# published (on a free host port).
podman run -d --name "$name" -p 127.0.0.1::18515 \
    -v "$tmp/token:/var/run/secrets/hipwire/token:ro" "localhost/hipwire-worker:$tag" --backend cpu >/dev/null 2>&1 ||
    fail "podman run of the worker image"
port=$(podman port "$name" 18515 | head -1 | sed 's/.*://')
[ -n "$port" ] || fail "no published port"
healthy=
for _ in $(seq 1 50); do
    if podman healthcheck run "$name" >/dev/null 2>&1; then healthy=1; break; fi
    sleep 0.2
done
[ -n "$healthy" ] || { podman logs "$name"; fail "the worker image's health check never passed"; }
user=$(podman top "$name" user | sed -n 2p)
[ "$user" = hipwire ] || fail "the worker runs as '$user', not hipwire"
[ "$(podman image inspect -f '{{.Config.User}}' "localhost/hipwire-worker:$tag")" = 18515:18515 ] || fail "image USER is not numeric 18515"
out=$(LD_LIBRARY_PATH="$work/lib" TF_WORKER_HOST=127.0.0.1 TF_WORKER_PORT="$port" TF_WORKER_TOKEN_FILE="$tmp/token" \
    "$work/bin/vector_add" "$work/kernels/demo_kernels.so" 2>&1) || { echo "$out"; podman logs "$name"; fail "vector_add through the image"; }
echo "$out"
echo "$out" | grep -q "all results correct" || fail "vector_add results"
echo "worker image: user $user, port 18515 -> $port, health check passes"
# Without a token the image refuses to listen on 0.0.0.0.
if podman run --rm "localhost/hipwire-worker:$tag" --backend cpu >"$tmp/notoken.log" 2>&1; then
    fail "the worker image started without a token"
fi
grep -q "token" "$tmp/notoken.log" || { cat "$tmp/notoken.log"; fail "no-token refusal message"; }

# Provider image: the files TensorFusion's init container copies.
meta=$(podman run --rm "localhost/hipwire-amd-provider:$tag" sh -c \
    'test -s /build/lib/libaccelerator_amd.so && cat /build/metadata.yaml') || fail "provider image layout"
for key in version hardwareVendor releaseDate isolationModes rocmDistribution rocmVersion; do
    echo "$meta" | grep -q "^$key:" || fail "metadata.yaml lacks $key"
done
echo "$meta" | grep -q '^hardwareVendor: AMD$' || fail "hardwareVendor"
mkdir -m 777 "$tmp/tf"
podman run --rm -v "$tmp/tf:/run/tensor-fusion" "localhost/hipwire-amd-provider:$tag" >/dev/null ||
    fail "provider image's copy into /run/tensor-fusion"
[ -s "$tmp/tf/lib/libaccelerator_amd.so" ] && [ -s "$tmp/tf/metadata.yaml" ] || fail "provider copy"
echo "provider image: /build/lib/libaccelerator_amd.so and /build/metadata.yaml copied"

# Client stub: copies the proxy where a user pod's LD_LIBRARY_PATH points.
mkdir -m 777 "$tmp/inject"
podman run --rm -v "$tmp/inject:/tensor-fusion" "localhost/hipwire-client-stub:$tag" >/dev/null || fail "client stub run"
[ -s "$tmp/inject/libamdhip64.so.5" ] || fail "client stub did not inject libamdhip64.so.5"
echo "client stub: $(ls "$tmp/inject" | tr '\n' ' ')"
# Service image (built once hipwire-service is packaged): it answers HTTP.
if podman image exists "localhost/hipwire-service:$tag" && command -v curl >/dev/null 2>&1; then
    svc=hipwire-svctest-$$
    podman run -d --name "$svc" -p 127.0.0.1::8080 "localhost/hipwire-service:$tag" >/dev/null 2>&1 ||
        fail "podman run of the service image"
    sport=$(podman port "$svc" 8080 | head -1 | sed 's/.*://')
    code=000
    for _ in $(seq 1 50); do
        code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$sport/" || true)
        [ "$code" != 000 ] && break
        sleep 0.2
    done
    [ "$code" != 000 ] || { podman logs "$svc"; podman rm -f "$svc" >/dev/null; fail "the service image does not answer HTTP"; }
    podman rm -f "$svc" >/dev/null 2>&1
    echo "service image: HTTP $code on 8080"
fi
echo "images: ok"
