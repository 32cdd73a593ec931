#!/bin/sh
# `cmake --install` into a scratch root: every shipped file where docs/deploy.md
# says, the proxy never beside a real libamdhip64, the worker's unit hardened
# (systemd-analyze security, when systemd-analyze is here).
# Usage: install_layout.sh BUILD_DIR
set -u
build=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
DESTDIR=$root cmake --install "$build" --prefix /usr >"$root.log" 2>&1 || { cat "$root.log"; rm -f "$root.log"; fail "cmake --install"; }
rm -f "$root.log"
for f in usr/bin/hip-worker usr/bin/hipwire usr/lib/hipwire/libamdhip64.so.5 \
    usr/lib/hipwire/libhiprtc.so.5 usr/lib/tensor-fusion/libaccelerator_amd.so \
    usr/include/hipwire/cpu_kernel.h usr/include/tensor-fusion/accelerator.h \
    usr/lib/systemd/system/hip-worker.service usr/lib/sysusers.d/hipwire.conf \
    etc/hipwire/hip-worker.conf usr/share/man/man8/hip-worker.8 usr/share/man/man1/hipwire.1 \
    usr/share/bash-completion/completions/hipwire usr/share/bash-completion/completions/hip-worker; do
    [ -e "$root/$f" ] || fail "$f not installed"
done
# Only ever under lib/hipwire: a libamdhip64 anywhere else could shadow ROCm's.
stray=$(find "$root" -name 'libamdhip64*' -o -name 'libhiprtc*' | grep -v "^$root/usr/lib/hipwire/" || true)
[ -z "$stray" ] || fail "proxy outside lib/hipwire: $stray"
pc=$(find "$root" -name hipwire.pc)
[ -n "$pc" ] || fail "no hipwire.pc"
if command -v pkg-config >/dev/null 2>&1; then
    d=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=proxydir hipwire)
    [ "$(realpath -m "$d")" = "$root/usr/lib/hipwire" ] || fail "pkg-config proxydir $d"
fi
# The proxy finds libhiprtc's sibling through $ORIGIN.
readelf -d "$root/usr/lib/hipwire/libhiprtc.so.5" | grep -q 'ORIGIN' || fail "libhiprtc has no \$ORIGIN runpath"
grep -q "^LoadCredential=token:" "$root/usr/lib/systemd/system/hip-worker.service" || fail "token credential"
# The man page is the binary's own --help.
grep -q "max\\\\-sessions" "$root/usr/share/man/man8/hip-worker.8" || fail "man page lacks the options"
bash -n "$root/usr/share/bash-completion/completions/hipwire" || fail "completion syntax"
if command -v systemd-analyze >/dev/null 2>&1; then
    # 0 (locked down) .. 100; a plain unit scores 96.
    out=$(systemd-analyze security --offline=true --root="$root" --threshold=45 hip-worker.service 2>&1) ||
        { echo "$out" | tail -3; fail "hip-worker.service exposure above 4.5"; }
    echo "$out" | tail -1
else
    echo "(systemd-analyze absent: unit hardening not scored)"
fi
echo "install_layout: ok"
