#!/bin/sh
# The C sources follow .clang-format (docs/style.md): clang-format changes
# nothing in any of them. Generated files are not checked.
# usage: style_check.sh SOURCE_DIR
set -eu
cd "$1"
cf=$(command -v clang-format || command -v clang-format-14 || true)
if [ -z "$cf" ]; then
    echo "style_check: clang-format is not installed (apt-get install clang-format)" >&2
    exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'tests/*.c' 'tests/*.h' \
        'tools/*.c' 'tools/*.h' 'examples/*.c' | grep -v '/generated/')
else
    files=$(find src include tests tools examples -name '*.[ch]' | grep -v '/generated/')
fi
# shellcheck disable=SC2086
if ! "$cf" --dry-run --Werror $files; then
    echo "style_check: run: clang-format -i FILE (the lines above differ from .clang-format)" >&2
    exit 1
fi
echo "style_check: $(echo "$files" | wc -l) files follow .clang-format"
