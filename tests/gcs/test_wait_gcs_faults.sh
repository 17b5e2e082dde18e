#!/usr/bin/env bash
# wait survives a GCS that comes up late, restarts mid-wait (forgetting its table, as a GCS
# without Redis does), answers UNAVAILABLE, or is too slow (DEADLINE_EXCEEDED).
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0

# 1. The GCS comes up 1.5 s after wait starts.
port=$(free_port)
bg late "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$port" --nodes 2 --timeout 30s
wait_text late.err "not answering: UNAVAILABLE"
start_gcs late --port "$port"
ctl add training-0 --head >/dev/null
ctl add training-1 >/dev/null
join late
expect_rc 0 "wait with a late GCS"
expect_in late.err "GCS at 127.0.0.1:$port: not answering: UNAVAILABLE"
expect_in late.err "2/2 nodes alive after"

# 2. The GCS restarts mid-wait and comes back empty; the raylets re-register.
start_gcs restart
ctl add training-0 --head >/dev/null
ctl add training-1 >/dev/null
bg rs "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 3 --timeout 30s
wait_text rs.err "2/3 nodes alive; missing: training-2"
ctl restart 1500 --wipe >/dev/null
wait_text rs.err "not answering: UNAVAILABLE"
sleep 2  # the restart lasts 1.5 s; the raylets re-register after it
for i in 0 1 2; do ctl add "training-$i" >/dev/null; done
join rs
expect_rc 0 "wait across a GCS restart"
expect_in rs.err "2/3 nodes alive; missing: training-2"
expect_in rs.err "not answering: UNAVAILABLE"
expect_in rs.err "3/3 nodes alive after"

# 3. Injected UNAVAILABLE answers, then a healthy GCS.
start_gcs unavail
ctl add training-0 --head >/dev/null
ctl fault unavailable 4 >/dev/null
run un "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 1 --timeout 30s
expect_rc 0 "wait after injected UNAVAILABLE"
expect_in un.err "not answering: UNAVAILABLE: fake GCS: injected UNAVAILABLE"

# 4. A GCS slower than the 5 s per-RPC deadline: DEADLINE_EXCEEDED, retried, then it recovers.
ctl fault delay 7000 >/dev/null
bg slow "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 1 --timeout 30s
wait_text slow.err "not answering: DEADLINE_EXCEEDED"
ctl fault delay 0 >/dev/null
join slow
expect_rc 0 "wait after DEADLINE_EXCEEDED"
expect_in slow.err "not answering: DEADLINE_EXCEEDED"

# 5. Still slow at the deadline: unreachable, exit 69.
ctl fault delay 5000 >/dev/null
run slow2 "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 1 --timeout 1s
expect_rc 69 "wait with a GCS slower than the deadline"
expect_in slow2.err "raylaunch: error: GCS at 127.0.0.1:$GCS_PORT unreachable at the 1s deadline: DEADLINE_EXCEEDED"
echo "PASS"
