#!/bin/sh
# libhiprtc.so.<major> exports exactly the functions hiprtc.h declares,
# unversioned (ROCm's libhiprtc has no version nodes), under the SONAME of
# the headers' major.   check_hiprtc_exports.sh LIB INCLUDE_DIR MAJOR
set -eu
lib=$1 inc=$2 major=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpp -P -D__HIP_PLATFORM_AMD__ -I"$inc" "$inc/hip/hiprtc.h" |
  grep -oE '\bhiprtc[A-Za-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:]]*($//' | sort -u >"$tmp/declared"
nm -D --defined-only --with-symbol-versions "$lib" | awk '$2 == "T" { print $3 }' | sort -u >"$tmp/exported"
if grep '@' "$tmp/exported"; then
  echo "FAIL: versioned exports above; ROCm's libhiprtc has none"
  exit 1
fi
if ! diff -u "$tmp/declared" "$tmp/exported"; then
  echo "FAIL: exports of $lib differ from the functions hiprtc.h declares (- declared, + exported)"
  exit 1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
if [ "$soname" != "libhiprtc.so.$major" ]; then
  echo "FAIL: SONAME $soname, expected libhiprtc.so.$major"
  exit 1
fi
echo "libhiprtc exports: $(wc -l <"$tmp/declared") functions as declared, SONAME $soname: ok"
