#!/usr/bin/env bash
# Ray ≈2.51+ has GetAllNodeAddressAndLiveness: the join barrier polls it between full polls; an
# older GCS answers UNIMPLEMENTED and the barrier falls back to GetAllNodeInfo at once. "Joined" is
# only decided on a table with names, and `status --count` counts from one (the light reply has no
# names, and would count a pod restarted on a new IP twice while its old row is still ALIVE).
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0

for version in 2.51.0 2.50.0; do
  start_gcs "v$version" --ray-version "$version" --strict-request
  ctl fill 3 training >/dev/null
  addr="127.0.0.1:$GCS_PORT"

  bg "w$version" "$RAYLAUNCH_BIN" wait --address "$addr" --nodes 4 --timeout 20s --log-level debug
  sleep 1.5
  ctl add training-3 >/dev/null
  join "w$version"
  expect_rc 0 "wait against Ray $version"
  expect_in "w$version.err" "4/4 nodes alive"
  light=$(counter calls.GetAllNodeAddressAndLiveness)
  full=$(counter calls.GetAllNodeInfo)
  if [[ $version == 2.51.0 ]]; then
    (( light >= 3 )) || fail "Ray 2.51: $light light polls in 1.5 s"
    (( full <= 3 )) || fail "Ray 2.51: $full full polls (expected the first, the confirming one, maybe one 10 s one)"
  else
    [[ -z "$light" || "$light" == 0 ]] || fail "Ray 2.50 counted light calls (it has none)"
    expect_in "w$version.err" "has no GetAllNodeAddressAndLiveness (Ray < 2.51): polling GetAllNodeInfo"
    (( full >= 4 )) || fail "Ray 2.50: the barrier did not fall back to GetAllNodeInfo ($full polls)"
  fi

  ctl kill training-2 >/dev/null
  ctl reset-stats >/dev/null
  run "c$version" "$RAYLAUNCH_BIN" status --address "$addr" --count --output json
  expect_rc 0 "status --count against Ray $version"
  expect_in "c$version.out" '"alive": 3,'
  expect_in "c$version.out" '"counted_by": "node_name"'
  [[ "$(counter calls.GetAllNodeInfo)" == 1 ]] || fail "status --count: one GetAllNodeInfo"

  # training-1 restarted at a new IP before the GCS marked its old row DEAD: one pod, two ALIVE rows.
  ctl add training-1 --ip 10.9.9.9 >/dev/null
  run "r$version" "$RAYLAUNCH_BIN" status --address "$addr" --count
  expect_rc 0 "status --count with a restarted pod on Ray $version"
  expect_in "r$version.out" "3 alive (4 ALIVE rows, counted by node name; counted once despite a stale ALIVE row: training-1)"
done
echo "PASS"
