#!/usr/bin/env bash
# Signals × phases, after dumb-init's matrix. Every forwarded signal (SIGHUP, SIGQUIT, SIGUSR1,
# SIGUSR2, SIGWINCH, SIGCONT, SIGALRM) reaches the command, which keeps running, and never
# `ray start`, which would die of it (the fake ray dies of SIGHUP, SIGUSR1, …, as Ray's CLI
# does): during the join barrier they change nothing. SIGTERM and
# SIGINT end the run with 128+N and nothing left in every phase: while a worker waits for its
# head (nothing started), during the join barrier, during the command (forwarded; it exits
# itself), with a command that ignores SIGTERM (SIGKILL to its group after the term grace).
# The child kinds (a wrapped trainer, a launcher that forwards itself, leftovers, daemons) are
# test_group_signals.sh's; the effects of each event, the Lifecycle's unit matrix.
source "$(dirname "$0")/../support/run_lib.sh"
ports
export PRINT_SIGNALS_TO=$WORK/signals

# Forwarded signals, while the command runs.
pod h $(loopback_env) -- run -- print_signals
poll 20 grep -q ready "$WORK/signals"
for sig in HUP QUIT USR1 USR2 WINCH CONT ALRM; do
  num=$(kill -l "$sig")
  kill -"$sig" "${POD[h]}"
  poll 10 grep -qx "signal $num" "$WORK/signals"
done
kill -TERM "${POD[h]}"
finish h
expect_rc 143 "SIGTERM during the command"
expect_in signals "signal 15"
expect_in h.err "stopped by SIGTERM while the command ran"
expect_clean

# Not to ray start: during the join barrier (2 nodes expected, only the head joins) Ray lives on.
pod quiet-0 $(loopback_env) RAYLAUNCH_NODES=2 -- run -- true
wait_text quiet-0.err "1/2 nodes alive"
for sig in HUP QUIT USR1 USR2 ALRM; do
  kill -"$sig" "${POD[quiet-0]}"
  wait_text quiet-0.err "SIG$sig not forwarded: only the launch command gets it"
done
kill -0 "${POD[quiet-0]}" 2>/dev/null || fail "raylaunch exited after a signal it should only have logged"
kill -TERM "${POD[quiet-0]}"
finish quiet-0 20
expect_rc 143 "SIGTERM during the barrier, after signals that are not forwarded"
expect_in quiet-0.err "stopped by SIGTERM during the join barrier"
expect_not_in quiet-0.err "ray start exited"
expect_not_in quiet-0.err "ray start killed"
expect_clean

for sig in TERM INT; do
  num=$(kill -l "$sig")
  code=$((128 + num))

  # During the command: forwarded, the command exits itself.
  : >"$WORK/signals"
  pod "cmd-${sig,,}" $(loopback_env) -- run -- print_signals
  poll 20 grep -q ready "$WORK/signals"
  kill -"$sig" "${POD[cmd-${sig,,}]}"
  finish "cmd-${sig,,}"
  expect_rc "$code" "SIG$sig during the command"
  expect_in signals "exit $code"
  expect_clean

  # A command that ignores it: SIGKILL after the grace (1 s here), then Ray is stopped.
  rm -f "$WORK/stubborn"
  pod "stubborn-${sig,,}" $(loopback_env) RAYLAUNCH_TERM_GRACE=1s -- run -- \
    sh -c 'trap "" TERM INT; echo ready > "$0"; while :; do sleep 0.1; done' "$WORK/stubborn"
  poll 20 test -s "$WORK/stubborn"
  kill -"$sig" "${POD[stubborn-${sig,,}]}"
  finish "stubborn-${sig,,}" 20
  expect_rc "$code" "SIG$sig to a stubborn command"
  expect_in "stubborn-${sig,,}.err" "did not exit within the term grace (1s): SIGKILL to its group"
  expect_clean

  # During the join barrier: 2 nodes expected, only the head joins.
  pod training-0 $(loopback_env) RAYLAUNCH_NODES=2 -- run -- true
  wait_text training-0.err "1/2 nodes alive"
  kill -"$sig" "${POD[training-0]}"
  finish training-0 20
  expect_rc "$code" "SIG$sig during the barrier"
  expect_in training-0.err "stopped by SIG$sig during the join barrier"
  expect_clean
  rm -f "$WORK/training-0.err"

  # A worker waiting for a head that never comes: nothing was started.
  pod training-1 RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$(free_port) \
    RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT -- run
  wait_text training-1.err "waiting for the head GCS"
  kill -"$sig" "${POD[training-1]}"
  finish training-1 10
  expect_rc "$code" "SIG$sig while waiting for the head"
  expect_in training-1.err "stopped by SIG$sig while waiting for the head; nothing was started"
  expect_clean
  rm -f "$WORK/training-1.err"
done
echo PASS
