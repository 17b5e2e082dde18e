# Redis over TLS (rediss://, as ElastiCache's in-transit encryption) against a real redis-server
# with TLS on (Debian's redis-server 7: --tls-port), certificates made here with openssl: the
# server verified with RAY_REDIS_CA_CERT (and by name), a wrong CA, a wrong name, a plaintext
# server, a TLS-only server asked in plaintext, a server that requires a client certificate
# (RAY_REDIS_CLIENT_CERT, RAY_REDIS_CLIENT_KEY), unusable TLS files (exit 64), the head's
# preflight plan, and redis-cleanup over TLS. The password never appears.
source "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null || { echo "SKIP: openssl is not installed"; exit 125; }
unset RAY_REDIS_CA_CERT RAY_REDIS_CA_PATH RAY_REDIS_CLIENT_CERT RAY_REDIS_CLIENT_KEY RAY_REDIS_SERVER_NAME || true
# OpenSSL's default trust store must not hold the test CA by accident: point it at nothing.
export SSL_CERT_FILE=$WORK/no-such-bundle.pem SSL_CERT_DIR=$WORK/no-such-dir
TLS=$WORK/tls
mkdir -p "$TLS"

# issue NAME CA SAN: a key and a certificate signed by CA (a CA of its own when CA is "self").
issue() {
  local name=$1 ca=$2 san=$3
  openssl req -newkey rsa:2048 -nodes -keyout "$TLS/$name.key" -out "$TLS/$name.csr" -subj "/CN=$name" 2>/dev/null
  if [[ $ca == self ]]; then
    openssl x509 -req -in "$TLS/$name.csr" -signkey "$TLS/$name.key" -out "$TLS/$name.crt" -days 2 \
      -extfile <(printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=keyCertSign,cRLSign\n') 2>/dev/null
  else
    openssl x509 -req -in "$TLS/$name.csr" -CA "$TLS/$ca.crt" -CAkey "$TLS/$ca.key" -CAcreateserial \
      -out "$TLS/$name.crt" -days 2 -extfile <(printf '%s\n' "$san") 2>/dev/null
  fi
  [[ -s $TLS/$name.crt ]] || { echo "openssl could not issue $name" >&2; exit 1; }
}
issue ca self ""
issue other-ca self ""
issue server ca "subjectAltName=DNS:redis.test,DNS:localhost,IP:127.0.0.1"
issue client ca "extendedKeyUsage=clientAuth"
issue stranger other-ca "extendedKeyUsage=clientAuth"

# start_tls_redis AUTH_CLIENTS: a TLS-only redis-server (no plaintext port) with PASSWORD;
# AUTH_CLIENTS yes makes it require a client certificate signed by the test CA.
start_tls_redis() {
  local port
  port=$(free_port)
  redis-server --port 0 --tls-port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
    --tls-cert-file "$TLS/server.crt" --tls-key-file "$TLS/server.key" --tls-ca-cert-file "$TLS/ca.crt" \
    --tls-auth-clients "$1" --requirepass "$PASSWORD" > "$WORK/redis-tls-$port.log" 2>&1 &
  PIDS+=($!)
  local i
  for i in $(seq 100); do
    [[ $(tcli "$port" ping 2>/dev/null) == PONG ]] && { TLS_PORT=$port; return 0; }
    sleep 0.05
  done
  echo "start_tls_redis: no answer on $port" >&2; cat "$WORK/redis-tls-$port.log" >&2; exit 1
}
# tcli PORT ARGS...: redis-cli over TLS with the client certificate (accepted either way).
tcli() {
  local port=$1; shift
  REDISCLI_AUTH=$PASSWORD redis-cli -p "$port" --tls --cacert "$TLS/ca.crt" --cert "$TLS/client.crt" \
    --key "$TLS/client.key" "$@"
}

start_tls_redis no
export REDIS_PASSWORD=$PASSWORD RAY_REDIS_CA_CERT=$TLS/ca.crt
addr=rediss://127.0.0.1:$TLS_PORT

# The server verified by the CA and by its IP address, then AUTH and PING over TLS.
RAY_REDIS_ADDRESS=$addr run_rl wait redis --timeout 10s
expect_rc 0 "verified"
expect_in "$err" "Redis at 127.0.0.1:$TLS_PORT (TLS) is ready: PONG after AUTH" "ready over TLS"
# By name (resolved by c-ares), and with the name given as a flag for an IP address.
RAY_REDIS_ADDRESS=rediss://localhost:$TLS_PORT run_rl wait redis --timeout 10s
expect_rc 0 "verified by name"
RAY_REDIS_ADDRESS=$addr run_rl wait redis --timeout 10s --redis-server-name redis.test
expect_rc 0 "server name flag"
# The CA as a directory (RAY_REDIS_CA_PATH), as Ray accepts it.
mkdir -p "$TLS/cadir" && cp "$TLS/ca.crt" "$TLS/cadir/" && openssl rehash "$TLS/cadir" 2>/dev/null
RAY_REDIS_CA_CERT= RAY_REDIS_CA_PATH=$TLS/cadir RAY_REDIS_ADDRESS=$addr run_rl wait redis --timeout 10s
expect_rc 0 "CA directory"

# A CA that did not sign the server: refused at once (it will not heal), naming the setting.
RAY_REDIS_CA_CERT=$TLS/other-ca.crt RAY_REDIS_ADDRESS=$addr run_rl wait redis --timeout 60s
expect_rc 69 "wrong CA"
expect_in "$err" "raylaunch: error: Redis at 127.0.0.1:$TLS_PORT (TLS): TLS with 127.0.0.1:$TLS_PORT: its certificate is not signed by a CA in RAY_REDIS_CA_CERT=$TLS/other-ca.crt" \
  "wrong CA line"
(( ms < 3000 )) && pass || fail "wrong CA took $ms ms, expected an immediate exit"
[[ $(grep -c . <<<"$err") -le 3 ]] && pass || fail "wrong CA: more than a few lines: $err"
# No CA setting: the system's trust store (here empty) is what failed, and the line says so.
RAY_REDIS_CA_CERT= RAY_REDIS_ADDRESS=$addr run_rl wait redis --timeout 60s
expect_rc 69 "no CA"
expect_in "$err" "is not signed by a CA in the system's trust store (RAY_REDIS_CA_CERT is not set)" "no CA line"

# A name the certificate does not carry: refused at once, with the names it does carry.
RAY_REDIS_SERVER_NAME=redis.wrong.test RAY_REDIS_ADDRESS=$addr run_rl wait redis --timeout 60s
expect_rc 69 "wrong name"
expect_in "$err" "its certificate is not for redis.wrong.test (RAY_REDIS_SERVER_NAME); it names DNS:redis.test, DNS:localhost, IP:127.0.0.1" \
  "wrong name line"
(( ms < 3000 )) && pass || fail "wrong name took $ms ms"
RAY_REDIS_ADDRESS=rediss://127.0.0.2:$TLS_PORT run_rl wait redis --timeout 2s
expect_rc 69 "address not in the certificate (or not listening)"

# rediss:// to a plaintext Redis: it takes the ClientHello for the start of a command and never
# answers; retried to the deadline, with the likely cause named.
start_redis
RAY_REDIS_ADDRESS=rediss://127.0.0.1:$REDIS_PORT run_rl wait redis --timeout 2s
expect_rc 69 "plaintext Redis"
expect_in "$err" "no TLS handshake with 127.0.0.1:$REDIS_PORT within" "plaintext Redis: the handshake timed out"
expect_in "$err" "if this one does not speak TLS, use redis://" "plaintext Redis hint"
# rediss:// to a server that answers, but not in TLS (an HTTP server): refused at once.
start_fake garbage
RAY_REDIS_ADDRESS=rediss://127.0.0.1:$FAKE_PORT run_rl wait redis --timeout 60s
expect_rc 69 "not a TLS server"
expect_in "$err" "TLS with 127.0.0.1:$FAKE_PORT: the server does not speak TLS" "not a TLS server line"
expect_in "$err" "use redis://, not rediss://" "not a TLS server hint"
(( ms < 3000 )) && pass || fail "a server that does not speak TLS took $ms ms"
# redis:// to the TLS-only port: the server hangs up; retried to the deadline, with the hint.
RAY_REDIS_CA_CERT= RAY_REDIS_ADDRESS=redis://127.0.0.1:$TLS_PORT run_rl wait redis --timeout 2s
expect_rc 69 "plaintext client"
expect_in "$err" "use rediss:// for it" "plaintext client hint"

# A Redis that requires a client certificate.
start_tls_redis yes
mtls=rediss://127.0.0.1:$TLS_PORT
RAY_REDIS_ADDRESS=$mtls run_rl wait redis --timeout 60s
expect_rc 69 "no client certificate"
expect_in "$err" "the server requires a client certificate (set RAY_REDIS_CLIENT_CERT and RAY_REDIS_CLIENT_KEY)" \
  "client certificate required line"
(( ms < 3000 )) && pass || fail "no client certificate took $ms ms"
RAY_REDIS_CLIENT_CERT=$TLS/client.crt RAY_REDIS_CLIENT_KEY=$TLS/client.key RAY_REDIS_ADDRESS=$mtls \
  run_rl wait redis --timeout 10s
expect_rc 0 "client certificate"
RAY_REDIS_ADDRESS=$mtls run_rl wait redis --timeout 10s --redis-client-cert "$TLS/client.crt" \
  --redis-client-key "$TLS/client.key"
expect_rc 0 "client certificate as flags"
RAY_REDIS_CLIENT_CERT=$TLS/stranger.crt RAY_REDIS_CLIENT_KEY=$TLS/stranger.key RAY_REDIS_ADDRESS=$mtls \
  run_rl wait redis --timeout 60s
expect_rc 69 "client certificate from another CA"
expect_in "$err" "TLS with 127.0.0.1:$TLS_PORT:" "stranger: a TLS line"
(( ms < 3000 )) && pass || fail "stranger certificate took $ms ms"

# Unusable TLS files: one line naming the setting, exit 64, before any connection.
RAY_REDIS_CA_CERT=$TLS/missing.crt RAY_REDIS_ADDRESS=$addr run_rl wait redis --timeout 10s
expect_rc 64 "missing CA file"
expect_in "$err" "raylaunch: error: Redis over TLS: RAY_REDIS_CA_CERT=$TLS/missing.crt: cannot read the file" "missing CA line"
RAY_REDIS_CA_CERT=$TLS/server.key RAY_REDIS_ADDRESS=$addr run_rl wait redis --timeout 10s
expect_rc 64 "a key as the CA"
expect_in "$err" "RAY_REDIS_CA_CERT=$TLS/server.key: no PEM certificate in the file" "not a certificate line"
RAY_REDIS_CLIENT_CERT=$TLS/client.crt RAY_REDIS_CLIENT_KEY=$TLS/server.key RAY_REDIS_ADDRESS=$mtls \
  run_rl wait redis --timeout 10s
expect_rc 64 "key of another certificate"
expect_in "$err" "RAY_REDIS_CLIENT_KEY=$TLS/server.key: the key does not belong to the certificate in RAY_REDIS_CLIENT_CERT=$TLS/client.crt" \
  "key mismatch line"
expect_not_in "$err" "PRIVATE KEY" "no key material in the error"
RAY_REDIS_CLIENT_CERT=$TLS/client.crt RAY_REDIS_ADDRESS=$mtls run_rl wait redis --timeout 10s
expect_rc 64 "certificate without key"
expect_in "$err" "RAY_REDIS_CLIENT_CERT is set without RAY_REDIS_CLIENT_KEY" "certificate without key line"
RAY_REDIS_ADDRESS=redis://127.0.0.1:$REDIS_PORT run_rl wait redis --timeout 10s
expect_rc 64 "TLS settings for a plaintext address"
expect_in "$err" "RAY_REDIS_CA_CERT is set but RAY_REDIS_ADDRESS is not rediss://" "plaintext address line"

# The head's plan: the preflight over TLS and the name it verifies.
tree=$WORK/node
bash "$TESTS_DIR/support/make-node-tree" workstation "$tree" training-0 >/dev/null
RAY_REDIS_ADDRESS=$mtls RAY_external_storage_namespace=blue run_rl plan --host-root "$tree" --nodes 2 \
  --namespace ml --service training --checks warn --hostname training-0 -- python3 train.py
expect_rc 0 "plan"
expect_in "$out" "for Redis at 127.0.0.1:$TLS_PORT over TLS (certificate for 127.0.0.1) to answer PING" "plan: TLS preflight"
expect_in "$out" "RAY_REDIS_CA_CERT=$TLS/ca.crt" "plan: the CA reaches Ray's GCS"

# redis-cleanup over TLS: one cluster's keys deleted, another's kept.
tcli "$TLS_PORT" hset RAYblue@NODE a 1 >/dev/null
tcli "$TLS_PORT" hset RAYgreen@NODE a 1 >/dev/null
RAY_REDIS_CLIENT_CERT=$TLS/client.crt RAY_REDIS_CLIENT_KEY=$TLS/client.key RAY_REDIS_ADDRESS=$mtls \
  RAY_external_storage_namespace=blue run_rl redis-cleanup
expect_rc 0 "cleanup over TLS"
expect_in "$out" "deleted RAYblue@NODE: 1 field" "cleanup: the key deleted"
[[ $(tcli "$TLS_PORT" exists RAYblue@NODE) == 0 ]] && pass || fail "RAYblue@NODE survived the cleanup"
[[ $(tcli "$TLS_PORT" exists RAYgreen@NODE) == 1 ]] && pass || fail "RAYgreen@NODE was deleted"
RAY_REDIS_ADDRESS=$mtls RAY_external_storage_namespace=blue run_rl redis-cleanup
expect_rc 69 "cleanup without the client certificate"
expect_in "$err" "requires a client certificate" "cleanup: the TLS reason"

finish
