#!/usr/bin/env bash
# GCS fault tolerance in `run` (a real redis-server): the head waits for Redis before
# `ray start` and passes the password only to it; a wrong password stops at once with 69 and
# `ray start` is never called; the password is in no output, log line or termination message;
# a worker of an FT cluster gets RAY_gcs_rpc_server_reconnect_timeout_s=600.
source "$(dirname "$0")/../support/run_lib.sh"
command -v redis-server >/dev/null || { echo "SKIP: redis-server is not installed (scripts/deps --test)"; exit 125; }
ports
REDIS_PORT=$(free_port)
SECRET='s3cret-ft-pass'
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --requirepass "$SECRET" \
  >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
poll 10 sh -c "REDISCLI_AUTH='$SECRET' redis-cli -p $REDIS_PORT ping | grep -q PONG"
ft="RAY_REDIS_ADDRESS=redis://127.0.0.1:$REDIS_PORT RAY_external_storage_namespace=ft-test"

# Wrong password: 69 at once, no ray start.
pod a $(loopback_env) $ft REDIS_PASSWORD=wrong-password -- run -- true
finish a 20
expect_rc 69 "wrong Redis password"
[[ -z "$(ls "$FAKE_RAY_RECORD_DIR")" ]] || fail "ray start ran despite the refused password"
expect_not_in a.err "wrong-password"
expect_not_in termination-log "wrong-password"

# The right one: Redis answers, then ray start gets --redis-password; nothing prints it.
pod b $(loopback_env) $ft REDIS_PASSWORD=$SECRET -- run -- true
finish b 30
expect_rc 0 "FT head"
[[ "$(record argv)" == *"\"--redis-password=$SECRET\""* ]] || fail "ray start lacks --redis-password"
expect_in b.err "--redis-password=***"
expect_not_in b.err "$SECRET"
expect_not_in b.out "$SECRET"
expect_not_in termination-log "$SECRET"

# Redis down until the deadline: 69, the stage named, nothing started.
rm -f "$FAKE_RAY_RECORD_DIR"/*
pod c $(loopback_env) RAY_REDIS_ADDRESS=127.0.0.1:$(free_port) REDIS_PASSWORD=$SECRET RAYLAUNCH_JOIN_TIMEOUT=2s -- run -- true
finish c 20
expect_rc 69 "Redis down"
expect_in c.err "TCP connect stage failing"
[[ -z "$(ls "$FAKE_RAY_RECORD_DIR")" ]] || fail "ray start ran without Redis"

# A worker of an FT cluster: the reconnect timeout that lets it survive a head restart.
out=$(env HOSTNAME=training-1 $ft RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_CHECKS=off \
  "$RAYLAUNCH_BIN" plan --output json)
[[ "$out" == *'"RAY_gcs_rpc_server_reconnect_timeout_s"'* ]] || fail "worker plan lacks the reconnect timeout"
expect_clean
echo PASS
