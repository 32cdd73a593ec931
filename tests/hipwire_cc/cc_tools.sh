#!/bin/sh
# cc_tools.sh CASE HIPWIRE_CC SRCDIR WORKDIR [RUNNER...] - hipwire-cc's own
# behaviour (tests/hipwire_cc/CMakeLists.txt): a file without kernels,
# TMPDIR, --offload-arch=gfx... AMD code objects.
set -u
case_=$1 cc=$2 src=$3 work=$4
shift 4
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

case $case_ in
nokernel)
    "$cc" -O2 -o "$work/prog" "$src/cc_nokernel.hip" || fail "one-step build"
    "$work/prog" | grep -q "nokernel: ok" || fail "one-step program"
    "$cc" -O2 -c "$src/cc_nokernel.hip" -o "$work/nk.o" || fail "-c"
    "$cc" -o "$work/prog2" "$work/nk.o" || fail "link"
    "$work/prog2" || fail "linked program"
    # Device variables but no kernel: the worker compiles a kernel-less source.
    "$cc" -O2 -o "$work/devvar" "$src/cc_devvar.hip" || fail "devvar build"
    "$@" "$work/devvar" | tee "$work/devvar.log"
    grep -q "devvar: ok" "$work/devvar.log" || fail "devvar program"
    ;;
tmpdir)
    mkdir -p "$work/t"
    out=$(TMPDIR="$work/t" "$cc" -O2 --save-temps -c "$src/cc_vadd.hip" -o "$work/v.o" 2>&1) ||
        fail "build: $out"
    echo "$out"
    dir=$(echo "$out" | sed -n 's/.*intermediate files in //p')
    case $dir in "$work/t/hipwire-cc."*) ;; *) fail "intermediate files in '$dir', not under TMPDIR" ;; esac
    [ -f "$dir/0.hipfb" ] || fail "no 0.hipfb in $dir"
    # Without --save-temps nothing is left behind there.
    TMPDIR="$work/t" "$cc" -O2 -c "$src/cc_vadd.hip" -o "$work/v2.o" || fail "second build"
    [ "$(ls "$work/t" | wc -l)" = 1 ] || fail "files left in TMPDIR: $(ls "$work/t")"
    echo "tmpdir: ok"
    exit 0
    ;;
offload_arch)
    out=$("$cc" -O2 --offload-arch=gfx90a -o "$work/prog" "$src/cc_vadd.hip" 2>&1) ||
        fail "build: $out"
    echo "$out"
    objcopy --dump-section .hip_fatbin="$work/fb" "$work/prog" || fail "no .hip_fatbin"
    bundler=$(command -v clang-offload-bundler-15 || command -v clang-offload-bundler)
    [ -n "$bundler" ] || { echo "SKIPPED: no clang-offload-bundler to list the entries"; exit 77; }
    ids=$("$bundler" --list --type=o --input="$work/fb") || fail "not a bundle"
    echo "$ids"
    echo "$ids" | grep -qx "hipwire-source-portable" || fail "no source entry"
    if echo "$out" | grep -q "note: .*no AMD code objects"; then
        echo "(this toolchain cannot build gfx90a code: the note above says so)"
    else
        echo "$ids" | grep -qx "hipv4-amdgcn-amd-amdhsa--gfx90a" || fail "no gfx90a entry"
        "$bundler" --unbundle --type=o --input="$work/fb" \
            --targets=hipv4-amdgcn-amd-amdhsa--gfx90a --output="$work/gfx90a.co" || fail "unbundle"
        file "$work/gfx90a.co" 2>/dev/null | grep -q "ELF 64-bit" ||
            head -c 4 "$work/gfx90a.co" | grep -q "ELF" || fail "the gfx90a entry is not an ELF"
    fi
    # The CPU worker has no use for the gfx90a object: it compiles the source.
    "$@" "$work/prog" | tee "$work/run.log"
    grep -q "hipwire-cc vadd: ok" "$work/run.log" || fail "the program did not run"
    echo "offload_arch: ok"
    exit 0
    ;;
*)
    fail "unknown case $case_"
    ;;
esac
echo "$case_: ok"
