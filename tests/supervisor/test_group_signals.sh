#!/usr/bin/env bash
# The command's whole process group, not just its leader: a trainer wrapped in a shell that does
# not exec (`bash -c '…; python train.py'`) sees SIGTERM and keeps its grace when bash dies at
# once; a launcher that forwards to its own workers (torchrun) gets it once; what a command that
# exited on its own left in its group gets SIGTERM and the grace (SIGKILL only after it); a
# daemon the command double-forked is stopped the same way at the end and outlives nothing; a
# group whose last member is not raylaunch's child is seen empty all the same.
# Child kind × forwarding mode (RAYLAUNCH_FORWARD_SIGNALS=group|leader).
source "$(dirname "$0")/../support/run_lib.sh"
ports
export PRINT_SIGNALS_TO=$WORK/trainer PRINT_SIGNALS_LINGER=1  # the trainer's checkpoint takes a second

# A wrapped trainer: bash runs print_signals as a child and then something else (no exec).
for mode in group leader; do
  : >"$WORK/trainer"
  pod "w-$mode" $(loopback_env) RAYLAUNCH_FORWARD_SIGNALS=$mode RAYLAUNCH_TERM_GRACE=30s -- \
    run -- bash -c 'print_signals; echo "trainer exited $?"'
  poll 20 grep -q ready "$WORK/trainer"
  kill -TERM "${POD[w-$mode]}"
  finish "w-$mode" 40
  expect_rc 143 "SIGTERM to a wrapped trainer ($mode)"
  expect_in trainer "signal 15"  # it saw SIGTERM: it could checkpoint
  expect_in trainer "exit 143"   # and finished within the grace, not SIGKILLed
  expect_not_in "w-$mode.err" "did not exit within the term grace"
  if [[ $mode == group ]]; then
    expect_in "w-$mode.err" "sending SIGTERM to the command (process group"
    expect_in "w-$mode.err" "of its group still run, with the rest of the term grace"
  else
    expect_in "w-$mode.err" "of its group still run: SIGTERM to them, SIGKILL after the term grace"
  fi
  expect_clean
done

# A launcher that forwards to its workers itself (torchrun: workers in sessions of their own):
# the worker gets SIGTERM exactly once.
: >"$WORK/trainer"
pod t $(loopback_env) -- run -- session_launcher
poll 20 grep -q ready "$WORK/trainer"
kill -TERM "${POD[t]}"
finish t 40
expect_rc 143 "SIGTERM to a torchrun-like launcher"
[[ $(grep -c "^signal 15" "$WORK/trainer") == 1 ]] || fail "the worker got SIGTERM $(grep -c "^signal 15" "$WORK/trainer") times"
expect_in trainer "exit 143"
expect_clean

# A command that succeeds but leaves a process in its group: SIGTERM, its grace, exit 0.
: >"$WORK/trainer"
pod s $(loopback_env) -- run -- sh -c \
  'print_signals & until grep -q ready "$PRINT_SIGNALS_TO" 2>/dev/null; do sleep 0.05; done; exit 0'
finish s 40
expect_rc 0 "a successful command's leftover"
expect_in trainer "signal 15"
expect_in trainer "exit 143"
expect_in s.err "the command exited; 1 process of its group still run: SIGTERM to them, SIGKILL after the term grace"
expect_clean

# ... and one that ignores SIGTERM: SIGKILL when the grace (1 s) ends, then Ray is stopped.
pod k $(loopback_env) RAYLAUNCH_TERM_GRACE=1s -- run -- sh -c \
  '(trap "" TERM; echo ready >"$0"; while :; do sleep 0.1; done) & until test -s "$0"; do sleep 0.05; done' \
  "$WORK/stubborn"
finish k 40
expect_rc 0 "a stubborn leftover"
expect_in k.err "the command's process group did not exit within the term grace (1s): SIGKILL to what is left"
expect_clean

# A daemon the command double-forked (a session of its own): not Ray's, so no `ray stop` for it;
# it gets SIGTERM and the grace at the end, and does not outlive raylaunch (not PID 1 here).
: >"$WORK/daemon"
pod d $(loopback_env) -- run -- sh -c 'daemonize "$0"; until grep -q ready "$0"; do sleep 0.05; done' "$WORK/daemon"
finish d 40
expect_rc 0 "a daemon left behind"
expect_in daemon "signal 15"
expect_in d.err "1 process outlived the command and Ray (pid "
expect_not_in d.err "outlived ray start"
expect_clean

# The group's last member is not raylaunch's child (its parent lives on outside the group): the
# group is seen empty by looking, once a second, not by a SIGCHLD that never comes.
: >"$WORK/trainer"
pod g $(loopback_env) RAYLAUNCH_TERM_GRACE=120s -- run -- join_group
finish g 60
expect_rc 0 "a group emptied behind raylaunch's back"
expect_in trainer "signal 15"
expect_not_in g.err "did not exit within the term grace"
expect_clean
echo PASS
