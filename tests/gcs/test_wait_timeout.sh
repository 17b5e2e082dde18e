#!/usr/bin/env bash
# wait's exit codes: 75 with the missing pods named when the GCS answered; 69 when it was
# unreachable at the deadline; 64 for bad settings. The deadline is kept.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0

start_gcs timeout
ctl add training-0 --head >/dev/null
ctl add training-2 >/dev/null
start=$(now_ms)
run t "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 4 --timeout 2s
elapsed=$(( $(now_ms) - start ))
expect_rc 75 "join timeout"
[[ "$(grep -c 'raylaunch: error:' "$WORK/t.err")" == 1 ]] || fail "expected exactly one error line"
expect_in t.err "raylaunch: error: join timed out after 2s: 2/4 nodes alive; missing: training-1, training-3"
# It keeps trying until the deadline, and then stops (the bound is loose: a deadline, not speed).
(( elapsed >= 2000 && elapsed < 10000 )) || fail "timeout of 2 s took $elapsed ms"
# At most 4 polls per second (plus the first).
polls=$(counter calls.GetAllNodeInfo)
(( $(counter max_get_all_per_second) <= 4 )) || fail "more than 4 GetAllNodeInfo in one second"
(( polls <= 9 )) || fail "$polls polls in 2 s"

# Without the head's names (no -N hostname): counts, does not name.
HOSTNAME=debug-shell run t2 "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 3 --timeout 1s
expect_rc 75 "join timeout without names"
expect_in t2.err "join timed out after 1s: 2/3 nodes alive"
expect_not_in t2.err "missing:"

port=$(free_port)
start=$(now_ms)
run u "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$port" --nodes 2 --timeout 2s
elapsed=$(( $(now_ms) - start ))
expect_rc 69 "unreachable GCS"
expect_in u.err "raylaunch: error: GCS at 127.0.0.1:$port unreachable at the 2s deadline: UNAVAILABLE"
expect_in u.err "(it never answered)"
(( elapsed >= 2000 && elapsed < 10000 )) || fail "unreachable wait took $elapsed ms"

run bad "$RAYLAUNCH_BIN" wait --address "no-port" --nodes 2
expect_rc 64 "bad address"
expect_in bad.err "--address"
run bad2 "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$port" --nodes 2 --timeout soon
expect_rc 64 "bad timeout"
run bad3 "$RAYLAUNCH_BIN" wait everything --address "127.0.0.1:$port"
expect_rc 64 "bad wait target"
echo "PASS"
