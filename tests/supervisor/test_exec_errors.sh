#!/usr/bin/env bash
# A command that cannot be executed says so, with the shell's code (126) and the reason, on
# both paths: spawned (the default) and exec'd in place (--exec) — never a silent "exited with
# 1", never a PID 1 left spinning and deaf after a failed execve. Mistakes that can be seen
# before anything starts (a #! interpreter that does not exist, a CRLF #! line) fail at second 0.
# Failure × path (spawn, --exec).
source "$(dirname "$0")/../support/run_lib.sh"
ports

printf 'echo this script has no #! line\n' >"$WORK/no-shebang"
printf '#!/bin/sh\necho busy\n' >"$WORK/busy"
printf '#!/bin/sh\r\necho crlf\r\n' >"$WORK/crlf"
printf '#!/no/such/interpreter\n' >"$WORK/no-interpreter"
chmod +x "$WORK/no-shebang" "$WORK/busy" "$WORK/crlf" "$WORK/no-interpreter"

# check NAME REASON: the pod exited 126 with REASON in its log and its termination message.
check() {
  expect_rc 126 "$1"
  expect_in "$1.err" "$2"
  expect_in termination-log "$2"
  expect_not_in "$1.err" "command exited with 1"
}

for path in spawn exec; do
  exec_env=()
  [[ $path == exec ]] && exec_env=(RAYLAUNCH_EXEC=true)

  # A script without #!: execve says ENOEXEC (a shell would run it with /bin/sh; raylaunch runs no shell).
  pod "enoexec-$path" $(loopback_env) "${exec_env[@]}" -- run -- "$WORK/no-shebang"
  finish "enoexec-$path" 40
  check "enoexec-$path" "no-shebang: not an executable format (a script without a #! line?"
  expect_clean

  # A script open for writing: ETXTBSY.
  exec 7>>"$WORK/busy"
  pod "etxtbsy-$path" $(loopback_env) "${exec_env[@]}" -- run -- "$WORK/busy"
  finish "etxtbsy-$path" 40
  exec 7>&-
  check "etxtbsy-$path" "busy: text file busy (the file is open for writing)"
  expect_clean

  # Seen before anything starts: no `ray start` is recorded.
  rm -f "$FAKE_RAY_RECORD_DIR"/ray-start-*
  pod "crlf-$path" $(loopback_env) "${exec_env[@]}" -- run -- "$WORK/crlf"
  finish "crlf-$path" 20
  check "crlf-$path" 'its #! interpreter "/bin/sh\r" has a CRLF line end'
  pod "interp-$path" $(loopback_env) "${exec_env[@]}" -- run -- "$WORK/no-interpreter"
  finish "interp-$path" 20
  check "interp-$path" 'its #! interpreter "/no/such/interpreter" does not exist in this image'
  ! ls "$FAKE_RAY_RECORD_DIR"/ray-start-* >/dev/null 2>&1 || fail "ray start ran although the command could not"
done

# After a failed exec in place raylaunch is still itself: it stops Ray's processes (which
# outlive `ray start` without --block) with `ray stop`, whose output it relays, and exits.
pod stops $(loopback_env) RAYLAUNCH_EXEC=true -- run -- "$WORK/no-shebang"
finish stops 40
expect_rc 126 "exec failure, then Ray stopped"
expect_in stops.err "of Ray's processes outlived ray start: running \`ray stop\` as a fallback"
expect_in stops.err "ray stop: Stopped all 2 Ray processes."
expect_clean
echo PASS
