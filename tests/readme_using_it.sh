#!/bin/sh
# readme_using_it: run README.md's "Using it" commands exactly as written,
# server and client each in their own directory (the token and certificate
# copied across as a user would scp them): `gpu-server` is this machine's
# host name, `./my_hip_program` the demo's vector_add. Skips (77) when the
# host name does not resolve or port 18515 is taken.
# usage: readme_using_it.sh README BUILD_DIR VECTOR_ADD KERNELS
set -eu
readme=$1 build=$2 vadd=$3 kernels=$4
host=$(hostname)
getent hosts "$host" > /dev/null 2>&1 || { echo "SKIP: host name $host does not resolve"; exit 77; }
if python3 -c 'import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0",18515))' 2>/dev/null; then :; else
    echo "SKIP: port 18515 is taken"; exit 77
fi
tmp=$(mktemp -d)
wpid=
cleanup() { [ -n "$wpid" ] && kill "$wpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# The section's indented code lines, continuations joined, blank-line
# separated blocks: server, client, TLS server, TLS client.
python3 - "$readme" "$tmp" <<'PY'
import sys
text = open(sys.argv[1]).read()
sec = text.split("\n## Using it\n", 1)[1].split("\n## ", 1)[0]
blocks, cur, prev_code = [], [], False
for line in sec.split("\n"):
    code = line.startswith("    ")
    if code and not prev_code:
        cur = []
        blocks.append(cur)
    if code:
        cur.append(line[4:])
    prev_code = code
if len(blocks) != 4:
    sys.exit("FAIL: expected 4 command blocks in 'Using it', found %d" % len(blocks))
for i, b in enumerate(blocks):
    open("%s/block%d.sh" % (sys.argv[2], i), "w").write("\n".join(b).replace("\\\n", " ") + "\n")
PY

mkdir "$tmp/server" "$tmp/client"
ln -s "$build" "$tmp/server/build"
ln -s "$build" "$tmp/client/build"
subst() { sed -e "s/gpu-server/$host/g" -e "s|\./my_hip_program|'$vadd' '$kernels'|g" "$1"; }

start_server() { # block file
    subst "$1" | grep -v '^build/bin/hip-worker' > "$tmp/prep.sh"
    subst "$1" | grep '^build/bin/hip-worker' > "$tmp/worker.sh"
    (cd "$tmp/server" && sh -e "$tmp/prep.sh") > "$tmp/prep.log" 2>&1 ||
        { cat "$tmp/prep.log"; echo "FAIL: the server's preparation failed"; exit 1; }
    # exec: the worker is the process stopped below, not a shell around it
    (cd "$tmp/server" && exec sh -c "exec $(cat "$tmp/worker.sh")") > "$tmp/worker.log" 2>&1 &
    wpid=$!
    for i in $(seq 100); do
        grep -q 'info: listening on' "$tmp/worker.log" 2>/dev/null && return 0
        sleep 0.1
    done
    cat "$tmp/worker.log"; echo "FAIL: the worker did not start"; exit 1
}
stop_server() { kill "$wpid"; wait "$wpid" || true; wpid=; }
run_client() { # block file
    subst "$1" > "$tmp/client.sh"
    if ! (cd "$tmp/client" && sh -e "$tmp/client.sh") > "$tmp/client.log" 2>&1; then
        cat "$tmp/client.sh" "$tmp/client.log" "$tmp/worker.log"
        echo "FAIL: the client commands failed"; exit 1
    fi
}

start_server "$tmp/block0.sh"
grep -q 'listening on 0.0.0.0:18515' "$tmp/worker.log"
cp "$tmp/server/worker.token" "$tmp/client/"          # the scp
run_client "$tmp/block1.sh"
# without the token the same client is refused
if (cd "$tmp/client" && TF_WORKER_HOST=$host LD_LIBRARY_PATH=$build/lib "$vadd" "$kernels") \
        > "$tmp/notoken.log" 2>&1; then
    echo "FAIL: a client without the token was served"; exit 1
fi
grep -q 'requires authentication' "$tmp/notoken.log"
stop_server

start_server "$tmp/block2.sh"
grep -q 'TLS required' "$tmp/worker.log"
cp "$tmp/server/worker.token" "$tmp/server/worker.crt" "$tmp/client/"
run_client "$tmp/block3.sh"
stop_server
echo "readme_using_it: plain and TLS, as written: ok"
