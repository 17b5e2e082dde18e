#!/usr/bin/env bash
# The head's exit code is the command's (tini's and dumb-init's matrix): 0, 1, 2, 126, 127, 255,
# 128+N for a command killed by signal N; Ray is stopped every time and nothing is left; and
# the termination message says how the command ended.
source "$(dirname "$0")/../support/run_lib.sh"
ports
i=0
check() {
  local want=$1
  shift
  i=$((i + 1))
  pod "solo$i" $(loopback_env) -- run -- "$@"
  finish "solo$i"
  expect_rc "$want" "command $*"
  expect_in "solo$i.err" "exiting $want: command "
  expect_in "solo$i.err" "sending SIGTERM to ray start"
  expect_clean
}
for code in 0 1 2 126 127 255; do
  check "$code" sh -c "exit $code"
done
check 137 sh -c 'kill -KILL $$'
check 143 sh -c 'kill -TERM $$'
check 138 sh -c 'kill -USR1 $$'
grep -qx "command killed by SIGUSR1 after [0-9.]*[a-z]*" "$WORK/termination-log" ||
  fail "termination message: $(cat "$WORK/termination-log")"
echo PASS
