#!/usr/bin/env bash
# --exec: after the barrier raylaunch replaces itself with the command (same pid); `ray start`
# ran without --block and left no child behind to reap.
source "$(dirname "$0")/../support/run_lib.sh"
ports
pod e $(loopback_env) RAYLAUNCH_EXEC=true -- run -- sh -c 'echo $$ > "$0"; exit 7' "$WORK/pid"
finish e
expect_rc 7 "exec'd command's status"
[[ "$(cat "$WORK/pid")" == "${POD[e]}" ]] || fail "the command ran as pid $(cat "$WORK/pid"), raylaunch was ${POD[e]}"
argv=$(record argv)
[[ "$argv" != *'"--block"'* ]] || fail "ray start ran with --block under --exec: $argv"
expect_in e.err "replacing raylaunch with the command (--exec)"
# Ray's processes outlive it by design (the command owns the node now): stop them here.
RAY_TMPDIR=$WORK/e ray stop --force >/dev/null 2>&1 || true
expect_clean

# A command that cannot be executed is refused before anything starts, --exec or not.
pod f $(loopback_env) RAYLAUNCH_EXEC=true -- run -- /nonexistent/program
finish f
expect_rc 127 "exec of a missing program"
echo PASS
