#!/usr/bin/env bash
# Ray token auth: a GCS that requires `authorization: Bearer <token>` rejects wait/status/probes
# without it (exit 69 with a hint, probes 1, liveness excepted) and accepts RAY_AUTH_TOKEN or
# RAY_AUTH_TOKEN_PATH. The token never appears in any output, even at debug level.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0
secret="s3cret-$$-token"

start_gcs auth --token "$secret"
ctl add training-0 --head >/dev/null
addr="127.0.0.1:$GCS_PORT"

run no "$RAYLAUNCH_BIN" wait --address "$addr" --nodes 1 --timeout 10s --log-level debug
expect_rc 69 "wait without a token"
expect_in no.err "rejected the request: UNAUTHENTICATED: InvalidAuthToken"
expect_in no.err "set RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH"
[[ "$(counter calls.GetAllNodeInfo)" == 1 ]] || fail "UNAUTHENTICATED was retried"

RAY_AUTH_TOKEN="$secret" run yes "$RAYLAUNCH_BIN" wait --address "$addr" --nodes 1 --timeout 10s --log-level debug
expect_rc 0 "wait with RAY_AUTH_TOKEN"
expect_in yes.err "sending Ray's auth token from RAY_AUTH_TOKEN"

printf '%s\n' "$secret" >"$WORK/token"
RAY_AUTH_TOKEN_PATH="$WORK/token" run file "$RAYLAUNCH_BIN" status --address "$addr" --log-level debug
expect_rc 0 "status with RAY_AUTH_TOKEN_PATH"
expect_in file.out "1 alive"

RAY_AUTH_TOKEN="wrong" run wrong "$RAYLAUNCH_BIN" status --address "$addr"
expect_rc 69 "status with a wrong token"
expect_in wrong.err "UNAUTHENTICATED"
expect_in wrong.err "the token from RAY_AUTH_TOKEN was refused"

RAY_AUTH_TOKEN_PATH="$WORK/missing" run missing "$RAYLAUNCH_BIN" wait --address "$addr" --nodes 1
expect_rc 64 "missing token file"
expect_in missing.err "raylaunch: error: RAY_AUTH_TOKEN_PATH=$WORK/missing: cannot read the token file: No such file or directory"

# Probes on the head: liveness counts an UNAUTHENTICATED answer as alive; readiness does not.
export RAYLAUNCH_RAY_PORT=$GCS_PORT
run live "$RAYLAUNCH_BIN" probe liveness
expect_rc 0 "liveness without a token"
expect_in live.out "answered UNAUTHENTICATED"
run ready "$RAYLAUNCH_BIN" probe readiness
expect_rc 1 "readiness without a token"
expect_in ready.err "UNAUTHENTICATED"
RAY_AUTH_TOKEN="$secret" run ready2 "$RAYLAUNCH_BIN" probe readiness
expect_rc 0 "readiness with the token"

! grep -rqF -- "$secret" "$WORK"/*.out "$WORK"/*.err || fail "the token was printed"
echo "PASS"
