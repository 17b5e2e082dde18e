#!/usr/bin/env bash
# A command that leaves 1,000 orphans behind leaves no zombie: raylaunch reaps them as PID 1 of
# a PID namespace (as in a container: `unshare --pid --fork --mount-proc`) and, when it is not
# PID 1, as a child subreaper (PR_SET_CHILD_SUBREAPER).
source "$(dirname "$0")/../support/run_lib.sh"
ports
export ORPHANS_REPORT=$WORK/zombies

# As a subreaper: the orphans' parent is raylaunch itself.
pod sub $(loopback_env) -- run -- sh -c 'exec make_orphans 1000 "$PPID"'
finish sub 60
expect_rc 0 "subreaper run"
[[ "$(cat "$WORK/zombies")" == 0 ]] || fail "as subreaper: $(cat "$WORK/zombies") zombies left"

# As PID 1 of its own PID namespace.
if [[ $(id -u) -eq 0 ]] && unshare --pid --fork --mount-proc true 2>/dev/null; then
  mkdir -p "$WORK/pid1"
  env HOSTNAME=pid1 RAY_TMPDIR="$WORK/pid1" $(loopback_env) \
    unshare --pid --fork --mount-proc "$RAYLAUNCH_BIN" run -- make_orphans 1000 1 >"$WORK/pid1.out" 2>"$WORK/pid1.err" &
  PIDS+=($!)
  POD[pid1]=$!
  finish pid1 60
  expect_rc 0 "PID 1 run"
  [[ "$(cat "$WORK/zombies")" == 0 ]] || fail "as PID 1: $(cat "$WORK/zombies") zombies left"
  expect_in pid1.err "exiting 0: command exited with 0"
else
  echo "note: not root or no PID namespaces here: the PID 1 half was skipped"
fi
expect_clean
echo PASS
