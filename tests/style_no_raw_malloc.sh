#!/bin/sh
# Every heap allocation in src/ goes through the allocator seam
# (src/common/hw_alloc.h, docs/style.md) so that HIPWIRE_FAIL_ALLOC can make it
# fail. Fails when a raw malloc, calloc, realloc, strdup, strndup or aligned
# allocation, or an
# unlisted libc call that allocates for its caller, appears outside the
# allow-list below.
# usage: style_no_raw_malloc.sh SOURCE_DIR
set -eu
cd "$1"
# file:call:reason. Only the seam itself calls libc's allocator; the others are
# libc calls that allocate internally, where the seam cannot reach.
allow='
src/common/hw_alloc.c:malloc:the seam itself
src/common/hw_alloc.c:calloc:the seam itself
src/common/hw_alloc.c:realloc:the seam itself
src/common/hw_os_posix.c:posix_memalign:hw_os_aligned_alloc, which asks the seam first
src/common/hw_os_win32.c:_aligned_malloc:hw_os_aligned_alloc, which asks the seam first
src/worker/worker_metrics.c:open_memstream:builds the metrics text; a NULL stream is a 500
src/cli/k8s_api.c:open_memstream:builds the node patch; a NULL stream is an error
src/client/fatbin_source.c:asprintf:for a diagnostic note; failure prints the plain message
'
raw='(^|[^A-Za-z0-9_.>])(malloc|calloc|realloc|reallocarray|strdup|strndup|asprintf|vasprintf|open_memstream|posix_memalign|aligned_alloc|memalign|_aligned_malloc)[[:space:]]*\('
found=$(grep -rnE "$raw" src --include='*.c' --include='*.h' | grep -v '/generated/' || true)
bad=$(printf '%s\n' "$found" | while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    file=${hit%%:*}
    for call in $(printf '%s\n' "$hit" | grep -oE "$raw" | sed -E 's/^[^a-z_]*//; s/[[:space:](]*$//'); do
        if ! printf '%s\n' "$allow" | grep -q "^$file:$call:"; then
            printf '%s\n' "$hit"
            break
        fi
    done
done)
if [ -n "$bad" ]; then
    printf '%s\n' "$bad" >&2
    echo "style_no_raw_malloc: use hw_malloc/hw_calloc/hw_realloc/hw_strdup (src/common/hw_alloc.h) above," >&2
    echo "or add the file to the allow-list in tests/style_no_raw_malloc.sh with the reason it must stay raw" >&2
    exit 1
fi
echo "style_no_raw_malloc: no raw allocation in src/ outside the allow-list"
