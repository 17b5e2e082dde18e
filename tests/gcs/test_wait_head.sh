#!/usr/bin/env bash
# `wait head` (the worker side, before `ray start`): staged DNS → TCP connect → GCS CheckAlive,
# logging the stage that fails, until the head's GCS answers or the deadline (exit 69).
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-1

# TCP stage: nothing listens.
port=$(free_port)
run tcp "$RAYLAUNCH_BIN" wait head --address "127.0.0.1:$port" --timeout 2s
expect_rc 69 "wait head, nothing listening"
expect_in tcp.err "TCP connect stage failing: Connection refused (127.0.0.1:$port)"
expect_in tcp.err "raylaunch: error: head GCS at 127.0.0.1:$port not ready at the 2s deadline: TCP connect stage failing"

# GCS stage: something accepts TCP but never speaks gRPC.
"$FAKE_GCS" blackhole --port-file "$WORK/bh.port" &
PIDS+=($!)
wait_file "$WORK/bh.port"
bh=$(cat "$WORK/bh.port")
run gcs "$RAYLAUNCH_BIN" wait head --address "127.0.0.1:$bh" --timeout 3s
expect_rc 69 "wait head, not a GCS"
expect_in gcs.err "GCS stage failing: DEADLINE_EXCEEDED"

# DNS stage: a name that does not resolve (RFC 2606 .invalid).
run dns "$RAYLAUNCH_BIN" wait head --address "no-such-head.invalid:6379" --timeout 2s
expect_rc 69 "wait head, name does not resolve"
expect_in dns.err "DNS stage failing: no-such-head.invalid:"

# The head comes up late: TCP refused first, then ready.
port=$(free_port)
bg late "$RAYLAUNCH_BIN" wait head --address "127.0.0.1:$port" --timeout 30s
sleep 1.5
start_gcs late --port "$port" --ray-version 2.49.2
join late
expect_rc 0 "wait head, head up late"
expect_in late.err "TCP connect stage failing"
expect_in late.err "head GCS at 127.0.0.1:$port answered (Ray 2.49.2)"

# Token required and not given: stops at once with exit 69 (retrying cannot help).
start_gcs authed --token "t-$$"
run auth "$RAYLAUNCH_BIN" wait head --address "127.0.0.1:$GCS_PORT" --timeout 10s
expect_rc 69 "wait head without the token"
expect_in auth.err "rejected the request: UNAUTHENTICATED"
RAY_AUTH_TOKEN="t-$$" run auth2 "$RAYLAUNCH_BIN" wait head --address "127.0.0.1:$GCS_PORT" --timeout 10s
expect_rc 0 "wait head with the token"
echo "PASS"
