#!/bin/sh
# An MSVC-format import library (llvm-dlltool's, from the DLL's .def): every
# member is a short import member (what MSVC's link.exe reads; GNU ld's
# import libraries have full objects instead) naming DLL, and its __imp_
# symbols are the export table's names: all of them for the HIP DLL, the
# hiprtc* ones for the hiprtc DLL.
#   check_msvc_implib.sh NM OBJDUMP AR LIB DLL SYMBOLS_TXT all|hiprtc
set -eu
nm=$1 objdump=$2 ar=$3 lib=$4 dll=$5 symbols=$6 which=$7
name=$(basename "$lib")
[ -f "$lib" ] || { echo "$name: missing (is llvm-dlltool installed? apt-get install llvm-15)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$symbols" | awk '{print $1}' | sort > "$tmp/want"
[ "$which" = hiprtc ] && { grep '^hiprtc' "$tmp/want" > "$tmp/w" || true; mv "$tmp/w" "$tmp/want"; }
"$nm" "$lib" 2>/dev/null | sed -n 's/^[0-9a-f ]* T __imp_\(.*\)$/\1/p' | sort -u > "$tmp/imp"
status=0
short=$("$objdump" -a "$lib" | grep -c 'file format COFF-import-file' || true)
total=$("$ar" t "$lib" | wc -l)
members=$("$ar" t "$lib" | sort -u)
if [ "$members" != "$dll" ]; then
  echo "$name: members name $members, not $dll"
  status=1
fi
# Besides one short member per export: the import descriptor, the null
# descriptor and the null thunk (3 small objects).
if [ "$short" -ne "$(wc -l < "$tmp/imp")" ] || [ "$total" -ne $((short + 3)) ]; then
  echo "$name: $short short import members, $total members, $(wc -l < "$tmp/imp") imports"
  status=1
fi
if [ "$which" = all ]; then
  if ! cmp -s "$tmp/imp" "$tmp/want"; then
    echo "$name: imports differ from $symbols (< library only, > table only):"
    diff "$tmp/imp" "$tmp/want" | grep '^[<>]' | head -20
    status=1
  fi
else
  missing=$(comm -13 "$tmp/imp" "$tmp/want")
  [ -z "$missing" ] || { echo "$name lacks: $missing"; status=1; }
fi
[ "$(wc -l < "$tmp/want")" -gt 0 ] || { echo "no names read from $symbols"; status=1; }
[ $status -eq 0 ] && echo "$name: $short short import members for $dll, as in the table: ok"
exit $status
