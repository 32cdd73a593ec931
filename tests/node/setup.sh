#!/bin/sh
# `hipwire node setup` in a temporary root, with recording stubs for every
# external tool: the dry run changes nothing, --apply writes exactly the
# rule files and runs exactly the planned commands, a second run does nothing.
. "$NODE_TESTS/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_root no-module "$tmp/root"   # Ubuntu 22.04, no ROCm, amdgpu not loaded
export HIPWIRE_HOST_ROOT="$tmp/root"
export HIPWIRE_NODE_BIN_DIR="$tmp/bin"
log="$tmp/commands.log"
make_stubs "$tmp/bin" "$log" udevadm apt-get wget amdgpu-install modprobe
# The installer and the module loader leave the traces the next run looks for.
cat >> "$tmp/bin/amdgpu-install" <<'EOF2'
mkdir -p "$HIPWIRE_HOST_ROOT/opt/rocm/.info" && echo 6.4.1-120 > "$HIPWIRE_HOST_ROOT/opt/rocm/.info/version"
EOF2
cat >> "$tmp/bin/modprobe" <<'EOF2'
mkdir -p "$HIPWIRE_HOST_ROOT/sys/module/amdgpu"
EOF2

tree_state() { (cd "$tmp/root" && find . -exec stat -c '%n %i %s %Y %a' {} + | sort); }

# 1. dry run: a valid shell script, nothing written, nothing run
tree_state > "$tmp/before"
"$HIPWIRE" node setup > "$tmp/dry" || fail "dry run failed"
tree_state > "$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || fail "dry run changed the root"
[ ! -s "$log" ] || fail "dry run ran commands: $(cat "$log")"
sh -n "$tmp/dry" || fail "dry-run output is not a shell script"
for l in \
    'cat > /etc/udev/rules.d/70-amdgpu.rules <<'"'"'EOF'"'" \
    'KERNEL=="kfd", MODE="0666"' \
    'SUBSYSTEM=="drm", KERNEL=="renderD*", MODE="0666"' \
    'udevadm control --reload-rules' \
    'udevadm trigger' \
    'cat > /etc/modules-load.d/amdgpu.conf <<'"'"'EOF'"'" \
    'apt-get install -y linux-headers-5.15.0-119-generic linux-modules-extra-5.15.0-119-generic python3-setuptools python3-wheel wget' \
    'wget -O /tmp/amdgpu-install_6.4.60401-1_all.deb https://repo.radeon.com/amdgpu-install/6.4.1/ubuntu/jammy/amdgpu-install_6.4.60401-1_all.deb' \
    'apt-get install -y /tmp/amdgpu-install_6.4.60401-1_all.deb' \
    'amdgpu-install --usecase=rocm,dkms --yes' \
    'modprobe amdgpu'; do
    assert_grep "$l" "$tmp/dry"
done

# 2. apply: exact files, exact commands in order
"$HIPWIRE" node setup --apply > "$tmp/apply1" || { cat "$tmp/apply1"; fail "apply failed"; }
printf 'KERNEL=="kfd", MODE="0666"\nSUBSYSTEM=="drm", KERNEL=="renderD*", MODE="0666"\n' > "$tmp/want.rules"
cmp "$tmp/want.rules" "$tmp/root/etc/udev/rules.d/70-amdgpu.rules" || fail "udev rules differ"
printf 'amdgpu\n' > "$tmp/want.conf"
cmp "$tmp/want.conf" "$tmp/root/etc/modules-load.d/amdgpu.conf" || fail "modules-load file differs"
cat > "$tmp/want.log" <<'EOF2'
udevadm control --reload-rules
udevadm trigger
apt-get update
apt-get install -y linux-headers-5.15.0-119-generic linux-modules-extra-5.15.0-119-generic python3-setuptools python3-wheel wget
wget -O /tmp/amdgpu-install_6.4.60401-1_all.deb https://repo.radeon.com/amdgpu-install/6.4.1/ubuntu/jammy/amdgpu-install_6.4.60401-1_all.deb
apt-get install -y /tmp/amdgpu-install_6.4.60401-1_all.deb
amdgpu-install --usecase=rocm,dkms --yes
modprobe amdgpu
EOF2
cmp "$tmp/want.log" "$log" || { diff "$tmp/want.log" "$log"; fail "apply ran other commands"; }

# 3. second apply: nothing to do
: > "$log"
tree_state > "$tmp/before"
"$HIPWIRE" node setup --apply > "$tmp/apply2" || fail "second apply failed"
tree_state > "$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || { diff "$tmp/before" "$tmp/after"; fail "second apply changed files"; }
[ ! -s "$log" ] || fail "second apply ran commands: $(cat "$log")"
assert_grep '# /etc/udev/rules.d/70-amdgpu.rules is up to date' "$tmp/apply2"
assert_grep '# ROCm 6.4.1-120 is installed: nothing to install' "$tmp/apply2"

# 4. a stale rule file is replaced, and udev reloaded again
printf 'KERNEL=="kfd", MODE="0660"\n' > "$tmp/root/etc/udev/rules.d/70-amdgpu.rules"
"$HIPWIRE" node setup --apply > /dev/null || fail "repair apply failed"
cmp "$tmp/want.rules" "$tmp/root/etc/udev/rules.d/70-amdgpu.rules" || fail "stale rules not replaced"
printf 'udevadm control --reload-rules\nudevadm trigger\n' > "$tmp/want.log"
cmp "$tmp/want.log" "$log" || fail "repair ran: $(cat "$log")"

# 5. configurable release and mirror; RHEL-family plan
rm -rf "$tmp/root2"
make_root mi210 "$tmp/root2"
rm -rf "$tmp/root2/opt"
HIPWIRE_HOST_ROOT="$tmp/root2" "$HIPWIRE" node setup --rocm-version 6.3.2 \
    --rocm-base-url https://mirror.example/amdgpu-install > "$tmp/rhel" || fail "rhel dry run failed"
assert_grep 'dnf install -y kernel-headers-5.14.0-427.13.1.el9_4.x86_64 kernel-devel-5.14.0-427.13.1.el9_4.x86_64' "$tmp/rhel"
assert_grep 'dnf install -y https://mirror.example/amdgpu-install/6.3.2/rhel/9.4/amdgpu-install-6.3.60302-1.el9.noarch.rpm' "$tmp/rhel"

# 6. bad input is refused with a message, not acted on
rc=0; "$HIPWIRE" node setup --rocm-version six > /dev/null 2>"$tmp/err" || rc=$?
[ $rc = 2 ] || fail "bad --rocm-version exited $rc"
assert_grep "is not MAJOR.MINOR" "$tmp/err"
printf 'ID=arch\n' > "$tmp/root2/etc/os-release"
rc=0; HIPWIRE_HOST_ROOT="$tmp/root2" "$HIPWIRE" node setup > /dev/null 2>"$tmp/err" || rc=$?
[ $rc = 1 ] || fail "unsupported OS exited $rc"
assert_grep "no ROCm install plan for OS 'arch'" "$tmp/err"
HIPWIRE_HOST_ROOT="$tmp/root2" "$HIPWIRE" node setup --skip-rocm > "$tmp/skip" || fail "--skip-rocm failed"
assert_grep '# skipped (--skip-rocm)' "$tmp/skip"
echo "ok: node setup"
