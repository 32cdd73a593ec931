# Shared by the deploy scripts and tests (sourced). Podman here needs
# /etc/containers/containers.conf with default_ulimits and runtime runc;
# hw_podman_ready writes it when root and it is missing, then proves podman
# can run a container. Returns non-zero with the reason in $HW_SKIP.

HW_CONTAINERS_CONF=${HW_CONTAINERS_CONF:-/etc/containers/containers.conf}
# What the hipwire packages depend on, preinstalled so that installing them
# needs no network (the service and ops branches add libmicrohttpd, jansson,
# sqlite, libffi and libseccomp). The image's tag changes with this list.
HW_BASE_PACKAGES=libssl3,libzstd1,zlib1g,libcurl4,libmicrohttpd12,libjansson4,libsqlite3-0,libffi8,libseccomp2
HW_BASE_IMAGE=localhost/hipwire-base:bookworm-$(printf %s "$HW_BASE_PACKAGES" | sha256sum | cut -c1-8)
# The same with systemd as init, to run the packaged unit as systemd does.
HW_SYSTEMD_PACKAGES=$HW_BASE_PACKAGES,systemd,systemd-sysv
HW_SYSTEMD_IMAGE=localhost/hipwire-base:bookworm-systemd-$(printf %s "$HW_SYSTEMD_PACKAGES" | sha256sum | cut -c1-8)

hw_podman_ready() {
    HW_SKIP=
    command -v podman >/dev/null 2>&1 || { HW_SKIP="podman is not installed"; return 1; }
    if ! grep -q '^default_ulimits' "$HW_CONTAINERS_CONF" 2>/dev/null; then
        if [ "$(id -u)" = 0 ] && [ ! -e "$HW_CONTAINERS_CONF" ]; then
            mkdir -p "$(dirname "$HW_CONTAINERS_CONF")"
            # This host's own hard limits: podman would otherwise ask runc for
            # more than a restricted (nested) host allows.
            local nofile nproc
            nofile=$(ulimit -Hn)
            nproc=$(ulimit -Hu)
            # nproc near the host's own limit is refused here too: 32768 is
            # plenty for a worker and was accepted.
            { [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; } && nofile=65536
            { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
            cat >"$HW_CONTAINERS_CONF" <<CONF
# Written by hipwire's deploy/lib.sh (docs/deploy.md): without explicit
# ulimits podman asks runc for limits a restricted host refuses.
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
CONF
        else
            echo "note: $HW_CONTAINERS_CONF has no default_ulimits (see docs/deploy.md)" >&2
        fi
    fi
    podman info >/dev/null 2>&1 || { HW_SKIP="podman info fails: $(podman info 2>&1 | tail -1)"; return 1; }
    return 0
}

# Proves a container starts (after hw_base_image): rlimits, runtime, cgroups.
hw_podman_runs() {
    local out
    out=$(podman run --rm "$HW_BASE_IMAGE" true 2>&1) || { HW_SKIP="podman cannot run a container: $out"; return 1; }
}

# The Debian 12 minbase root every image and the package test start from,
# made once by mmdebstrap and imported as $HW_BASE_IMAGE. The mirror must be
# reachable the first time (HIPWIRE_DEBIAN_MIRROR; the host's apt cache is
# reused for the .debs it already holds); after that it is offline.
# Usage: hw_base_image CACHE_DIR [IMAGE PACKAGES] (default: the base image).
hw_base_image() {
    local cache=$1 image=${2:-$HW_BASE_IMAGE} packages=${3:-$HW_BASE_PACKAGES}
    local tar=$cache/base-${image##*:}.tar
    if podman image exists "$image" 2>/dev/null; then
        return 0
    fi
    if [ ! -s "$tar" ]; then
        command -v mmdebstrap >/dev/null 2>&1 || { HW_SKIP="mmdebstrap is not installed"; return 1; }
        mkdir -p "$cache"
        local mirror=${HIPWIRE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
        if ! mmdebstrap --quiet --variant=minbase --include="$packages" \
            --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
            --setup-hook='cp /var/cache/apt/archives/*.deb "$1/var/cache/apt/archives/" 2>/dev/null || true' \
            --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
            --format=tar bookworm "$tar.tmp" "$mirror" >"$cache/mmdebstrap.log" 2>&1; then
            HW_SKIP="mmdebstrap could not build a Debian 12 root from $mirror: $(tail -1 "$cache/mmdebstrap.log")"
            rm -f "$tar.tmp"
            return 1
        fi
        mv "$tar.tmp" "$tar"
    fi
    podman import --quiet "$tar" "$image" >/dev/null || { HW_SKIP="podman import of the base root failed"; return 1; }
}

# Release build of the shipped binaries only (BUILD_TESTING=OFF) and its
# Debian packages in $1 (also holds vector_add and the demo kernels).
hw_build_debs() {
    local dir=$1 src
    src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    mkdir -p "$dir"
    # The prefix the packages install to: paths compiled in (data directories)
    # must agree with it.
    { cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX=/usr &&
        cmake --build "$dir" -j"$(nproc)" &&
        (cd "$dir" && rm -f ./*.deb && cpack -G DEB); } >"$dir/debs.log" 2>&1 ||
        { tail -30 "$dir/debs.log" >&2; return 1; }
}
