#!/usr/bin/env bash
# A stuck NCCL collective seen from PID 1 (issue 27 item 3), with the FAKE ray and the FAKE NCCL
# RAS server (tests/fakes/nccl_ras/fake_ras.py: NCCL's client protocol, its dump layouts; there
# is no GPU or NCCL here). Rank 3 stays one AllReduce behind: after --nccl-ras-polls polls the
# head names it (and its pod, from the GCS node table), stops the command with 76, and with
# --restarts runs it again in place; the rerun resumes (the collectives move) and succeeds.
source "$(dirname "$0")/../support/run_lib.sh"
RAS_FAKE=$HERE/../fakes/nccl_ras/fake_ras.py

# This pod's node IP as the fake ray registers it in the fake GCS (Ray's node_ip_from_perspective).
NODE_IP=$(PYTHONPATH=$HERE/../fakes/ray/lib $PY -c 'from fakeray.node import node_ip_from_perspective as ip; print(ip())')

# job FILE BEHIND: a communicator of 4 ranks on two nodes (ranks 2 and 3 on this pod's node),
# rank BEHIND one AllReduce behind the others (-1: none).
job() {
  $PY - "$1" "$2" "$NODE_IP" <<'PY'
import json, sys
ranks = [{"rank": r, "host": "10.0.0.1" if r < 2 else sys.argv[3], "pid": 1000 + r, "gpu": r,
          "counts": {"AllReduce": 99 if r == int(sys.argv[2]) else 100}} for r in range(4)]
json.dump({"comms": [{"hash": "7f3a2b1c9d8e0f11", "size": 4, "ranks": ranks}]}, open(sys.argv[1], "w"))
PY
}

# ras NAME [ARGS...]: the fake RAS server NAME on a port of its own ($WORK/NAME.port).
ras() {
  local name=$1
  shift
  $PY "$RAS_FAKE" --port-file "$WORK/$name.port" --job "$WORK/$name.json" "$@" 2>"$WORK/$name.log" &
  PIDS+=($!)
  wait_file "$WORK/$name.port"
}

cat >"$WORK/train.sh" <<'SH'
echo "run $RAYLAUNCH_RESTART_COUNT" >> "$1/trainer"
if [[ $RAYLAUNCH_RESTART_COUNT == 0 ]]; then
  trap 'echo "SIGTERM in run 0" >> "$1/trainer"; exit 143' TERM
  while :; do sleep 0.1; done
fi
# The rerun resumed from its checkpoint: its collectives move again.
cp "$1/healthy.json" "$1/ras1.json"
sleep 3
SH
watch_env() {
  echo RAYLAUNCH_NCCL_RAS_ADDRESS=127.0.0.1:$(cat "$WORK/$1.port") RAYLAUNCH_NCCL_RAS_INTERVAL=200ms \
       RAYLAUNCH_NCCL_RAS_POLLS=3 RAYLAUNCH_NCCL_RAS_ON_STUCK=stop RAYLAUNCH_TERM_GRACE=3s
}

# --- NCCL 2.30 (JSON), --restarts 1: stopped with 76, run again, succeeds ------------------------
ports
job "$WORK/ras1.json" 3
job "$WORK/healthy.json" -1
ras ras1
pod h $(loopback_env) $(watch_env ras1) RAYLAUNCH_RESTARTS=1 RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT \
  -- run -- bash "$WORK/train.sh" "$WORK"
poll 30 grep -q "run 1" "$WORK/trainer"
metrics=$(http "$HEALTH_PORT" /metrics)
for want in 'raylaunch_nccl_stuck_stops_total 1' 'raylaunch_nccl_stuck_total 1' 'raylaunch_nccl_ras_up' \
            'raylaunch_command_restarts_total 1'; do
  [[ "$metrics" == *"$want"* ]] || fail "metrics lack: $want"
done
finish h 30
expect_rc 0 "the rerun succeeded"
expect_in trainer "SIGTERM in run 0"
expect_in h.err "NCCL communicator 7f3a2b1c9d8e0f11 (4 ranks) made no progress across 3 RAS polls, waiting for the lagging rank 3 (GPU 3, process 1003 on node $NODE_IP) at operation 99 = pod h; pods: h"
expect_in h.err "stopping the command (SIGTERM, SIGKILL after the term grace, 3s); its run ends with 76, and it runs again in place"
expect_in h.err "running it again in place (restart 1, at most 1 within 1h)"
expect_in termination-log "the command ran again in place 1 time"
expect_clean

# --- NCCL 2.26 (text), no restarts: the run ends with 76 and the reason -------------------------
ports
job "$WORK/ras2.json" 3
ras ras2 --nccl 2.26.5
rm -f "$WORK/trainer"
pod h2 $(loopback_env) $(watch_env ras2) -- run -- bash "$WORK/train.sh" "$WORK"
finish h2 30
expect_rc 76 "stopped for a stuck collective"
expect_in termination-log "command was stopped (NCCL communicator 7f3a2b1c9d8e0f11 (4 ranks) made no progress across 3 RAS polls, waiting for the lagging rank 3 (GPU 3, process 1003 on node $NODE_IP) at AllReduce 99"
expect_in h2.err "(RAYLAUNCH_RESTARTS=0: not run again)"
expect_clean

# --- warn (the default): said once, the command runs on ----------------------------------------
ports
job "$WORK/ras3.json" 3
ras ras3
printf 'sleep 2.5\n' >"$WORK/short.sh"
pod h3 $(loopback_env) RAYLAUNCH_NCCL_RAS_ADDRESS=127.0.0.1:$(cat "$WORK/ras3.port") RAYLAUNCH_NCCL_RAS_INTERVAL=200ms \
  RAYLAUNCH_NCCL_RAS_POLLS=2 -- run -- bash "$WORK/short.sh"
finish h3 30
expect_rc 0 "warn only"
[[ $(grep -c "made no progress across 2 RAS polls" "$WORK/h3.err") == 1 ]] || fail "the stuck line is said once"
expect_clean
echo PASS
