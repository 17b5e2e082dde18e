#!/usr/bin/env bash
# Head probes: liveness and readiness are "the GCS answers CheckAlive on 127.0.0.1:<ray port>",
# one try within --probe-timeout (default 1 s), exit 0/1 and exactly one line.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0 RAYLAUNCH_NODES=4 RAYLAUNCH_HEAD_ADDRESS=training-0.training.ml.svc.cluster.local

start_gcs head
export RAYLAUNCH_RAY_PORT=$GCS_PORT
for kind in liveness readiness; do
  run "up-$kind" "$RAYLAUNCH_BIN" probe "$kind"
  expect_rc 0 "head $kind, GCS up"
  expect_one_line "up-$kind"
  expect_in "up-$kind.out" "raylaunch: probe $kind (head): healthy: head GCS at 127.0.0.1:$GCS_PORT answered (Ray 2.9.0)"
done

# Slow GCS (3 s): the probe gives up at its own 1 s deadline (DEADLINE_EXCEEDED), not at the reply.
ctl fault delay 3000 >/dev/null
run slow "$RAYLAUNCH_BIN" probe liveness
expect_rc 1 "head liveness, GCS slower than the probe deadline"
expect_in slow.err "unhealthy: head GCS at 127.0.0.1:$GCS_PORT did not answer within 1s: DEADLINE_EXCEEDED"
RAYLAUNCH_PROBE_TIMEOUT=5s run slow5 "$RAYLAUNCH_BIN" probe liveness
expect_rc 0 "head liveness with --probe-timeout 5s"
ctl fault delay 0 >/dev/null

ctl fault unavailable 1 >/dev/null
run unav "$RAYLAUNCH_BIN" probe readiness
expect_rc 1 "head readiness, GCS answering UNAVAILABLE"
expect_in unav.err "UNAVAILABLE: fake GCS: injected UNAVAILABLE"

ctl fault status 4 >/dev/null
run st "$RAYLAUNCH_BIN" probe readiness
expect_rc 1 "head readiness, GcsStatus error"
ctl fault status 0 >/dev/null

ctl stop >/dev/null
for kind in liveness readiness; do
  run "down-$kind" "$RAYLAUNCH_BIN" probe "$kind"
  expect_rc 1 "head $kind, GCS down"
  expect_one_line "down-$kind"
  expect_in "down-$kind.err" "raylaunch: probe $kind (head): unhealthy: head GCS at 127.0.0.1:$GCS_PORT did not answer within 1s: UNAVAILABLE"
done
ctl start >/dev/null
run back "$RAYLAUNCH_BIN" probe liveness
expect_rc 0 "head liveness after the GCS came back"

run bad "$RAYLAUNCH_BIN" probe sideways
expect_rc 64 "unknown probe kind"
echo "PASS"
