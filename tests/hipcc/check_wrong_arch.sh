#!/bin/sh
# check_wrong_arch.sh COMMAND... - runs the hipcc-built fatbin_basic program
# (two translation units, gfx908 + gfx90a) against a CPU worker and checks
# the wrong-architecture message: once per fat binary, naming the targets,
# the device, and hipwire-cc; and the program's own checks passing.
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
[ $status -eq 0 ] || { echo "check_wrong_arch: program exited $status"; exit 1; }
msg="cannot run: the program carries device code only for gfx908, gfx90a (AMD code objects, as hipcc builds them), and device 0 is 'hipwire CPU device' (hipwire-cpu), which cannot run them. Rebuild the program with hipwire-cc"
n=$(printf '%s\n' "$out" | grep -c -F "$msg")
[ "$n" = 2 ] || { echo "check_wrong_arch: message on $n line(s), expected 2 (one per fat binary)"; exit 1; }
printf '%s\n' "$out" | grep -q "fatbin basic: ok on 'hipwire CPU device' (direct)" ||
    { echo "check_wrong_arch: the program's checks did not pass"; exit 1; }
echo "check_wrong_arch: ok"
