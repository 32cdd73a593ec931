#!/bin/sh
# hipwire metrics against the MI300X fixture: TensorFusion's names, both
# formats, the fixture's readings, and no PCIe series (unknown there).
# usage: cli_metrics.sh HIPWIRE_BIN FIXTURES_DIR
set -eu
bin=$1 fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$fixtures/make-host-root.sh" mi300x-cpx "$tmp/root"
HIPWIRE_HOST_ROOT="$tmp/root" "$bin" metrics --node n1 --pool "p 1" > "$tmp/prom"
HIPWIRE_HOST_ROOT="$tmp/root" "$bin" metrics --format influx --node n1 --pool "p 1" > "$tmp/influx"
HIPWIRE_HOST_ROOT="$tmp/root" "$bin" devices --json > "$tmp/devices.json"
if "$bin" metrics --format json > /dev/null 2>&1; then echo "FAIL: --format json accepted"; exit 1; fi
"$bin" metrics --help > /dev/null
python3 - "$tmp/prom" "$tmp/influx" "$tmp/devices.json" <<'PY'
import json, re, sys
prom = open(sys.argv[1]).read().splitlines()
influx = open(sys.argv[2]).read().splitlines()
gpus = json.load(open(sys.argv[3]))["gpus"]
def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
samples = {}
for l in prom:
    if l.startswith("#"):
        continue
    m = re.fullmatch(r'(tf_gpu_usage_\w+)\{uuid="([^"]+)",node="n1",pool="p 1"\} (\S+)', l)
    check(m is not None, "prometheus sample syntax: " + l)
    samples[(m.group(1), m.group(2))] = float(m.group(3))
u1 = gpus[1]["uuid"]
check(samples[("tf_gpu_usage_power_usage", u1)] == 310, "GPU 1 power 310 W")
check(samples[("tf_gpu_usage_temperature", u1)] == 41, "GPU 1 temperature (junction) 41 C")
check(samples[("tf_gpu_usage_memory_bytes", u1)] == 2 << 30, "GPU 1 VRAM used 2 GiB")
check(samples[("tf_gpu_usage_compute_percentage", u1)] == 1, "GPU 1 busy 1 %")
check(not any(k[0] in ("tf_gpu_usage_rx", "tf_gpu_usage_tx") for k in samples), "no PCIe: unknown")
check(len({k[1] for k in samples}) == 8, "8 GPUs")
check(len(influx) == 8, "8 influx lines")
for l in influx:
    m = re.fullmatch(r'tf_gpu_usage,node=n1,pool=p\\ 1,uuid=(\S+) (\S+) (\d+)', l)
    check(m is not None, "line protocol syntax: " + l)
    fields = dict(kv.split("=") for kv in m.group(2).split(","))
    check(fields["memory_bytes"].endswith("i"), "memory_bytes is an integer field")
    check("rx" not in fields and "tx" not in fields, "no PCIe fields")
    if m.group(1) == u1:
        check(float(fields["power_usage"]) == 310, "influx power")
PY
echo "cli_metrics: ok"
