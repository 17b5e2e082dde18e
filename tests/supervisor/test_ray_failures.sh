#!/usr/bin/env bash
# Ray failing: `ray start` exits non-zero before the cluster is up (69, its last output lines in
# the log and the termination message); Ray dies while the command runs (the command is
# stopped with its grace, 69, the reason logged); `ray start` ignoring SIGTERM is killed after
# the ray-stop grace; the join barrier timing out (75, the missing pod named).
source "$(dirname "$0")/../support/run_lib.sh"
ports

pod a $(loopback_env) FAKE_RAY_FAIL_START=3 -- run -- true
finish a
expect_rc 69 "ray start failing"
expect_in a.err "exiting 69: ray start exited with 3 while Ray was starting"
grep -q "ray start exited with 3 while Ray was starting: .*" "$WORK/termination-log" ||
  fail "termination message lacks ray's output: $(cat "$WORK/termination-log")"
# Ray's tab-separated log line, escaped once (\t), not twice (\\t), in the message and the log.
grep -qF ',000\tERROR services.py:1' "$WORK/termination-log" ||
  fail "Ray's tab not escaped once in the termination message: $(cat "$WORK/termination-log")"
grep -qF ',000\tERROR services.py:1' "$WORK/a.err" || fail "Ray's tab not escaped once in the log"
if grep -qF '\\t' "$WORK/termination-log" "$WORK/a.err"; then fail "a tab escaped twice"; fi
expect_clean

export PRINT_SIGNALS_TO=$WORK/signals
# The raylet dies 5 s after it started: time for the barrier and the command (a TSan build is slow).
pod b $(loopback_env) FAKE_RAY_DIE_AFTER=5 -- run -- print_signals
finish b 30
expect_rc 69 "Ray died under the command"
expect_in signals "signal 15"
expect_in b.err "Ray died while the command ran (ray start exited with 1)"
expect_clean

pod c $(loopback_env) FAKE_RAY_IGNORE_SIGTERM=1 RAYLAUNCH_RAY_STOP_GRACE=1s -- run -- true
finish c 30
expect_rc 0 "ray start ignoring SIGTERM"
expect_in c.err "ray start did not stop within 1s: SIGKILL to its group"
expect_clean

pod training-0 $(loopback_env) RAYLAUNCH_NODES=3 RAYLAUNCH_JOIN_TIMEOUT=2s -- run -- true
finish training-0 30
expect_rc 75 "join timeout"
expect_in termination-log "join timed out after 2s: 1/3 nodes alive; missing: training-1, training-2"
expect_clean
echo PASS
