#!/usr/bin/env bash
# Every forwarded signal reaches the command (SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2: it keeps
# running); SIGTERM and SIGINT end the run in every phase with 128+N and nothing left:
# while a worker waits for its head (nothing started), during the join barrier, during the
# command (forwarded, the command exits itself), and with a command that ignores SIGTERM
# (SIGKILL to its group after the term grace).
source "$(dirname "$0")/lib.sh"
ports
export PRINT_SIGNALS_TO=$WORK/signals

# Forwarded signals.
pod h $(loopback_env) -- run -- print_signals
poll 20 grep -q ready "$WORK/signals"
for sig in HUP QUIT USR1 USR2; do
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

# SIGINT, like Ctrl-C in `docker run -it`.
: >"$WORK/signals"
pod i $(loopback_env) -- run -- print_signals
poll 20 grep -q ready "$WORK/signals"
kill -INT "${POD[i]}"
finish i
expect_rc 130 "SIGINT during the command"
expect_clean

# A command that ignores SIGTERM: SIGKILL after the grace (1 s here), then Ray is stopped.
pod j $(loopback_env) RAYLAUNCH_TERM_GRACE=1s -- run -- sh -c 'trap "" TERM; echo ready > "$0"; while :; do sleep 0.1; done' "$WORK/stubborn"
poll 20 test -s "$WORK/stubborn"
kill -TERM "${POD[j]}"
finish j 20
expect_rc 143 "SIGTERM to a stubborn command"
expect_in j.err "did not exit within the term grace (1s): SIGKILL to its group"
expect_clean

# During the join barrier: 2 nodes expected, only the head joins.
pod training-0 $(loopback_env) RAYLAUNCH_NODES=2 -- run -- true
wait_text training-0.err "1/2 nodes alive"
kill -TERM "${POD[training-0]}"
finish training-0 20
expect_rc 143 "SIGTERM during the barrier"
expect_in training-0.err "stopped by SIGTERM during the join barrier"
expect_clean

# A worker waiting for a head that never comes: nothing was started.
pod training-1 RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$(free_port) \
  RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT -- run
wait_text training-1.err "waiting for the head GCS"
kill -TERM "${POD[training-1]}"
finish training-1 10
expect_rc 143 "SIGTERM while waiting for the head"
expect_in training-1.err "stopped by SIGTERM while waiting for the head; nothing was started"
expect_clean
echo PASS
