#!/usr/bin/env bash
# A certificate out of its dates is told as such, not as one "not signed by the CA": the
# server's certificate expired (seen by this client's verification), and this pod's own
# certificate expired (refused by the server). Both are signed by the right CA.
source "$(dirname "$0")/lib.sh"
P=$WORK/pki
make_certs "$P"
# expired NAME: a certificate signed by the test CA whose notAfter is a day before its notBefore.
expired() {
  cp "$P/pod.ext" "$P/$1.ext"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$1" \
    -keyout "$P/$1.key" -out "$P/$1.csr" 2>/dev/null
  openssl x509 -req -in "$P/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days -1 \
    -extfile "$P/$1.ext" -out "$P/$1.crt" 2>/dev/null
}
expired old-server
expired old-pod

# The server's certificate expired.
RAY_USE_TLS=1 RAY_TLS_SERVER_CERT=$P/old-server.crt RAY_TLS_SERVER_KEY=$P/old-server.key RAY_TLS_CA_CERT=$P/ca.crt \
  start_gcs old --tls-from-env
run server env RAY_USE_TLS=1 RAY_TLS_SERVER_CERT="$P/pod.crt" RAY_TLS_SERVER_KEY="$P/pod.key" \
  RAY_TLS_CA_CERT="$P/ca.crt" "$RAYLAUNCH_BIN" status --address "127.0.0.1:$GCS_PORT"
expect_rc 69 "an expired server certificate"
expect_in server.err "the server's certificate (or one of its chain) is expired (certificate has expired)"
expect_not_in server.err "must be signed by that CA"

# This pod's certificate expired: the server refuses it.
RAY_USE_TLS=1 RAY_TLS_SERVER_CERT=$P/pod.crt RAY_TLS_SERVER_KEY=$P/pod.key RAY_TLS_CA_CERT=$P/ca.crt \
  start_gcs good --tls-from-env
run client env RAY_USE_TLS=1 RAY_TLS_SERVER_CERT="$P/old-pod.crt" RAY_TLS_SERVER_KEY="$P/old-pod.key" \
  RAY_TLS_CA_CERT="$P/ca.crt" "$RAYLAUNCH_BIN" status --address "127.0.0.1:$GCS_PORT"
expect_rc 69 "an expired client certificate"
expect_in client.err "the server refused this pod's certificate RAY_TLS_SERVER_CERT=$P/old-pod.crt: it expired on "
expect_not_in client.err "must be signed by the CA"
echo PASS
