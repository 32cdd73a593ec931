#!/bin/sh
# The proxy DLL exports exactly the names of the generated export table
# (src/client/generated/hip<major>/symbols.txt), as the Linux library does,
# and the hiprtc DLL every hiprtc* name of it.
#   check_dll_exports.sh OBJDUMP HIP_DLL HIPRTC_DLL SYMBOLS_TXT
set -eu
objdump=$1 dll=$2 rtc=$3 symbols=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# objdump -p: the "[Ordinal/Name Pointer] Table" lines are "[ n] name".
exports() {
  "$objdump" -p "$1" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' |
    sed -n 's/^\t\[ *[0-9]*\] \(.*\)$/\1/p' | sort
}
exports "$dll" > "$tmp/dll"
exports "$rtc" > "$tmp/rtc"
grep -v '^#' "$symbols" | awk '{print $1}' | sort > "$tmp/want"
grep '^hiprtc' "$tmp/want" > "$tmp/want_rtc"
status=0
if ! cmp -s "$tmp/dll" "$tmp/want"; then
  echo "$(basename "$dll"): exports differ from $symbols (< DLL only, > table only):"
  diff "$tmp/dll" "$tmp/want" | grep '^[<>]' | head -20
  status=1
fi
missing=$(comm -13 "$tmp/rtc" "$tmp/want_rtc")
if [ -n "$missing" ]; then
  echo "$(basename "$rtc") lacks: $missing"
  status=1
fi
[ "$(wc -l < "$tmp/dll")" -gt 100 ] || { echo "too few exports read from $dll"; status=1; }
[ $status -eq 0 ] && echo "$(basename "$dll"): $(wc -l < "$tmp/dll") exports as in the table; $(basename "$rtc"): $(wc -l < "$tmp/rtc") hiprtc exports: ok"
exit $status
