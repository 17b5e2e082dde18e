#!/usr/bin/env bash
# A worker's head watch across head restarts, against the FAKE GCS (issue 28): a head that comes
# back as the same cluster (its store kept the cluster id and this node's row: RocksDB on a
# volume, or Redis) is only logged, and the worker goes on; a head that comes back as a new
# cluster (a new cluster id: no store, or a fresh volume) still ends the worker with 69.
source "$(dirname "$0")/../support/run_lib.sh"

ports
common="RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$RAY_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT FAKE_RAY_VERSION=2.60.0"
pod head $common RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT HOSTNAME=training-0 -- run -- sleep 600
pod worker $common RAYLAUNCH_NODE_MANAGER_PORT=$(free_port) RAYLAUNCH_HEAD_WATCH=500ms HOSTNAME=training-1 -- run
wait_text worker.err "watching the head: training-1 is node"
control=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["gcs_control"])' \
          "$WORK/head/ray/session_latest/fake_ray.json")
CTL=("$FAKE_GCS" ctl --control "unix:$control")

# 1. The same cluster back after 2 s away: logged when it goes and when it comes back; the worker runs on.
"${CTL[@]}" restart 2000 >/dev/null
wait_text worker.err "watching the head: head GCS at 127.0.0.1:$RAY_PORT did not answer"
wait_text worker.err "watching the head: it answers again, and this node is ALIVE in it"
sleep 1
kill -0 "${POD[worker]}" 2>/dev/null || fail "the worker ended although its head came back as the same cluster"
expect_not_in worker.err "is a new cluster"

# 2. A new cluster back (its tables gone, a new cluster id): the worker ends with 69, saying so.
"${CTL[@]}" restart 1000 --wipe >/dev/null
finish worker 30
[[ $RC == 69 ]] || fail "a worker of a replaced head exited $RC, expected 69"
expect_in worker.err "is a new cluster (cluster id"
kill -TERM "${POD[head]}"
finish head 40
expect_clean
echo PASS
