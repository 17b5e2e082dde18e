#!/usr/bin/env bash
# A worker's drain on SIGTERM against the FAKE GCS (issue 19 item 1; tests/cluster's
# tests/kube/scenarios/test_busy_worker_drained.py does it on the real Ray and Kubernetes). What the real Ray cannot be made to
# show: a GCS without DrainNode (Ray < 2.9) is said once and Ray stopped at once; a GCS that stalls
# costs the drain its bounded RPC (2 s), not the grace; a rejected drain. And what it sends: this
# node's own id (the row's, 28 bytes), reason PREEMPTION, the deadline at the end of the term grace.
source "$(dirname "$0")/../support/run_lib.sh"

# case_up MODE GRACE [VERSION]: a head whose fake GCS serves DrainNode as MODE ("" none, busy,
# idle, reject) and plays Ray VERSION (2.60.0: one row by id), and a worker with the term grace
# GRACE (and $WORKER_ENV); waits until the worker watches its head. Sets CONTROL (the fake GCS's)
# and NODE_ID.
case_up() {
  local mode=$1 grace=$2 version=${3:-2.60.0}
  ports
  WORKER_NM=$(free_port)
  WORKER_HEALTH=$(free_port)
  local common="RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$RAY_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT"
  pod head-$mode $common RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT RAYLAUNCH_TERMINATION_LOG=$WORK/head-$mode.term \
      FAKE_RAY_GCS_ARGS="${mode:+--drain $mode}" FAKE_RAY_VERSION=$version HOSTNAME=training-0 -- run -- sleep 600
  pod worker-$mode $common RAYLAUNCH_NODE_MANAGER_PORT=$WORKER_NM RAYLAUNCH_HEALTH_PORT=$WORKER_HEALTH \
      RAYLAUNCH_TERM_GRACE=$grace RAYLAUNCH_TERMINATION_LOG=$WORK/worker-$mode.term HOSTNAME=training-1 \
      ${WORKER_ENV:-} -- run -- ignored-on-workers
  wait_text worker-$mode.err "watching the head: cluster"
  [[ $version == 2.9.0 ]] || wait_text worker-$mode.err "watching the head: training-1 is node"
  poll 30 grep -q "Ray runtime started" "$WORK/worker-$mode.err"
  CONTROL=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["gcs_control"])' \
            "$WORK/head-$mode/ray/session_latest/fake_ray.json")
  NODE_ID=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["node_id"])' \
            "$WORK/worker-$mode/ray/session_latest/fake_ray.json")
}
# ctl ARGS...: a command to the current case's fake GCS (fault delay MS, kill NAME, …).
ctl() { "$FAKE_GCS" ctl --control "unix:$CONTROL" "$@" >/dev/null; }
# slow_gcs: every call of the fake GCS takes 1.5 s from now; returns once a look of the worker's
# watch is in flight on it (its own-row call arrived after the delay was set: the fake counts a
# call when it arrives, then sleeps).
slow_gcs() {
  ctl fault delay 1500
  ctl reset-stats
  poll 30 row_call_arrived
}
row_call_arrived() {
  (($("$FAKE_GCS" ctl --control "unix:$CONTROL" stats | sed -n 's/^calls\.GetAllNodeInfo=//p' | grep . || echo 0) >= 1))
}
case_down() {
  kill -TERM "${POD[head-$1]}"
  finish head-$1 30
}

# 1. No DrainNode (a GCS before Ray 2.9): said once, Ray stopped at once, 143.
case_up "" 30s 2.9.0
kill -TERM "${POD[worker-]}"
finish worker- 20
expect_rc 143 "a worker stopped by SIGTERM"
expect_in worker-.term "stopped by SIGTERM while Ray ran; not drained: head GCS at 127.0.0.1:$RAY_PORT has no DrainNode (Ray < 2.9)"
[[ $(grep -c "has no DrainNode (Ray < 2.9): stopping Ray now" "$WORK/worker-.err") == 1 ]] || fail "said more than once"
case_down ""

# 2. A busy node: the drain names this node, PREEMPTION, the deadline at the end of the 3 s
#    grace; /readyz says why it is not ready; Ray is stopped after the deadline, not before.
case_up busy 3s
sent_ms=$($PY -c 'import time; print(int(time.time() * 1000))')
kill -TERM "${POD[worker-busy]}"
wait_text worker-busy.err "draining node"
[[ "$(http "$WORKER_HEALTH" /readyz)" == "503 not ready: draining: stopped by SIGTERM while Ray ran" ]] ||
  fail "readyz while draining: $(http "$WORKER_HEALTH" /readyz)"
