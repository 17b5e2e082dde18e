#!/usr/bin/env bash
# Worker probes: liveness asks the pod's own raylet (grpc.health.v1 on the node-manager port) and
# must stay healthy while the head is down; readiness asks the head's GCS whether this pod is
# ALIVE in the node table.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-1 RAYLAUNCH_NODES=4 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1

start_gcs worker
export RAYLAUNCH_RAY_PORT=$GCS_PORT
start_raylet
export RAYLAUNCH_NODE_MANAGER_PORT=$RAYLET_PORT
ctl add training-0 --head >/dev/null

run l1 "$RAYLAUNCH_BIN" probe liveness
expect_rc 0 "worker liveness, raylet up"
expect_in l1.out "raylaunch: probe liveness (worker): healthy: raylet at 127.0.0.1:$RAYLET_PORT is SERVING"

run r1 "$RAYLAUNCH_BIN" probe readiness
expect_rc 1 "worker readiness, not registered"
expect_in r1.err "training-1 is not registered in the head GCS at 127.0.0.1:$GCS_PORT"

ctl add training-1 >/dev/null
run r2 "$RAYLAUNCH_BIN" probe readiness
expect_rc 0 "worker readiness, ALIVE"
expect_in r2.out "healthy: training-1 is ALIVE in the head GCS"

ctl kill training-1 >/dev/null
run r3 "$RAYLAUNCH_BIN" probe readiness
expect_rc 1 "worker readiness, DEAD"
expect_in r3.err "training-1 is DEAD in the head GCS at 127.0.0.1:$GCS_PORT node table (UNEXPECTED_TERMINATION)"
ctl add training-1 >/dev/null   # the pod's raylet re-registers: DEAD row plus a new ALIVE row
run r4 "$RAYLAUNCH_BIN" probe readiness
expect_rc 0 "worker readiness, re-registered"

# The head goes down: liveness stays healthy (restarting workers cannot bring a head back),
# readiness fails.
ctl stop >/dev/null
run l2 "$RAYLAUNCH_BIN" probe liveness
expect_rc 0 "worker liveness, head down"
run r5 "$RAYLAUNCH_BIN" probe readiness
expect_rc 1 "worker readiness, head down"
expect_in r5.err "did not answer within 1s: UNAVAILABLE"
ctl start >/dev/null

# The raylet is gone: liveness fails, with a hint about --node-manager-port.
kill "$RAYLET_PID"
wait "$RAYLET_PID" 2>/dev/null || true
run l3 "$RAYLAUNCH_BIN" probe liveness
expect_rc 1 "worker liveness, raylet down"
expect_in l3.err "unhealthy: raylet at 127.0.0.1:$RAYLET_PORT did not answer within 1s: UNAVAILABLE"
expect_in l3.err "--node-manager-port=$RAYLET_PORT"

# A raylet that answers NOT_SERVING.
start_raylet --not-serving
RAYLAUNCH_NODE_MANAGER_PORT=$RAYLET_PORT run l4 "$RAYLAUNCH_BIN" probe liveness
expect_rc 1 "worker liveness, raylet NOT_SERVING"
expect_in l4.err "not SERVING"
echo "PASS"
