#!/bin/sh
set -u
B=build-gpu
mkdir -p /tmp/o7
TF_TRANSPORT=shm SKIP_TESTS=1 JOBS=16 timeout 420 sh tools/bench/gpu_session.sh $B /tmp/o7/sess-shm \
  -DCMAKE_BUILD_TYPE=Release -DHIP_ROOT=$PWD/hipinc >/tmp/o7/sess-shm.log 2>&1; echo "session shm rc=$?"
rm -f /tmp/o7/sess-shm/build.log /tmp/o7/sess-shm/configure.log
cd /tmp/o7 && tar czf "$OUT/o7.tgz" .
