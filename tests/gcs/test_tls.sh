#!/usr/bin/env bash
# Ray's TLS (RAY_USE_TLS=1: mutual TLS on every Ray gRPC server) with certificates made here by
# openssl: the fake GCS and the fake raylet serve mTLS; wait, status and every probe succeed with
# the right CA and fail at once, with one line that says what to fix, with a wrong CA, a refused
# client certificate, a name missing from the server's certificate, plaintext against TLS and TLS
# against plaintext. Bad TLS settings are one exit-64 line naming the setting; no key is printed.
source "$(dirname "$0")/lib.sh"
P=$WORK/pki
make_certs "$P"
# tls CERT CA CMD...: CMD (a program or a function of lib.sh) with Ray's TLS variables for CERT and CA.
tls() {
  local -x RAY_USE_TLS=1 RAY_TLS_SERVER_CERT="$P/$1.crt" RAY_TLS_SERVER_KEY="$P/$1.key" RAY_TLS_CA_CERT="$P/$2.crt"
  shift 2
  "$@"
}
export HOSTNAME=training-1 RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1

export RAY_USE_TLS=1 RAY_TLS_SERVER_CERT=$P/pod.crt RAY_TLS_SERVER_KEY=$P/pod.key RAY_TLS_CA_CERT=$P/ca.crt
start_gcs tls --tls-from-env
start_raylet --tls-from-env
unset RAY_USE_TLS RAY_TLS_SERVER_CERT RAY_TLS_SERVER_KEY RAY_TLS_CA_CERT
grep -q "mutual TLS" "$WORK/gcs-tls.log" || fail "the fake GCS does not serve TLS"
ctl add training-0 --head >/dev/null
ctl add training-1 >/dev/null
addr="127.0.0.1:$GCS_PORT"
export RAYLAUNCH_RAY_PORT=$GCS_PORT RAYLAUNCH_NODE_MANAGER_PORT=$RAYLET_PORT

# --- the right CA: every command works, from the variables or from the flags.
tls pod ca run status "$RAYLAUNCH_BIN" status --address "$addr"
expect_rc 0 "status over TLS"
expect_in status.out "2 alive"
tls pod ca run wait "$RAYLAUNCH_BIN" wait --address "$addr" --nodes 2 --timeout 10s
expect_rc 0 "wait over TLS"
tls pod ca run head "$RAYLAUNCH_BIN" wait head --address "$addr" --timeout 10s
expect_rc 0 "wait head over TLS"
tls pod ca run ready "$RAYLAUNCH_BIN" probe readiness
expect_rc 0 "worker readiness over TLS"
expect_in ready.out "training-1 is ALIVE"
tls pod ca run live "$RAYLAUNCH_BIN" probe liveness
expect_rc 0 "worker liveness over TLS (the raylet)"
expect_in live.out "is SERVING"
HOSTNAME=training-0 tls pod ca run hlive "$RAYLAUNCH_BIN" probe liveness
expect_rc 0 "head liveness over TLS"
run flags "$RAYLAUNCH_BIN" status --address "$addr" --use-tls --tls-server-cert "$P/pod.crt" \
  --tls-server-key "$P/pod.key" --tls-ca-cert "$P/ca.crt"
expect_rc 0 "status with the TLS flags"

# --- certificate problems: one line with the fix, and waits end at once (refused, 69), not at
# their deadline: a certificate does not heal.
tls pod other-ca run wrongca "$RAYLAUNCH_BIN" status --address "$addr"
expect_rc 69 "status, wrong CA"
expect_in wrongca.err "TLS handshake with $addr failed: the server's certificate does not verify against RAY_TLS_CA_CERT=$P/other-ca.crt"
start=$(now_ms)
tls pod other-ca run wrongca_head "$RAYLAUNCH_BIN" wait head --address "$addr" --timeout 60s
expect_rc 69 "wait head, wrong CA"
expect_in wrongca_head.err "rejected the request: TLS handshake with $addr failed"
(( $(now_ms) - start < 10000 )) || fail "wait head waited out its deadline on a certificate error"
tls pod other-ca run wrongca_ready "$RAYLAUNCH_BIN" probe readiness
expect_rc 1 "worker readiness, wrong CA"
expect_one_line wrongca_ready
expect_in wrongca_ready.err "does not verify against RAY_TLS_CA_CERT"
tls pod other-ca run wrongca_live "$RAYLAUNCH_BIN" probe liveness
expect_rc 1 "worker liveness, wrong CA"
expect_in wrongca_live.err "raylet at 127.0.0.1:$RAYLET_PORT did not answer within 1s: TLS handshake with 127.0.0.1:$RAYLET_PORT failed"

start=$(now_ms)
tls stranger ca run refused "$RAYLAUNCH_BIN" wait --address "$addr" --nodes 2 --timeout 60s
expect_rc 69 "wait, our certificate refused by the server"
expect_in refused.err "the server refused this pod's certificate RAY_TLS_SERVER_CERT=$P/stranger.crt"
(( $(now_ms) - start < 10000 )) || fail "wait waited out its deadline on a refused certificate"

