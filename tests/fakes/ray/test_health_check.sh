#!/usr/bin/env bash
# The GCS health-checks raylets as Ray's GcsHealthCheckManager does: a raylet that dies without
# unregistering (SIGKILL) goes DEAD with UNEXPECTED_TERMINATION once its checks fail. A restarted
# pod (same node name, new node id) shows two ALIVE rows until then, which is what a join barrier
# must count once. Checks pause while the GCS is down. A `ray start --block` whose raylet is
# killed exits 1.
source "$(dirname "$0")/testlib.sh"
export FAKE_RAY_VERSION=2.30.0   # reason_message exists from 2.30
port=$(free_port)
gcs=127.0.0.1:$port

# Slow checks on this head (period 2 s, 3 failures): a window of 4-6 s in which the stale row is
# still ALIVE after its raylet died.
RAY_health_check_period_ms=2000 pod head -- start --head --port="$port" --node-name=training-0 --block
poll 20 started head

pod w1 -- start --address="$gcs" --node-name=training-1
finish w1
expect_rc 0 "worker ray start without --block"
old_id=$(info w1 node_id)
old_raylet=$(info w1 pids.raylet)
poll 10 count_rows "$gcs" "^ALIVE training-1 $old_id " 1

# The pod restarts: its raylet is gone without a word, a new one registers under the same name.
kill -KILL "$old_raylet"
pod w1b -- start --address="$gcs" --node-name=training-1
finish w1b
expect_rc 0 "restarted worker"
new_id=$(info w1b node_id)
[[ "$new_id" != "$old_id" ]] || fail "same node id after a restart"
count_rows "$gcs" "^ALIVE training-1 " 2 || fail "expected two ALIVE rows for training-1: $(nodes "$gcs")"
poll 15 count_rows "$gcs" \
  "^DEAD training-1 $old_id .* death=UNEXPECTED_TERMINATION \(health check failed due to missing too many heartbeats\)$" 1
count_rows "$gcs" "^ALIVE training-1 $new_id " 1 || fail "the new raylet is not ALIVE: $(nodes "$gcs")"
grep -q "Ray 2.30.0 GCS on port $port" "$WORK"/head/ray/session_latest/logs/gcs_server.err ||
  fail "FAKE_RAY_VERSION did not reach the GCS"
grep -q "node $old_id name=training-1 DEAD" "$WORK"/head/ray/session_latest/logs/gcs_server.err ||
  fail "the GCS log does not say why training-1 died"

# A GCS restart (with fault tolerance the table survives): checks pause while it is down and start
# over when it is back; the live raylet stays ALIVE. One stopped while the GCS was down (its
# UnregisterNode found no GCS) is found DEAD by the checks afterwards.
ctl() { "$FAKE_GCS" ctl --control "unix:$(info head gcs_control)" "$@" >/dev/null; }
pod w3 -- start --address="$gcs" --node-name=training-3
finish w3
ctl restart 1500
sleep 2.5
count_rows "$gcs" "^ALIVE training-1 $new_id " 1 || fail "a live raylet died across a GCS restart: $(nodes "$gcs")"
ctl stop
RAY_TMPDIR=$WORK/w3 "$RAY" stop >/dev/null
ctl start
poll 15 count_rows "$gcs" "^DEAD training-3 .* death=UNEXPECTED_TERMINATION" 1

# A raylet killed under `ray start --block`: the GCS marks it DEAD, ray start exits 1.
pod w2 -- start --address="$gcs" --node-name=training-2 --block
poll 20 started w2
kill -KILL "$(info w2 pids.raylet)"
exits_within 10 w2
expect_rc 1 "ray start --block after its raylet was killed"
expect_in w2.out "Some Ray subprocesses exited unexpectedly:"
expect_in w2.out "raylet [exit code=-9]"
expect_in w2.out "Remaining processes will be killed."
poll 15 count_rows "$gcs" "^DEAD training-2 .* death=UNEXPECTED_TERMINATION" 1
echo "PASS"
