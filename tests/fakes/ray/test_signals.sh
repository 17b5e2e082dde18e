#!/usr/bin/env bash
# `ray start --block` and signals, as Ray's: SIGTERM stops every process it started (raylet
# first) and exits 1; SIGINT does the same through click ("Aborted!", exit 1); a `ray start` stuck
# on SIGTERM (FAKE_RAY_IGNORE_SIGTERM=1) needs SIGKILL, and then its children die with it
# (PR_SET_PDEATHSIG=SIGKILL), leaving nothing behind.
source "$(dirname "$0")/testlib.sh"

head_pids() { echo "$(info "$1" pids.gcs_server) $(info "$1" pids.raylet)"; }

# SIGTERM on a head: GCS and raylet gone, exit 1.
blocking_head h1
pids=$(head_pids h1)
kill -TERM "${POD_PID[h1]}"
exits_within 10 h1
expect_rc 1 "SIGTERM"
for p in $pids; do gone "$p" || fail "pid $p survived SIGTERM to ray start"; done
expect_no_procs "SIGTERM"

# SIGINT: click's Abort.
blocking_head h2
kill -INT "${POD_PID[h2]}"
exits_within 10 h2
expect_rc 1 "SIGINT"
expect_in h2.out "Aborted!"
expect_no_procs "SIGINT"

# SIGTERM during start-up (before the raylet is up): what was started is stopped, exit 1.
port=$(free_port)
pod h3 -- start --head --port="$port" --block
poll 10 test -e "$WORK/h3/ray/session_latest/gcs_server.port"
kill -TERM "${POD_PID[h3]}"
exits_within 10 h3
expect_rc 1 "SIGTERM during start-up"
expect_no_procs "SIGTERM during start-up"

# Signals Ray's CLI does not handle (SIGHUP, SIGUSR1, ...) kill it; its children die with it.
blocking_head h5
pids=$(head_pids h5)
kill -USR1 "${POD_PID[h5]}"
exits_within 5 h5
expect_rc 138 "SIGUSR1"
for p in $pids; do poll 5 gone "$p"; done
expect_no_procs "SIGUSR1"

# A ray start that ignores SIGTERM: still running after it, SIGKILL takes everything down.
FAKE_RAY_IGNORE_SIGTERM=1 blocking_head h4
pids=$(head_pids h4)
kill -TERM "${POD_PID[h4]}"
poll 5 grep -qF "SIGTERM ignored" "$WORK/h4.out"
sleep 1
! gone "${POD_PID[h4]}" || fail "FAKE_RAY_IGNORE_SIGTERM: ray start exited on SIGTERM"
for p in $pids; do ! gone "$p" || fail "FAKE_RAY_IGNORE_SIGTERM: child $p stopped on SIGTERM"; done
kill -KILL "${POD_PID[h4]}"
exits_within 5 h4
expect_rc 137 "SIGKILL"
for p in $pids; do poll 5 gone "$p"; done
expect_no_procs "SIGKILL to ray start --block (PR_SET_PDEATHSIG)"
echo "PASS"
