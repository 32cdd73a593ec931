#!/usr/bin/env bash
# The deploy stage of scripts/test.sh (docs/deploy.md): the Debian packages
# on a fresh Debian 12 root, the container images, the Helm chart. Each part
# skips (exit 77, reason printed) where its tools cannot run; any failure
# fails the stage. Usage: tests/deploy/run.sh [WORK_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(realpath -m "${1:-$here/../../build-deploy}")
failed=0
for t in debs images chart; do
    start=$(date +%s)
    bash "$here/$t.sh" "$work"
    rc=$?
    took=$(($(date +%s) - start))
    case $rc in
    0) echo "---- deploy $t: passed (${took}s)" ;;
    77) echo "---- deploy $t: skipped (${took}s)" ;;
    *) echo "---- deploy $t: FAILED, exit $rc (${took}s)"; failed=1 ;;
    esac
done
exit $failed
