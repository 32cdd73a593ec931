#!/bin/sh
# Throwaway secrets for the trust tests, made fresh at test time (nothing
# secret is committed): two tokens, a CA, a worker certificate for
# localhost/127.0.0.1 signed by it, a certificate for another name signed by
# it, and an unrelated CA.
#   make_fixtures.sh DIR
set -eu
dir=$1
mkdir -p "$dir"
cd "$dir"
umask 077
openssl rand -hex 32 > token
openssl rand -hex 32 > wrong-token
quiet() { "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; "$@"; exit 1; }; }
ca() { # name
  quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=hipwire test $1" \
    -keyout "$1.key" -out "$1.pem"
}
cert() { # name ca san
  quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$1.key" -out "$1.csr"
  printf 'subjectAltName=%s\n' "$3" > "$1.ext"
  quiet openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial \
    -days 2 -extfile "$1.ext" -out "$1.pem"
}
ca ca
ca other-ca
cert worker ca "DNS:localhost,IP:127.0.0.1"
cert wrong-name ca "DNS:wrong.example"
echo "trust fixtures in $dir"
