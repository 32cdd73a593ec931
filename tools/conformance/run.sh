#!/usr/bin/env bash
# Runs AMD's hip-tests (Catch2 unit tests) case by case through hipwire's proxy
# against a CPU-device worker and classifies every case.  See
# docs/conformance.md.  Not part of CI: it needs a hip-tests tree and hipcc.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: tools/conformance/run.sh --build DIR (--hip-tests GITDIR | --src-5.5 DIR --src-6.2 DIR)
                                [options]

Builds the chosen hip-tests areas with hipcc (gfx90a) against the installed HIP
headers, then runs each Catch2 case in its own process through the hipwire
proxy in DIR/lib against a CPU-device worker (DIR/bin/hip-worker) and writes
a per-case TSV, a per-area table and the lists of unimplemented functions,
crashes and wrong results.

  --build DIR         hipwire build dir (lib/libamdhip64.so.5, bin/hip-worker)
  --hip-tests GITDIR  a hip-tests git repository (bare or not); the tags
                      rocm-5.5.0 and rocm-6.2.2 are exported from it
  --src-5.5 DIR       an exported rocm-5.5.0 tree instead (its top, with catch/)
  --src-6.2 DIR       an exported rocm-6.2.2 tree instead
  --work DIR          copies and builds of hip-tests (default /tmp/hipwire-conformance);
                      kept between runs, so a second run only relinks
  --label NAME        results label (default: the date and time)
  --out DIR           results dir (default /work/conformance-results/LABEL if
                      /work exists, else WORK/results/LABEL)
  --areas LIST        comma-separated subset of
                      errorHandling,event,device,stream,memory,graph,module
                      (default: all)
  --jobs N            make -j for building hip-tests (default 1)
  --parallel N        areas run at once, each with its own worker (default 1)
  --timeout S         per-case time limit in seconds (default 60)
  --cpu-devices N     devices of the CPU worker (default 2: the multi-device
                      cases run instead of skipping)
  --filter REGEX      run only cases whose name matches (grep -E)
  --no-build          use the hip-tests binaries already in WORK
  --hipcc PATH        compiler (default hipcc in PATH)
  -h, --help          this text

Exit status: 0 when the run completed (whatever the cases did), 2 on a usage
or setup error.
EOF
}

die() {
    echo "run.sh: $*" >&2
    exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build="" gitdir="" src55="" src62="" work=/tmp/hipwire-conformance label="" out=""
areas="errorHandling,event,device,stream,memory,graph,module"
jobs=1 parallel=1 timeout_s=60 cpu_devices=2 filter="" do_build=1 hipcc=hipcc

while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --hip-tests) gitdir=$2; shift 2 ;;
    --src-5.5) src55=$2; shift 2 ;;
    --src-6.2) src62=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --areas) areas=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --cpu-devices) cpu_devices=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --hipcc) hipcc=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
    esac
done

[ -n "$build" ] || die "--build is required (see --help)"
build=$(cd "$build" && pwd) || die "no such build dir"
[ -e "$build/lib/libamdhip64.so.5" ] || die "$build/lib/libamdhip64.so.5 missing: build target amdhip64_proxy"
[ -x "$build/bin/hip-worker" ] || die "$build/bin/hip-worker missing: build target hip-worker"
[ -n "$label" ] || label=$(date -u +%Y%m%d-%H%M%S)
if [ -z "$out" ]; then
    if [ -d /work ]; then out=/work/conformance-results/$label; else out=$work/results/$label; fi
fi
mkdir -p "$work" "$out"
work=$(cd "$work" && pwd)
out=$(cd "$out" && pwd)

# area -> tag, source dir under catch/unit, test binary
area_tag() { if [ "$1" = module ]; then echo rocm-6.2.2; else echo rocm-5.5.0; fi; }
area_target() {
    case "$1" in
    errorHandling) echo ErrorHandlingTest ;;
    event) echo EventTest ;;
    device) echo DeviceTest ;;
    stream) echo StreamTest ;;
    memory) echo MemoryTest ;;
    graph) echo GraphsTest ;;
    module) echo ModuleTest ;;
    *) die "unknown area: $1" ;;
    esac
}
IFS=, read -r -a area_list <<<"$areas"
for a in "${area_list[@]}"; do area_target "$a" >/dev/null; done

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$out/run.log" >&2; }

