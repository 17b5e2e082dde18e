#!/usr/bin/env bash
# Every Ray 2.x: the fake plays 2.9 (request ignored), 2.40 (2.36-2.48 layout) and 2.50 (2.49+
# layout) in strict mode, which rejects any GetAllNodeInfoRequest field the played version does not
# define and any CheckAlive that carries node ids. wait and status send a 0-byte request; the
# worker readiness probe learns the version from an empty CheckAlive and sends the one layout that
# version filters on: nothing on 2.9 (the whole table comes back), `filters` (field 4) on 2.40,
# `node_selectors` (field 2) on 2.50 — one row each on the last two.
source "$(dirname "$0")/lib.sh"

for version in 2.9.0 2.40.0 2.50.0; do
  start_gcs "v$version" --ray-version "$version" --strict-request
  ctl add training-0 --head >/dev/null
  ctl add training-1 >/dev/null
  ctl add training-2 >/dev/null
  ctl kill training-2 >/dev/null
  ctl reset-stats >/dev/null
  addr="127.0.0.1:$GCS_PORT"

  HOSTNAME=training-0 run "w$version" "$RAYLAUNCH_BIN" wait --address "$addr" --nodes 2 --timeout 10s
  expect_rc 0 "wait against Ray $version"
  HOSTNAME=training-0 run "s$version" "$RAYLAUNCH_BIN" status --address "$addr" --output json
  expect_rc 0 "status against Ray $version"
  expect_in "s$version.out" '"alive": 2,'
  expect_in "s$version.out" '"dead": 1,'
  [[ "$(counter nonempty_get_all)" == 0 && "$(counter last_request_bytes)" == 0 ]] ||
    fail "Ray $version: wait or status sent a non-empty GetAllNodeInfoRequest"
  table_bytes=$(counter last_reply_bytes)

  HOSTNAME=training-1 RAYLAUNCH_NODES=3 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$GCS_PORT \
    run "r$version" "$RAYLAUNCH_BIN" probe readiness
  expect_rc 0 "worker readiness against Ray $version"
  [[ "$(counter rejected_layout)" == 0 ]] || fail "Ray $version rejected a request: $(cat "$WORK/r$version.err")"
  [[ "$(counter calls.CheckAlive)" == 1 ]] || fail "Ray $version: the probe did not learn the version first"
  probe_bytes=$(counter last_reply_bytes)
  case $version in
    2.9.0)
      [[ "$(counter last_request_bytes)" == 0 && "$probe_bytes" == "$table_bytes" ]] ||
        fail "Ray 2.9: expected an empty request and the whole table ($table_bytes bytes), got $probe_bytes" ;;
    *)
      [[ "$(counter last_request_bytes)" -gt 0 ]] || fail "Ray $version: the probe sent no filter"
      (( probe_bytes * 2 < table_bytes )) ||
        fail "Ray $version: the reply ($probe_bytes bytes) is not one row of the table ($table_bytes bytes)" ;;
  esac
  # The probe of a DEAD pod gets that pod's rows too, on every version.
  HOSTNAME=training-2 RAYLAUNCH_NODES=3 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$GCS_PORT \
    run "d$version" "$RAYLAUNCH_BIN" probe readiness
  expect_rc 1 "readiness of a DEAD pod against Ray $version"
  expect_in "d$version.err" "training-2 is DEAD"

  # The HEAD probe's CheckAlive is empty too, and no probe ever put a node id into CheckAlive.
  HOSTNAME=training-0 RAYLAUNCH_RAY_PORT=$GCS_PORT run "h$version" "$RAYLAUNCH_BIN" probe liveness
  expect_rc 0 "head liveness against Ray $version"
  expect_in "h$version.out" "(Ray $version)"
  [[ "$(counter last_request_bytes)" == 0 ]] || fail "CheckAlive request was not empty"
  [[ "$(counter nonempty_check_alive)" == 0 ]] || fail "a CheckAlive carried node ids"

  # The strict mode does reject what a 2.36-2.48 client with `limit` would send.
  "$FAKE_GCS" send-v236 --address "$addr" >"$WORK/v236-$version.out"
  expect_in "v236-$version.out" "code=3"
done

# Without strict mode, a >= 2.49 server reads 2.36-style `limit=1` as state_filter=DEAD: one dead row
# comes back instead of everything, the breakage an empty request avoids.
start_gcs loose --ray-version 2.50.0
ctl add training-0 --head >/dev/null
ctl add training-1 >/dev/null
ctl kill training-1 >/dev/null
"$FAKE_GCS" send-v236 --address "127.0.0.1:$GCS_PORT" >"$WORK/loose.out"
expect_in loose.out "code=0 nodes=1"
echo "PASS"
