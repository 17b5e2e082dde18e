#!/usr/bin/env bash
# A worker and its head's GCS over time, as Ray: a worker started before its head retries the
# connection RAY_NUM_REDIS_GET_RETRIES times one second apart and joins when the head comes up;
# with no head at all it fails ("Failed to connect to GCS.", exit 1, nothing started). A joined
# worker's raylet exits 1 once the GCS has been unreachable for
# RAY_gcs_rpc_server_reconnect_timeout_s, which ends `ray start --block` with exit 1.
source "$(dirname "$0")/testlib.sh"
port=$(free_port)
gcs=127.0.0.1:$port

# No head: 2 attempts, then exit 1 without starting anything.
set +e
RAY_TMPDIR=$WORK/lonely RAY_NUM_REDIS_GET_RETRIES=2 "$RAY" start --address="$gcs" --block >"$WORK/lonely.out" 2>&1
RC=$?
set -e
expect_rc 1 "no head"
expect_in lonely.out "RuntimeError: Failed to connect to GCS."
expect_no_procs "no head"
[[ -z "$(ls "$WORK"/lonely/ray 2>/dev/null)" ]] || fail "a worker that never connected created a session"

# The worker first, the head 2 s later: the worker joins.
RAY_gcs_rpc_server_reconnect_timeout_s=3 pod worker -- start --address="$gcs" --node-name=training-1 --block
sleep 2
! gone "${POD_PID[worker]}" || fail "the worker gave up before RAY_NUM_REDIS_GET_RETRIES attempts"
pod head -- start --head --port="$port" --node-name=training-0 --block
poll 20 started worker
poll 10 count_rows "$gcs" "^ALIVE training-1 " 1

# The head goes away (SIGKILL: nothing unregisters): after 3 s without its GCS the worker's raylet
# exits 1, and the worker's ray start --block with it.
kill -KILL "${POD_PID[head]}"
exits_within 20 worker
expect_rc 1 "worker after its head died"
expect_in worker.out "raylet [exit code=1]"
grep -qF "Failed to connect to GCS within 3 seconds" "$WORK"/worker/ray/session_latest/logs/raylet.err ||
  fail "the raylet did not say why it exited"
expect_no_procs "after the head died"
echo "PASS"