start=$(now_ms)
run plain "$RAYLAUNCH_BIN" wait head --address "$addr" --timeout 60s
expect_rc 69 "plaintext client against the TLS GCS"
expect_in plain.err "requires TLS and this client speaks plaintext (set RAY_USE_TLS=1"
(( $(now_ms) - start < 10000 )) || fail "plaintext against TLS waited out its deadline"

# A server whose certificate does not name 127.0.0.1, where the probes dial.
export RAY_USE_TLS=1 RAY_TLS_SERVER_CERT=$P/nolocal.crt RAY_TLS_SERVER_KEY=$P/nolocal.key RAY_TLS_CA_CERT=$P/ca.crt
start_gcs nolocal --tls-from-env
unset RAY_USE_TLS RAY_TLS_SERVER_CERT RAY_TLS_SERVER_KEY RAY_TLS_CA_CERT
HOSTNAME=training-0 RAYLAUNCH_RAY_PORT=$GCS_PORT tls pod ca run noname "$RAYLAUNCH_BIN" probe liveness
expect_rc 1 "head liveness, 127.0.0.1 not in the server's certificate"
expect_in noname.err "the server's certificate does not name 127.0.0.1, the address dialled (add IP:127.0.0.1 to its subjectAltName"

# TLS client, plaintext GCS.
start_gcs plain
tls pod ca run tlsplain "$RAYLAUNCH_BIN" status --address "127.0.0.1:$GCS_PORT"
expect_rc 69 "TLS client against a plaintext GCS"
expect_in tlsplain.err "the server speaks plaintext, not TLS"

# --- bad settings: exit 64, one line naming the setting, before any connection.
check64() {  # NAME TEXT ENV... (status)
  local name=$1 text=$2
  shift 2
  env "$@" "$RAYLAUNCH_BIN" status --address "$addr" >"$WORK/$name.out" 2>"$WORK/$name.err" && RC=0 || RC=$?
  expect_rc 64 "$name"
  expect_one_line "$name"
  expect_in "$name.err" "raylaunch: error: $text"
}
check64 nokey "RAY_TLS_SERVER_KEY is not set (RAY_USE_TLS is on" \
  RAY_USE_TLS=true RAY_TLS_SERVER_CERT="$P/pod.crt" RAY_TLS_CA_CERT="$P/ca.crt"
check64 noca "RAY_TLS_CA_CERT=$WORK/none.crt: cannot read the file: No such file or directory" \
  RAY_USE_TLS=1 RAY_TLS_SERVER_CERT="$P/pod.crt" RAY_TLS_SERVER_KEY="$P/pod.key" RAY_TLS_CA_CERT="$WORK/none.crt"
check64 notpem "RAY_TLS_SERVER_CERT=$P/pod.ext: no PEM certificate in the file" \
  RAY_USE_TLS=1 RAY_TLS_SERVER_CERT="$P/pod.ext" RAY_TLS_SERVER_KEY="$P/pod.key" RAY_TLS_CA_CERT="$P/ca.crt"
check64 mismatch "RAY_TLS_SERVER_KEY=$P/stranger.key: the key does not belong to the certificate in RAY_TLS_SERVER_CERT=$P/pod.crt" \
  RAY_USE_TLS=1 RAY_TLS_SERVER_CERT="$P/pod.crt" RAY_TLS_SERVER_KEY="$P/stranger.key" RAY_TLS_CA_CERT="$P/ca.crt"
check64 yes 'RAY_USE_TLS: "yes" is not valid (expected 1 or true (on), 0 or false (off): Ray reads any other value as off)' \
  RAY_USE_TLS=yes
run flagca "$RAYLAUNCH_BIN" probe liveness --use-tls --tls-server-cert "$P/pod.crt" --tls-server-key "$P/pod.key" \
  --tls-ca-cert "$WORK/none.crt"
expect_rc 64 "a TLS file given as a flag"
expect_in flagca.err "raylaunch: error: --tls-ca-cert=$WORK/none.crt: cannot read the file"

# --- plan shows TLS and the paths, exports flag-given values for ray start, never the contents.
HOSTNAME=training-0 RAYLAUNCH_NODES=1 run plan "$RAYLAUNCH_BIN" plan --checks off --use-tls --tls-server-cert "$P/pod.crt" \
  --tls-server-key "$P/pod.key" --tls-ca-cert "$P/ca.crt"
expect_rc 0 "plan with TLS flags"
expect_in plan.out "gcs tls        on, mutual: RAY_TLS_SERVER_CERT=$P/pod.crt, RAY_TLS_SERVER_KEY=$P/pod.key, RAY_TLS_CA_CERT=$P/ca.crt"
expect_in plan.out "  RAY_USE_TLS=1"
HOSTNAME=training-0 RAYLAUNCH_NODES=1 tls pod ca run planjson "$RAYLAUNCH_BIN" plan --checks off --output json
expect_in planjson.out '"enabled": true'
expect_in planjson.out "\"server_key\": \"$P/pod.key\""
HOSTNAME=training-0 RAYLAUNCH_NODES=1 tls pod none run planbad "$RAYLAUNCH_BIN" plan --checks off
expect_rc 64 "plan refuses what run would refuse"

key_body=$(sed -n 2p "$P/pod.key")
! grep -rqF -e "PRIVATE KEY" -e "$key_body" "$WORK"/*.out "$WORK"/*.err || fail "a private key was printed"
echo "PASS"