# --- 1. out-of-tree copies of the two tags, with the Debian-hipcc tweaks ----
prepare_tree() { # tag srcdir
    local tag=$1 src=$2 tree=$work/tree-${1#rocm-}
    if [ ! -d "$tree/catch" ]; then
        log "copying $tag into $tree"
        mkdir -p "$tree"
        : >"$work/not-built-${tag#rocm-}.tsv"
        if [ -n "$src" ]; then
            cp -a "$src/." "$tree/"
        elif [ -n "$gitdir" ]; then
            git --git-dir="$(git -C "$gitdir" rev-parse --absolute-git-dir 2>/dev/null || echo "$gitdir")" \
                archive "$tag" | tar -x -C "$tree"
        else
            die "no source for $tag: give --hip-tests or --src-${tag#rocm-}"
        fi
    fi
    # Tweak 1: Debian's clang 15 warns where AMD's clang did not; the tests
    # are built without -Werror.
    sed -i 's/ -Werror / /' "$tree/catch/CMakeLists.txt"
    # Tweak 2: with --hip-path=/usr Debian's clang 15 finds no HIP runtime
    # (it expects ROCm's layout); --rocm-path=/usr alone works (rocm-6.2.2).
    # shellcheck disable=SC2016
    sed -i 's/ --hip-path=${HIP_PATH}//' "$tree/catch/CMakeLists.txt"
    # Tweak 3: the module area's code objects are built with options Debian's
    # toolchain lacks: code object v5 (its lld 14 cannot link it) and
    # -amdgpu-kernarg-preload-count (clang 15 has no such option).  They are
    # built as v4 without preloading; only their contents for a GPU differ.
    if [ -f "$tree/catch/unit/module/CMakeLists.txt" ]; then
        sed -i -E 's/ ?-mcode-object-version=5//; s/-mllvm -amdgpu-kernarg-preload-count=[0-9]+//' \
            "$tree/catch/unit/module/CMakeLists.txt"
    fi
}

need_tags=()
for a in "${area_list[@]}"; do need_tags+=("$(area_tag "$a")"); done
mapfile -t need_tags < <(printf '%s\n' "${need_tags[@]}" | sort -u)

configure_tree() { # tag
    local tag=$1 bdir=$work/build-${1#rocm-}
    mkdir -p "$bdir"
    log "configuring $tag in $bdir"
    # Tweak 4: hip52_compat.h is force-included (-include) to fill gaps of
    # the HIP 5.2 headers that hip-tests' common headers rely on.
    # Tweak 5: the tests link against hipwire's libamdhip64 and libhiprtc
    # (-L BUILD/lib), not Debian's: Debian's libamdhip64 5.2 lacks functions
    # its headers declare (hipLaunchHostFunc) and HIP 5.2 has no libhiprtc
    # of its own, which rocm-6.2.2's module tests link.  At run time the
    # proxy is loaded through LD_LIBRARY_PATH either way.
    local ldflags="-L$build/lib"
    (cd "$bdir" && cmake "$work/tree-${tag#rocm-}/catch" \
        -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
        -DHIP_PLATFORM=amd -DHIP_PATH="$(dirname "$(dirname "$(command -v "$hipcc")")")" \
        -DROCM_PATH=/usr -DOFFLOAD_ARCH_STR=--offload-arch=gfx90a \
        -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_FLAGS="-include $here/hip52_compat.h" >"$bdir/configure.log" 2>&1) ||
        die "cmake failed for $tag: see $bdir/configure.log"
}

# Tweak 6: a source file the HIP 5.2 headers cannot compile (it uses API
# added later) is dropped from its area's CMakeLists.txt in the copy and
# listed in OUT/not-built.tsv; the rest of the area is built and run.
build_area() { # area
    local a=$1 tag target bdir cml round failed f
    tag=$(area_tag "$a")
    target=$(area_target "$a")
    bdir=$work/build-${tag#rocm-}
    cml=$work/tree-${tag#rocm-}/catch/unit/$a/CMakeLists.txt
    local extra=()
    if [ "$a" = module ]; then
        # code objects the module cases load from the working directory
        extra=(empty_module.code copyKernel.code copyKernel.s copiousArgKernel.code copiousArgKernel0.code
            copiousArgKernel1.code copiousArgKernel2.code copiousArgKernel3.code
            copiousArgKernel16.code copiousArgKernel17.code hipGetFuncBySymbol_exe)
    fi
    for round in 1 2 3 4 5 6 7 8; do
        log "building $target ($tag), round $round"
        if make -C "$bdir" -k -j"$jobs" "$target" >"$bdir/build-$target.log" 2>&1; then
            break
        fi
        mapfile -t failed < <(grep -oE "CMakeFiles/$target\.dir/[^ ]+\.(cc|cpp)\.o\] Error" \
            "$bdir/build-$target.log" | sed -E "s#CMakeFiles/$target\.dir/##; s#\.o\] Error##" | sort -u)
        if [ ${#failed[@]} -eq 0 ]; then
            log "$target does not build and no source file is to blame: see $bdir/build-$target.log"
            return 1
        fi
        for f in "${failed[@]}"; do
            local why
            why=$(grep -m1 -E "^[^ ]*/unit/$a/$f:[0-9]+:[0-9]+: error:" "$bdir/build-$target.log" |
                sed -E 's/^[^ ]+ error: //' || true)
            [ -n "$why" ] || why="an error in a header it includes: see $bdir/build-$target.log"
            printf '%s\t%s\t%s\t%s\n' "$a" "$tag" "$f" "$why" >>"$work/not-built-${tag#rocm-}.tsv"
            log "  dropping $a/$f: $why"
            sed -i -E "s#(^|[[:space:]])${f//./\\.}([[:space:])]|\$)#\1\2#" "$cml"
        done
    done
    if [ ${#extra[@]} -gt 0 ]; then
        make -C "$bdir" -k -j"$jobs" "${extra[@]}" >"$bdir/build-$target-extra.log" 2>&1 ||
            log "some module code objects did not build: see $bdir/build-$target-extra.log"
        # Tweak 7: a data file a case opens from its working directory
        cp "$work/tree-${tag#rocm-}/catch/unit/module/not_a_module.txt" \
            "$bdir/catch_tests/unit/module/" 2>/dev/null || true
    fi
    [ -x "$bdir/catch_tests/unit/$a/$target" ]
}

if [ "$do_build" = 1 ]; then
    command -v "$hipcc" >/dev/null || die "hipcc not found"
    for t in "${need_tags[@]}"; do
        case "$t" in
        rocm-5.5.0) prepare_tree "$t" "$src55" ;;
        rocm-6.2.2) prepare_tree "$t" "$src62" ;;
        esac
        configure_tree "$t"
    done
    for a in "${area_list[@]}"; do build_area "$a" || log "area $a not built"; done
fi
# the files dropped from the copies (tweak 6), whichever run dropped them
for t in "${need_tags[@]}"; do cat "$work/not-built-${t#rocm-}.tsv" 2>/dev/null || true; done |
    awk -F'\t' -v areas=",$areas," 'index(areas, "," $1 ",")' >"$out/not-built.tsv"

# --- 2. the launch probe (LD_PRELOAD) ---------------------------------------
probe=$work/launch_probe.so
cc -std=c11 -O1 -shared -fPIC -D__HIP_PLATFORM_AMD__ -o "$probe" "$here/launch_probe.c" -ldl ||
    die "cannot build the launch probe"

# --- 3. run every case --------------------------------------------------------
start_worker() { # area -> sets wpid, wport
    local a=$1 pf=$out/run/$1.port
    rm -f "$pf"
    "$build/bin/hip-worker" --backend cpu --cpu-devices "$cpu_devices" --port 0 \
        --port-file "$pf" >>"$out/run/$a.worker.log" 2>&1 &
    wpid=$!
    local _
    for _ in $(seq 100); do
        [ -s "$pf" ] && break
        sleep 0.05
    done
    [ -s "$pf" ] || die "worker for $a did not start: see $out/run/$a.worker.log"
    wport=$(cat "$pf")
}

# Catch2 v2 reads a name argument as a test spec: escape its metacharacters.
spec_escape() { printf '%s' "$1" | sed -E 's/([][\\,"*])/\\\1/g'; }

run_area() { # area
    local a=$1 tag target bdir bin idx name rc t0 t1 logf wpid="" wport=""
    tag=$(area_tag "$a")
    target=$(area_target "$a")
    bdir=$work/build-${tag#rocm-}/catch_tests/unit/$a
    bin=$bdir/$target
    if [ ! -x "$bin" ]; then
        log "$a: no binary ($bin)"
        printf '%s\t%s\t-\t-\t-\t<area not built>\n' "$a" "$tag" >>"$out/run/$a.raw"
        return 0
    fi
    mkdir -p "$out/logs/$a"
    start_worker "$a"
    local env=(LD_LIBRARY_PATH="$build/lib" LD_PRELOAD="$probe" TF_WORKER_HOST=127.0.0.1
        TF_WORKER_PORT="$wport" TF_DEBUG=1)
    (cd "$bdir" && env "${env[@]}" "$bin" --list-test-names-only) 2>"$out/run/$a.list.err" |
        sed -e 's/\r$//' -e '/^$/d' >"$out/run/$a.cases" || true
    if [ -n "$filter" ]; then
        grep -E -- "$filter" "$out/run/$a.cases" >"$out/run/$a.cases.f" || true
        mv "$out/run/$a.cases.f" "$out/run/$a.cases"
    fi
    log "$a: $(wc -l <"$out/run/$a.cases") cases"
    idx=0
    while IFS= read -r name; do
        idx=$((idx + 1))
        logf=$out/logs/$a/$(printf '%04d' "$idx").log
        t0=$(date +%s.%N)
        set +e
        (cd "$bdir" && exec env "${env[@]}" TF_WORKER_PORT="$wport" \
            timeout -k 5 "$timeout_s" stdbuf -oL -eL "$bin" "$(spec_escape "$name")") \
            </dev/null >"$logf" 2>&1
        rc=$?
        set -e
        t1=$(date +%s.%N)
        # a case may print without end; keep the head of its log
        if [ "$(stat -c %s "$logf")" -gt 1048576 ]; then truncate -s 1M "$logf"; fi
        if ! kill -0 "$wpid" 2>/dev/null; then
            wait "$wpid" 2>/dev/null && true
            echo "hipwire-conformance: the worker died during this case (status $?)" >>"$logf"
            rc=worker
            start_worker "$a"
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$a" "$tag" "$idx" "$rc" \
            "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" "$name" >>"$out/run/$a.raw"
    done <"$out/run/$a.cases"
    kill "$wpid" 2>/dev/null || true
    wait "$wpid" 2>/dev/null || true
    log "$a: done"
}

mkdir -p "$out/run"
for a in "${area_list[@]}"; do rm -f "$out/run/$a.raw" "$out/run/$a.worker.log"; done
log "results in $out (timeout ${timeout_s}s, worker --cpu-devices $cpu_devices)"
running=0
for a in "${area_list[@]}"; do
    run_area "$a" &
    running=$((running + 1))
    if [ "$running" -ge "$parallel" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "hipwire build: $build"
    echo "hipwire commit: $(git -C "$build" rev-parse HEAD 2>/dev/null || git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "hipcc: $(command -v "$hipcc") ($("$hipcc" --version 2>/dev/null | grep -m1 -i 'HIP version' || true))"
    echo "areas: $areas"
    echo "timeout: ${timeout_s}s; worker: --backend cpu --cpu-devices $cpu_devices"
} >"$out/meta.txt"
python3 "$here/summarize.py" --timeout "$timeout_s" "$out"
log "summary: $out/summary.md"
