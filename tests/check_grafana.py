#!/usr/bin/env python3
"""The Grafana dashboard references only metrics hipwire exports: every
hipwire_worker_* / tf_gpu_usage_* name in its queries must be one the worker
(src/worker/worker_metrics.[ch]) or `hipwire metrics` (src/cli/cmd_metrics.c)
emits. usage: check_grafana.py SOURCE_DIR"""
import json, re, sys

src = sys.argv[1]
text = "".join(open(f"{src}/src/worker/{f}").read() for f in ("worker_metrics.c", "worker_metrics.h"))
known = set(re.findall(r"\bhipwire_worker_[a-z_]+", text))
hist = {n for n in known if n.endswith("_seconds")}
known |= {h + s for h in hist for s in ("_bucket", "_sum", "_count")}
cli = open(f"{src}/src/cli/cmd_metrics.c").read()
names = re.search(r"names\[\] = \{(.*?)\};", cli, re.S).group(1)
known |= {"tf_gpu_usage_" + n for n in re.findall(r'"(\w+)"', names)}

dash = json.load(open(f"{src}/deploy/grafana/hipwire.json"))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
exprs += [v.get("query", "") for v in dash["templating"]["list"] if isinstance(v.get("query"), str)]
used = {n for e in exprs for n in re.findall(r"\b(?:hipwire_worker|tf_gpu_usage)_[a-z_]+", e)}
unknown = sorted(used - known)
if not used or unknown:
    sys.exit(f"FAIL: dashboard uses unknown metrics {unknown} (known: {sorted(known)})")
print(f"check_grafana: {len(used)} metric names, all exported")
