#!/bin/sh
# `hipwire node labels --apply` in a pod: one PATCH of the Node through the
# API server with the service account's token and CA, against a fake API
# server over TLS (fake_k8s_api.py checks method, path, auth, content type,
# body). Also: a 403 is reported with the RBAC hint; a server whose
# certificate the CA did not sign is refused. Needs python3 and openssl.
. "$NODE_TESTS/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: needs python3"; exit 77; }
command -v openssl >/dev/null 2>&1 || { echo "SKIP: needs openssl"; exit 77; }
tmp=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT

# A test CA and a server certificate for 127.0.0.1 signed by it; a second CA
# that signed nothing.
cd "$tmp"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca 2>/dev/null ||
    fail "openssl CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout srv.key -out srv.csr -subj /CN=kubernetes 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:kubernetes.default.svc\n' > san.ext
openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2 \
    -extfile san.ext 2>/dev/null || fail "openssl server cert"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout other.key -out other.crt -days 2 -subj /CN=other 2>/dev/null
mkdir sa other-sa
cp ca.crt sa/ca.crt
cp other.crt other-sa/ca.crt
printf 'eyJhbGciOiJSUzI1NiJ9.test-token\n' > sa/token
cp sa/token other-sa/token

make_root mi300x-cpx "$tmp/root"
HIPWIRE_HOST_ROOT="$tmp/root" "$HIPWIRE" node labels --json --node gpu-node-1 > labels.json || fail "labels --json"
python3 -c 'import json,sys; json.dump(json.load(open("labels.json"))["labels"], open("want.json","w"))'

serve() { # STATUS
    rm -f port verdict
    python3 "$NODE_TESTS/fake_k8s_api.py" --cert srv.crt --key srv.key --port-file port --verdict verdict \
        --node gpu-node-1 --token eyJhbGciOiJSUzI1NiJ9.test-token --labels want.json --status "$1" &
    srv=$!
    i=0
    while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ -s port ] || fail "fake API server did not start"
}
apply() { # SA_DIR
    KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$(cat port) HIPWIRE_K8S_SA_DIR="$1" \
        HIPWIRE_HOST_ROOT="$tmp/root" HIPWIRE_NODE_BIN_DIR="$tmp/nobin" \
        "$HIPWIRE" node labels --apply --node gpu-node-1 > out 2> err
}

# 1. The PATCH the API server expects; no kubectl anywhere (HIPWIRE_NODE_BIN_DIR empty).
mkdir nobin
serve 200
apply sa || { cat err; fail "--apply in a pod failed"; }
wait $srv || true; srv=
[ "$(cat verdict)" = ok ] || fail "request: $(cat verdict)"
n=$(python3 -c 'import json; print(len(json.load(open("want.json"))))')
assert_grep "node gpu-node-1: $n labels set through https://127.0.0.1:" out

# 2. Forbidden: the API server's message and the RBAC hint, exit 1.
serve 403
apply sa && fail "--apply succeeded on HTTP 403"
wait $srv || true; srv=
assert_grep 'HTTP 403: nodes "gpu-node-1" is forbidden' err
assert_grep "ClusterRole" err

# 3. A CA that did not sign the server's certificate: refused before any request.
serve 200
apply other-sa && fail "--apply trusted a server the CA did not sign"
kill $srv 2>/dev/null || true  # it may have ended already (set -e)
wait $srv 2>/dev/null || true; srv=
[ ! -s verdict ] || fail "a request was sent to an unverified server"
grep -qi "certificate\|SSL" err || fail "no TLS error: $(cat err)"

# 4. No token: a clear error, no request.
serve 200
mkdir empty-sa
cp ca.crt empty-sa/ca.crt
apply empty-sa && fail "--apply without a token"
kill $srv 2>/dev/null || true  # it may have ended already (set -e)
wait $srv 2>/dev/null || true; srv=
assert_grep "service-account token" err
echo "labels_api: ok"
