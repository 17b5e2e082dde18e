#!/usr/bin/env bash
# A worker's resident readiness (`run --health-port`, GET /readyz) asks the head's GCS by node id
# once it knows its node (issue 26 item 13): on Ray 2.49+ an id is a map lookup on the GCS, a
# name a scan of every row (gcs_node_manager.cc HandleGetAllNodeInfo). The fake GCS counts the
# lookups and the rows Ray's handler would visit. Its row gone DEAD, the next answer asks by name
# again (a new raylet of the pod registers a new id). On 2.36-2.48 both are scans: by name stays.
# The head watch is off here: it asks by name until found, then by id, on its own.
source "$(dirname "$0")/../support/run_lib.sh"

# case_up VERSION: a head and a worker with a health endpoint; sets CONTROL (the head's fake GCS).
case_up() {
  local version=$1
  ports
  WORKER_NM=$(free_port)
  WORKER_HEALTH=$(free_port)
  local common="RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$RAY_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT"
  pod head-$version $common RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT FAKE_RAY_VERSION=$version HOSTNAME=training-0 \
      RAYLAUNCH_TERMINATION_LOG=$WORK/head-$version.term -- run -- sleep 600
  pod worker-$version $common RAYLAUNCH_NODE_MANAGER_PORT=$WORKER_NM RAYLAUNCH_HEALTH_PORT=$WORKER_HEALTH \
      RAYLAUNCH_HEAD_WATCH=off HOSTNAME=training-1 RAYLAUNCH_TERMINATION_LOG=$WORK/worker-$version.term \
      -- run -- ignored-on-workers
  poll 30 grep -q "Ray runtime started" "$WORK/worker-$version.err"
  wait_text head-$version.err "2/2 nodes alive after"  # the head's barrier polls no more
  CONTROL=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["gcs_control"])' \
            "$WORK/head-$version/ray/session_latest/fake_ray.json")
  poll 20 sh -c "[ \"\$($PY -c 'import urllib.request,sys
try: print(urllib.request.urlopen(\"http://127.0.0.1:$WORKER_HEALTH/readyz\", timeout=2).status)
except Exception as e: print(getattr(e, \"code\", 0))' 2>/dev/null)\" = 200 ]"
}
stat_of() { "$FAKE_GCS" ctl --control "unix:$CONTROL" stats | sed -n "s/^$1=//p"; }
# ready_answers N: N fresh /readyz answers (the endpoint keeps one for up to a second), all 200.
ready_answers() {
  local i
  for ((i = 0; i < $1; i++)); do
    sleep 1.1
    [[ "$(http "$WORKER_HEALTH" /readyz)" == "200 ok: training-1 is ALIVE in the head GCS at "* ]] ||
      fail "readyz: $(http "$WORKER_HEALTH" /readyz)"
  done
}
case_down() {
  kill -TERM "${POD[worker-$1]}" "${POD[head-$1]}"
  finish worker-$1 30
  finish head-$1 30
}

# 1. Ray 2.60: after the first answer, by id only; each costs the GCS one row, not the table.
case_up 2.60.0
"$FAKE_GCS" ctl --control "unix:$CONTROL" fill 50 filler >/dev/null  # a bigger table to scan
by_name=$(stat_of lookups_by_name) by_id=$(stat_of lookups_by_id) scanned=$(stat_of rows_scanned)
ready_answers 3
(( $(stat_of lookups_by_name) == by_name )) || fail "readiness asked by name again ($by_name → $(stat_of lookups_by_name))"
(( $(stat_of lookups_by_id) - by_id >= 3 )) || fail "readiness did not ask by id ($by_id → $(stat_of lookups_by_id))"
(( $(stat_of rows_scanned) - scanned <= 3 )) || fail "the GCS scanned $(( $(stat_of rows_scanned) - scanned )) rows for 3 answers"

# Its row DEAD (the GCS gave up on the raylet), then a new row (the raylet registered again): the
# answer says DEAD, then ready again from the new row, found by name.
"$FAKE_GCS" ctl --control "unix:$CONTROL" kill training-1 >/dev/null
sleep 1.1
[[ "$(http "$WORKER_HEALTH" /readyz)" == "503 training-1 is DEAD in the head GCS at "* ]] ||
  fail "readyz, row DEAD: $(http "$WORKER_HEALTH" /readyz)"
"$FAKE_GCS" ctl --control "unix:$CONTROL" add training-1 >/dev/null
ready_answers 1
case_down 2.60.0

# 2. Ray 2.40: an id is no cheaper than a name there (Filters are applied row by row): by name.
case_up 2.40.0
by_name=$(stat_of lookups_by_name) by_id=$(stat_of lookups_by_id)
ready_answers 2
(( $(stat_of lookups_by_name) - by_name >= 2 )) || fail "2.40: readiness stopped asking by name"
(( $(stat_of lookups_by_id) == by_id )) || fail "2.40: readiness asked by id"
case_down 2.40.0
echo PASS
