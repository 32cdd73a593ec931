# Shared helpers for the node/partition test drivers (sourced, POSIX sh).
#
# make_root NAME DEST assembles a host tree from tests/fixtures/node/NAME:
# the tree itself (or the one named in its BASE file), the KFD topology named
# in KFD_FIXTURE (from $KFD_FIXTURES), the modes listed in MODES (git keeps no
# permission bits), and an etc/group that names the runner's group "render"
# so the group column of the report is deterministic.

set -eu

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

make_root() {
    src="$NODE_FIXTURES/$1"
    dest="$2"
    base="$src"
    if [ -f "$src/BASE" ]; then base="$NODE_FIXTURES/$(cat "$src/BASE")"; fi
    mkdir -p "$dest"
    cp -R "$base/." "$dest/"
    rm -f "$dest/BASE" "$dest/MODES" "$dest/KFD_FIXTURE"
    if [ -f "$base/KFD_FIXTURE" ]; then
        mkdir -p "$dest/sys/class/kfd/kfd"
        cp -R "$KFD_FIXTURES/$(cat "$base/KFD_FIXTURE")/topology" "$dest/sys/class/kfd/kfd/"
    fi
    modes="$src/MODES"
    [ -f "$modes" ] || modes="$base/MODES"
    while read -r mode pattern; do
        [ -n "$mode" ] || continue
        # shellcheck disable=SC2086 # the pattern is a glob on purpose
        for f in "$dest"/$pattern; do [ -e "$f" ] && chmod "$mode" "$f"; done
    done < "$modes"
    mkdir -p "$dest/etc"
    printf 'root:x:0:\nrender:x:%s:\n' "$(id -g)" > "$dest/etc/group"
    if [ "$(id -g)" = 0 ]; then printf 'render:x:0:\n' > "$dest/etc/group"; fi
}

# A stub bin dir whose tools append their argv to $STUB_LOG and succeed.
# Extra behaviour per tool can be added by writing the stub after this.
make_stubs() {
    dir="$1"
    log="$2"
    mkdir -p "$dir"
    : > "$log"
    for tool in "$@"; do
        case "$tool" in "$dir" | "$log") continue ;; esac
        cat > "$dir/$tool" <<STUB
#!/bin/sh
echo "$tool \$*" >> "$log"
STUB
        chmod +x "$dir/$tool"
    done
}

# assert_grep PATTERN FILE: fixed-string match
assert_grep() {
    grep -qF -- "$1" "$2" || { echo "--- $2:"; cat "$2"; fail "expected '$1' in $2"; }
}

assert_no_grep() {
    if grep -qF -- "$1" "$2"; then echo "--- $2:"; cat "$2"; fail "did not expect '$1' in $2"; fi
}
