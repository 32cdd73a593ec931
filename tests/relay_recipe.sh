#!/bin/sh
# relay_recipe: run docs/backend-hip.md's relay recipe as written on this
# host: pool node, gateway and client each in their own directory (tokens
# copied across), `pool-node` and `gateway` = this host's name,
# `./my_hip_program` = the demo's vector_add. Skips (77) when the host name
# does not resolve or port 18515 or 18600 is taken.
# usage: relay_recipe.sh DOC BUILD_DIR VECTOR_ADD KERNELS
set -eu
doc=$1 build=$2 vadd=$3 kernels=$4
host=$(hostname)
getent hosts "$host" > /dev/null 2>&1 || { echo "SKIP: host name $host does not resolve"; exit 77; }
for port in 18515 18600; do
    python3 -c "import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', $port))" 2>/dev/null ||
        { echo "SKIP: port $port is taken"; exit 77; }
done
tmp=$(mktemp -d)
pids=
# each worker runs under the shell that sets its variables: stop the worker
# (the shell's child) and then the shell
cleanup() {
    for p in $pids; do pkill -TERM -P "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT

python3 - "$doc" "$tmp" <<'PY'
import sys
text = open(sys.argv[1]).read()
sec = text.split("\n## The relay\n", 1)[1].split("\n## ", 1)[0]
blocks, cur, prev = [], [], False
for line in sec.split("\n"):
    code = line.startswith("    ")
    if code and not prev:
        cur = []
        blocks.append(cur)
    if code:
        cur.append(line[4:])
    prev = code
if len(blocks) != 3:
    sys.exit("FAIL: expected 3 command blocks in 'The relay', found %d" % len(blocks))
for i, b in enumerate(blocks):
    open("%s/block%d.sh" % (sys.argv[2], i), "w").write("\n".join(b).replace("\\\n", " ") + "\n")
PY

for d in pool gateway client; do mkdir "$tmp/$d"; ln -s "$build" "$tmp/$d/build"; done
subst() {
    sed -e "s/pool-node/$host/g" -e "s/gateway\([^.]\)/$host\1/g" -e "s/=gateway$/=$host/" \
        -e "s|\./my_hip_program|'$vadd' '$kernels'|g" "$1"
}
# The recipe's token files keep their names; only host names change.
fix_tokens() { sed -e "s/$host\.token/gateway.token/g"; }

start_worker() { # dir block log
    subst "$2" | fix_tokens > "$tmp/$1.all.sh"
    grep -v 'build/bin/hip-worker' "$tmp/$1.all.sh" > "$tmp/$1.prep.sh" || true
    grep 'build/bin/hip-worker' "$tmp/$1.all.sh" > "$tmp/$1.run.sh"
    (cd "$tmp/$1" && sh -e "$tmp/$1.prep.sh")
    (cd "$tmp/$1" && exec sh "$tmp/$1.run.sh") > "$tmp/$1.log" 2>&1 &
    pids="$pids $!"
    for i in $(seq 100); do
        grep -q 'info: listening on' "$tmp/$1.log" 2>/dev/null && return 0
        sleep 0.1
    done
    cat "$tmp/$1.log"; echo "FAIL: the $1 worker did not start"; exit 1
}

start_worker pool "$tmp/block0.sh"
cp "$tmp/pool/pool.token" "$tmp/gateway/"
start_worker gateway "$tmp/block1.sh"
grep -q 'listening on 0.0.0.0:18600 (backend hip.*token required' "$tmp/gateway.log" ||
    { cat "$tmp/gateway.log"; echo "FAIL: the gateway is not a hip-backend worker on 18600"; exit 1; }
cp "$tmp/gateway/gateway.token" "$tmp/client/"
subst "$tmp/block2.sh" | fix_tokens > "$tmp/client.sh"
if ! (cd "$tmp/client" && sh -e "$tmp/client.sh") > "$tmp/client.log" 2>&1; then
    cat "$tmp/client.sh" "$tmp/client.log" "$tmp/gateway.log" "$tmp/pool.log"
    echo "FAIL: the client through the gateway failed"; exit 1
fi
# the work reached the pool node through the gateway
grep -q 'session [0-9a-f]*: client pid .*, backend cpu' "$tmp/pool.log" ||
    { cat "$tmp/pool.log"; echo "FAIL: no session on the pool node"; exit 1; }
echo "relay_recipe: client -> gateway (hip backend) -> pool node, as written: ok"
