#!/bin/sh
# `hipwire node labels`: golden JSON for the MI300X CPX and MI210 hosts, every
# key and value checked against the Kubernetes rules (by regex here, not by
# the code under test), and the exact kubectl command for --kubectl/--apply.
. "$NODE_TESTS/lib.sh"
# Outside a pod: --apply runs kubectl (labels_api.sh tests the in-cluster path).
unset KUBERNETES_SERVICE_HOST
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check_rules() { # FILE of key=value lines
    while IFS= read -r kv; do
        key=${kv%%=*} value=${kv#*=}
        name=${key#*/}
        [ ${#value} -le 63 ] || fail "value longer than 63: $kv"
        printf '%s\n' "$value" | grep -Eq '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$' ||
            fail "invalid label value: $kv"
        [ ${#name} -le 63 ] || fail "key name longer than 63: $kv"
        printf '%s\n' "$name" | grep -Eq '^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$' ||
            fail "invalid key name: $kv"
        case "$key" in */*)
            printf '%s\n' "${key%%/*}" | grep -Eq '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$' ||
                fail "invalid key prefix: $kv" ;;
        esac
    done < "$1"
}

for fixture in mi300x-cpx mi210; do
    make_root $fixture "$tmp/$fixture"
    HIPWIRE_HOST_ROOT="$tmp/$fixture" "$HIPWIRE" node labels --json --node gpu-node-1 > "$tmp/$fixture.json" ||
        fail "labels --json failed on $fixture"
    diff -u "$NODE_TESTS/golden/labels-$fixture.json" "$tmp/$fixture.json" || fail "labels differ from golden ($fixture)"
    HIPWIRE_HOST_ROOT="$tmp/$fixture" "$HIPWIRE" node labels > "$tmp/$fixture.kv" || fail "labels failed"
    [ "$(wc -l < "$tmp/$fixture.kv")" -ge 10 ] || fail "too few labels on $fixture"
    check_rules "$tmp/$fixture.kv"
done

# A product name the labeller would have to clean up, and mixed GPUs: the
# per-value form amd.com/gpu.<property>.<value>=<count>.
r="$tmp/mi210"
printf 'AMD Instinct (TM) MI210 / PCIe  card with a very long marketing name indeed, really\n' \
    > "$r/sys/bus/pci/devices/0000:63:00.0/product_name"
HIPWIRE_HOST_ROOT="$r" "$HIPWIRE" node labels > "$tmp/mixed.kv" || fail "labels failed on mixed names"
check_rules "$tmp/mixed.kv"
assert_grep 'amd.com/gpu.product-name.AMD_Instinct_MI210=7' "$tmp/mixed.kv"
assert_grep 'amd.com/gpu.product-name.AMD_Instinct_TM_MI210___PCIe__card_with_a_very=1' "$tmp/mixed.kv"
assert_no_grep 'amd.com/gpu.product-name=' "$tmp/mixed.kv"

# kubectl: printed, then applied through a recording stub
r="$tmp/mi300x-cpx"
HIPWIRE_HOST_ROOT="$r" "$HIPWIRE" node labels --kubectl --node gpu-node-1 > "$tmp/kubectl" || fail "--kubectl failed"
printf 'kubectl label node gpu-node-1 --overwrite' > "$tmp/want"
while IFS= read -r kv; do printf ' %s' "$kv" >> "$tmp/want"; done < "$tmp/mi300x-cpx.kv"
printf '\n' >> "$tmp/want"
cmp "$tmp/want" "$tmp/kubectl" || { diff "$tmp/want" "$tmp/kubectl"; fail "--kubectl command differs"; }
make_stubs "$tmp/bin" "$tmp/log" kubectl
HIPWIRE_NODE_BIN_DIR="$tmp/bin" HIPWIRE_HOST_ROOT="$r" "$HIPWIRE" node labels --apply --node gpu-node-1 > /dev/null ||
    fail "--apply failed"
cmp "$tmp/want" "$tmp/log" || fail "--apply ran: $(cat "$tmp/log")"

# no kubectl, bad node name, no GPU: clear errors
rm "$tmp/bin/kubectl"
rc=0; HIPWIRE_NODE_BIN_DIR="$tmp/bin" HIPWIRE_HOST_ROOT="$r" "$HIPWIRE" node labels --apply --node n1 2> "$tmp/err" || rc=$?
[ $rc = 1 ] || fail "--apply without kubectl exited $rc"
assert_grep 'kubectl not found' "$tmp/err"
rc=0; HIPWIRE_HOST_ROOT="$r" "$HIPWIRE" node labels --kubectl --node 'Bad Name' 2> "$tmp/err" || rc=$?
[ $rc = 2 ] || fail "bad node name exited $rc"
make_root nvidia-only "$tmp/nv"
rc=0; HIPWIRE_HOST_ROOT="$tmp/nv" "$HIPWIRE" node labels 2> "$tmp/err" || rc=$?
[ $rc = 1 ] || fail "labels on an NVIDIA node exited $rc"
echo "ok: node labels"