[[ "$(http "$WORKER_HEALTH" /livez)" == "200 ok: draining: "* ]] || fail "livez while draining: $(http "$WORKER_HEALTH" /livez)"
finish worker-busy 20
expect_rc 143 "a drained worker"
expect_in worker-busy.term "stopped by SIGTERM while Ray ran; drained until the 3s deadline with work still running"
"$FAKE_GCS" ctl --control "unix:$CONTROL" drains >"$WORK/drains"
[[ $(grep -c '^DRAIN ' "$WORK/drains") == 1 ]] || fail "drains: $(cat "$WORK/drains")"
read -r _ id reason deadline message <"$WORK/drains"
[[ "$id" == "$NODE_ID" ]] || fail "drained node $id, not this worker's $NODE_ID"
[[ "$reason" == reason=2 ]] || fail "reason: $reason (expected 2, PREEMPTION)"
deadline=${deadline#deadline_ms=}
((deadline >= sent_ms + 2500 && deadline <= sent_ms + 3500)) || fail "deadline $deadline, SIGTERM at $sent_ms"
[[ "$message" == "message=raylaunch: pod training-1 received SIGTERM"* ]] || fail "message: $message"
# Ray was stopped after the deadline (the raylet then records the drain's reason, not a SIGTERM).
stop_line=$(grep -m1 "sending SIGTERM to ray start" "$WORK/worker-busy.err" | cut -c1-23)
stop_ms=$($PY -c 'import datetime,sys; print(int(datetime.datetime.fromisoformat(sys.argv[1]).timestamp() * 1000))' "$stop_line")
((stop_ms > deadline)) || fail "Ray stopped at $stop_ms, before the drain's deadline $deadline"
case_down busy

# 3. An idle node goes DEAD at once: Ray is stopped then, long before the 30 s deadline.
case_up idle 30s
kill -TERM "${POD[worker-idle]}"
finish worker-idle 20
expect_rc 143 "an idle drained worker"
expect_in worker-idle.term "stopped by SIGTERM while Ray ran; drained: the node was idle and its raylet exited after"
expect_in worker-idle.term "AUTOSCALER_DRAIN_PREEMPTED: raylaunch: pod training-1 received SIGTERM"
case_down idle

# 4. A rejected drain, and a GCS that stalls every call for 20 s: Ray is stopped after the
#    bounded RPC (2 s), not at the 30 s deadline.
case_up reject 30s
kill -TERM "${POD[worker-reject]}"
finish worker-reject 20
expect_in worker-reject.term "not drained: head GCS at 127.0.0.1:$RAY_PORT rejected the drain: fake GCS: drains are rejected here"
case_down reject
case_up busy 30s
"$FAKE_GCS" ctl --control "unix:$CONTROL" fault delay 20000 >/dev/null
kill -TERM "${POD[worker-busy]}"
finish worker-busy 15
expect_rc 143 "a worker whose GCS stalls"
expect_in worker-busy.term "not drained: head GCS at 127.0.0.1:$RAY_PORT did not answer DrainNode: DEADLINE_EXCEEDED"
"$FAKE_GCS" ctl --control "unix:$CONTROL" fault delay 0 >/dev/null
case_down busy

# 5. The head goes away during the drain (the whole StatefulSet deleted: the head is stopped
#    first). Without GCS fault tolerance no head can come back: the drain ends at once, and says
#    why (issue 26 item 15; before, the whole 30 s window was waited out). With it (RAY_REDIS_ADDRESS
#    on the worker) the deadline is waited out, as the head may come back, and the termination
#    message says the GCS went silent instead of claiming work still ran.
case_up busy 30s
kill -TERM "${POD[worker-busy]}"
wait_text worker-busy.err "draining node"
ctl fault unavailable -1
finish worker-busy 40
expect_rc 143 "a worker whose head went away while it drained"
expect_in worker-busy.term "until the head GCS at 127.0.0.1:$RAY_PORT stopped answering (UNAVAILABLE"
expect_in worker-busy.term "without GCS fault tolerance no head comes back to this cluster: stopping Ray now"
expect_not_in worker-busy.term "deadline"
ctl fault unavailable 0
case_down busy
WORKER_ENV="RAY_REDIS_ADDRESS=127.0.0.1:1" case_up busy 3s
kill -TERM "${POD[worker-busy]}"
wait_text worker-busy.err "draining node"
ctl fault unavailable -1
finish worker-busy 20
expect_rc 143 "a worker with GCS fault tolerance whose head went silent while it drained"
expect_in worker-busy.term "drained until the 3s deadline; the head GCS at 127.0.0.1:$RAY_PORT stopped answering"
expect_in worker-busy.term "so whether work still ran on the node is unknown; with GCS fault tolerance the head may come back"
ctl fault unavailable 0
case_down busy

# 6. SIGTERM while a look of the head watch is in flight on a slow GCS (every call 1.5 s): the
#    watch is cancelled and the drain goes on on the same channel (issue 26 item 3). Neither the
#    cancelled call nor the watch's timed-out one may cost the drain the GCS's version: it must
#    still look at its node's row, see it DEAD at once and stop Ray, not wait out the window
#    taking the GCS for Ray <= 2.35.
case_up idle 30s
slow_gcs
kill -TERM "${POD[worker-idle]}"
finish worker-idle 40
expect_rc 143 "a worker drained while its watch's call was in flight"
expect_in worker-idle.term "stopped by SIGTERM while Ray ran; drained: the node was idle and its raylet exited after"
ctl fault delay 0
case_down idle

# 7. The GCS gave up on this node (DEAD: a partition, a frozen raylet) after the watch last saw it
#    ALIVE, and SIGTERM comes while the watch's look is in flight (every call takes 1.5 s). A drain of a DEAD node is accepted and its row is DEAD at the first
#    look: that is not a node that drained idle (issue 26 item 12).
case_up idle 30s
slow_gcs
ctl kill training-1 --why "health check failed: raylet unreachable"
kill -TERM "${POD[worker-idle]}"
finish worker-idle 40
expect_rc 143 "a worker whose node was already DEAD when it was drained"
expect_in worker-idle.term "stopped by SIGTERM while Ray ran; not drained: training-1 (node ${NODE_ID:0:12}) was already DEAD in the head's GCS"
expect_not_in worker-idle.term "idle"
ctl fault delay 0
case_down idle
expect_clean
echo PASS
