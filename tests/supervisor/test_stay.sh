#!/usr/bin/env bash
# --on-success stay (the StatefulSet mode): after the command exits 0 the head keeps Ray up, the
# probes stay healthy and nothing reruns, until SIGTERM, then it exits 0. A failure still exits.
source "$(dirname "$0")/../support/run_lib.sh"
ports
pod s $(loopback_env) RAYLAUNCH_ON_SUCCESS=stay RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT -- run -- sh -c 'echo ran >> "$0"' "$WORK/ran"
wait_text s.err "staying up (--on-success stay)"
sleep 1
kill -0 "${POD[s]}" || fail "raylaunch exited after success with stay"
[[ "$(wc -l <"$WORK/ran")" == 1 ]] || fail "the command ran $(wc -l <"$WORK/ran") times"
[[ "$(http "$HEALTH_PORT" /livez)" == "200 ok: the command succeeded; staying up (--on-success stay)" ]] ||
  fail "livez while staying: $(http "$HEALTH_PORT" /livez)"
[[ "$(http "$HEALTH_PORT" /readyz)" == "200 ok: head GCS at 127.0.0.1:$RAY_PORT answered"* ]] ||
  fail "readyz while staying: $(http "$HEALTH_PORT" /readyz)"
kill -TERM "${POD[s]}"
finish s 20
expect_rc 0 "SIGTERM after success"
expect_in termination-log "the command had succeeded; stopped by SIGTERM while staying up"
expect_clean

pod f $(loopback_env) RAYLAUNCH_ON_SUCCESS=stay -- run -- sh -c 'exit 4'
finish f
expect_rc 4 "a failure exits even with stay"
expect_clean
echo PASS
