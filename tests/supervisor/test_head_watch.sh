#!/usr/bin/env bash
# A worker's head watch against the FAKE GCS, what it asks per look by Ray release (issue 26 item
# 13): on Ray 2.49 and later its own row by id alone once settled (a map lookup on the GCS: Ray's
# node_selectors; the cluster id only when the row is not ALIVE), on
# 2.36-2.48 the cluster id only — there Ray's GetAllNodeInfo filters its whole table row by row,
# so N watchers looking up one row each would cost the GCS O(N²) every 2 s. Counted on the fake
# GCS (its per-method call counts), after the watch has settled.
source "$(dirname "$0")/../support/run_lib.sh"

# watch_case VERSION: a head playing Ray VERSION and a watching worker; sets CTL (the fake GCS's
# control client) once the worker's watch runs.
watch_case() {
  local version=$1
  ports
  local common="RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$RAY_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT FAKE_RAY_VERSION=$version"
  pod head-$version $common RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT HOSTNAME=training-0 -- run -- sleep 600
  pod worker-$version $common RAYLAUNCH_NODE_MANAGER_PORT=$(free_port) RAYLAUNCH_HEAD_WATCH=500ms HOSTNAME=training-1 -- run
  wait_text worker-$version.err "watching the head: cluster"
  poll 30 grep -q "Ray runtime started" "$WORK/worker-$version.err"
  local control
  control=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["gcs_control"])' \
            "$WORK/head-$version/ray/session_latest/fake_ray.json")
  CTL=("$FAKE_GCS" ctl --control "unix:$control")
}
calls() { "${CTL[@]}" stats | sed -n "s/^calls\.$1=//p" | grep . || echo 0; }
looks_at_least() { (($(calls GetClusterId) >= $1)); }
stop_case() {
  kill -TERM "${POD[worker-$1]}" "${POD[head-$1]}"
  finish "worker-$1" 40
  finish "head-$1" 40
}

# Ray 2.40: the cluster id alone, said once.
watch_case 2.40.0
wait_text worker-2.40.0.err "cannot look a node up by id without scanning its table: the watch reads the cluster id only"
wait_text head-2.40.0.err "2/2 nodes alive"  # the head's barrier, which reads the table, is done
"${CTL[@]}" reset-stats >/dev/null
poll 30 looks_at_least 6
[[ $(calls GetAllNodeInfo) == 0 ]] || fail "the watch asked Ray 2.40 for rows $(calls GetAllNodeInfo) times in $(calls GetClusterId) looks"
[[ $(grep -c "cannot look a node up by id" "$WORK/worker-2.40.0.err") == 1 ]] || fail "said more than once"
stop_case 2.40.0

# Ray 2.60: once settled, its own row by id alone each look (one RPC); the cluster id is asked
# again only when the row is not ALIVE.
watch_case 2.60.0
wait_text worker-2.60.0.err "watching the head: training-1 is node"
wait_text head-2.60.0.err "2/2 nodes alive"
"${CTL[@]}" reset-stats >/dev/null
rows_at_least() { (($(calls GetAllNodeInfo) >= $1)); }
poll 30 rows_at_least 6
[[ $(calls GetClusterId) == 0 ]] || fail "the settled watch asked Ray 2.60 for the cluster id $(calls GetClusterId) times in $(calls GetAllNodeInfo) looks"
expect_not_in worker-2.60.0.err "the watch reads the cluster id only"
stop_case 2.60.0
expect_clean
echo PASS
