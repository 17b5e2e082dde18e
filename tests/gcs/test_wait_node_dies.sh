#!/usr/bin/env bash
# wait: a node that died (DEAD row) does not count; a restarted pod's stale ALIVE row is counted
# once; the barrier completes when the pod re-registers.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0

start_gcs dies --ray-version 2.30.0
ctl add training-0 --head >/dev/null
ctl add training-1 >/dev/null
ctl add training-2 >/dev/null
ctl kill training-2 >/dev/null
run w "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 3 --timeout 2s
expect_rc 75 "wait with a DEAD node"
expect_in w.err "raylaunch: error: join timed out after 2s: 2/3 nodes alive; missing: training-2"

# training-1 restarts: a new ALIVE row while the old one is still ALIVE. Still 2 distinct pods.
ctl add training-1 >/dev/null
run w2 "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 3 --timeout 2s
expect_rc 75 "wait with a stale ALIVE row"
expect_in w2.err "2/3 nodes alive; missing: training-2; counted once despite a stale ALIVE entry: training-1"

# training-2's pod comes back under the same name: the barrier completes.
bg w3 "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 3 --timeout 20s
wait_text w3.err "2/3 nodes alive"
ctl add training-2 >/dev/null
join w3
expect_rc 0 "wait after the dead pod re-registered"
echo "PASS"
