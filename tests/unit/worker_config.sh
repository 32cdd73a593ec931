#!/bin/sh
# hip-worker --config FILE: keys are the long option names, the command line
# overrides the file, bad keys name their line. Usage: worker_config.sh HIP_WORKER
set -u
worker=$1
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. The file alone starts the worker: port and port-file come from it.
cat >"$dir/ok.conf" <<CONF
# comment line
backend = cpu
port = 0           # a free port
port-file $dir/port
cpu-devices = 2
insecure = false
CONF
"$worker" --config "$dir/ok.conf" >"$dir/log" 2>&1 &
pid=$!
i=0
while [ ! -s "$dir/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$dir/port" ] || { cat "$dir/log"; fail "no port file from the config's port-file"; }
kill "$pid"; wait "$pid" 2>/dev/null; pid=

# 2. A value the file sets is overridden by the command line.
printf 'bind = 256.1.1.1\nbackend = cpu\nport = 0\nport-file = %s/port2\n' "$dir" >"$dir/bind.conf"
"$worker" --config "$dir/bind.conf" >"$dir/log2" 2>&1 && fail "unresolvable bind from the file accepted"
grep -q "256.1.1.1" "$dir/log2" || { cat "$dir/log2"; fail "the file's bind was not used"; }
"$worker" --config="$dir/bind.conf" --bind 127.0.0.1 >"$dir/log3" 2>&1 &
pid=$!
i=0
while [ ! -s "$dir/port2" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$dir/port2" ] || { cat "$dir/log3"; fail "--bind on the command line did not override the file"; }
kill "$pid"; wait "$pid" 2>/dev/null; pid=

# 3. Errors name the file and line.
printf 'backend = cpu\n\nno-such-option = 1\n' >"$dir/bad.conf"
"$worker" --config "$dir/bad.conf" >"$dir/log4" 2>&1 && fail "unknown key accepted"
grep -q "bad.conf:3: unknown key 'no-such-option'" "$dir/log4" || { cat "$dir/log4"; fail "unknown key message"; }
printf 'port\n' >"$dir/noval.conf"
"$worker" --config "$dir/noval.conf" >"$dir/log5" 2>&1 && fail "key without value accepted"
grep -q "noval.conf:1: 'port' needs a value" "$dir/log5" || { cat "$dir/log5"; fail "missing value message"; }
printf 'insecure = yes\n' >"$dir/flag.conf"
"$worker" --config "$dir/flag.conf" >"$dir/log6" 2>&1 && fail "flag with a value accepted"
grep -q "flag.conf:1: 'insecure' takes no value" "$dir/log6" || { cat "$dir/log6"; fail "flag value message"; }
"$worker" --config "$dir/missing.conf" >"$dir/log7" 2>&1 && fail "missing file accepted"
grep -q "missing.conf" "$dir/log7" || fail "missing file not named"
# 4. The shipped example config parses (every key in it is an option).
if [ $# -ge 2 ]; then
  "$worker" --config "$2" --port 0 --port-file "$dir/port3" --backend cpu >"$dir/log8" 2>&1 &
  pid=$!
  i=0
  while [ ! -s "$dir/port3" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  [ -s "$dir/port3" ] || { cat "$dir/log8"; fail "the shipped $2 does not start the worker"; }
fi
echo "worker_config: ok"
