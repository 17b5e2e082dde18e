#!/usr/bin/env bash
# status: the node table as text and JSON (name, IP, state, head, node id, start time, death
# reason), the ALIVE count deduplicated by pod, and exit 69 when the GCS cannot answer.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0

start_gcs status --ray-version 2.44.0
head_id=$(ctl add training-0 --head --ip 10.0.0.10 | cut -d' ' -f1)
ctl add training-1 --ip 10.0.0.11 >/dev/null
ctl add training-2 --ip 10.0.0.12 >/dev/null
ctl kill training-2 --why "health check failed" >/dev/null
ctl add training-1 --ip 10.0.0.21 >/dev/null   # restarted pod: stale ALIVE row remains
addr="127.0.0.1:$GCS_PORT"

run t "$RAYLAUNCH_BIN" status --address "$addr"
expect_rc 0 "status text"
expect_in t.out "NODE NAME"
expect_in t.out "training-0  10.0.0.10:6380   ALIVE  yes   $head_id"
expect_in t.out "UNEXPECTED_TERMINATION: health check failed"
expect_in t.out "2 alive (3 ALIVE rows), 1 dead; counted once despite a stale ALIVE row: training-1"

RAYLAUNCH_OUTPUT=json run j "$RAYLAUNCH_BIN" status --address "$addr"
expect_rc 0 "status json"
/usr/bin/python3 - "$WORK/j.out" "$head_id" <<'PY' || fail "JSON shape"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["alive"] == 2 and d["alive_entries"] == 3 and d["dead"] == 1 and d["total"] == 4, d
nodes = d["nodes"]
assert [n["state"] for n in nodes] == ["ALIVE", "ALIVE", "ALIVE", "DEAD"], nodes
head = nodes[0]
assert head["node_name"] == "training-0" and head["is_head"] is True and head["node_id"] == sys.argv[2]
assert head["address"] == "10.0.0.10" and head["node_manager_port"] == 6380 and head["start_time_ms"] > 0
assert len(head["node_id"]) == 56
dead = nodes[3]
assert dead["node_name"] == "training-2" and dead["end_time_ms"] >= dead["start_time_ms"] > 0
assert dead["death_reason"] == "UNEXPECTED_TERMINATION: health check failed"
for n in nodes:
    assert set(n) >= {"node_name", "address", "state", "is_head", "node_id"}
PY

# A GcsStatus error inside an OK reply is an error, not an empty table.
ctl fault status 4 >/dev/null
run e "$RAYLAUNCH_BIN" status --address "$addr"
expect_rc 69 "status with a GcsStatus error"
expect_in e.err "raylaunch: error: GCS at $addr replied with an error: GCS status 4: fake GCS: injected status"
ctl fault status 0 >/dev/null

ctl stop >/dev/null
run d "$RAYLAUNCH_BIN" status --address "$addr"
expect_rc 69 "status with the GCS down"
expect_in d.err "raylaunch: error: GCS at $addr did not answer: UNAVAILABLE"
echo "PASS"
