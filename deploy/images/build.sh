#!/usr/bin/env bash
# Builds hipwire's container images offline from its Debian packages on a
# Debian 12 minbase root (mmdebstrap; no registry pulls):
#   hipwire-amd-provider  /build/lib/libaccelerator_amd.so, /build/metadata.yaml
#   hipwire-worker        hip-worker as user hipwire on 18515, with a health check
#   hipwire-client-stub   the proxy libraries to inject into user pods
#   hipwire-service       the kernel service (skipped until its package exists)
# Usage: deploy/images/build.sh [--debs DIR] [--tag TAG] [IMAGE...]
# Without --debs the packages are built in build-deploy/. Exit 77: podman or
# the base root cannot be had here (the reason is printed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=../lib.sh
source "$src/deploy/lib.sh"
debs= tag=
images=()
while [ $# -gt 0 ]; do
    case $1 in
    --debs) debs=$(realpath "$2"); shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) images+=("$1"); shift ;;
    esac
done
[ ${#images[@]} -gt 0 ] || images=(hipwire-amd-provider hipwire-worker hipwire-client-stub hipwire-service)
work=$src/build-deploy
mkdir -p "$work"
if [ -z "$debs" ]; then
    hw_build_debs "$work" || { echo "building the packages failed" >&2; exit 1; }
    debs=$work
fi
version=$(dpkg-deb -f "$(ls "$debs"/hipwire-worker_*.deb | head -1)" Version)
tag=${tag:-$version}
hw_podman_ready || { echo "SKIP: $HW_SKIP"; exit 77; }
hw_base_image "$work/cache" || { echo "SKIP: $HW_SKIP"; exit 77; }

# The HIP release the proxy implements, from the headers it was built against.
hip_version=$(awk '/#define HIP_VERSION_MAJOR/{M=$3} /#define HIP_VERSION_MINOR/{m=$3} END{print M "." m}' \
    /usr/include/hip/hip_version.h 2>/dev/null || echo unknown)
release_date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)}" +%F)

for image in "${images[@]}"; do
    ctx=$(mktemp -d)
    for p in worker tools client provider service; do
        f=$(ls "$debs"/hipwire-${p}_*.deb 2>/dev/null | head -1 || true)
        [ -n "$f" ] && cp "$f" "$ctx/hipwire-$p.deb"
    done
    if [ "$image" = hipwire-service ] && [ ! -f "$ctx/hipwire-service.deb" ]; then
        echo "== $image: skipped (no hipwire-service package: the binary is not built yet)"
        rm -rf "$ctx"
        continue
    fi
    cat >"$ctx/metadata.yaml" <<YAML
# hipwire's AMD provider for TensorFusion (seed §2.1).
version: "$version"
hardwareVendor: AMD
releaseDate: "$release_date"
# Modes the provider implements today (docs/provider.md).
isolationModes:
  - shared
  - soft
  - partitioned
# The provider reads amdgpu sysfs and KFD and links no ROCm library; the
# client stub implements the HIP API of this ROCm release.
rocmDistribution: any
rocmVersion: "$hip_version"
YAML
    echo "== $image:$tag"
    podman build --quiet --pull=never --format docker --build-arg BASE="$HW_BASE_IMAGE" -t "localhost/$image:$tag" \
        -f "$here/$image/Containerfile" "$ctx" >"$work/image-$image.log" 2>&1 ||
        { tail -20 "$work/image-$image.log" >&2; exit 1; }
    rm -rf "$ctx"
    podman image inspect -f '   {{.Id}} {{.Size}} bytes' "localhost/$image:$tag" | cut -c1-80
done
