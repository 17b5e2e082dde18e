#!/usr/bin/env bash
# wait: joins in order and out of order; returns as soon as N distinct pods are ALIVE and names
# the missing ones while waiting.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0  # the head: expected names training-0 … training-3

start_gcs inorder
ctl add training-0 --head >/dev/null
bg w "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 4 --timeout 30s
for i in 1 2 3; do
  wait_text w.err "$i/4 nodes alive"  # each count is seen before the next pod joins
  ctl add "training-$i" >/dev/null
done
join w
expect_rc 0 "wait, nodes joining in order"
expect_in w.err "1/4 nodes alive; missing: training-1, training-2, training-3"
expect_in w.err "3/4 nodes alive; missing: training-3"
expect_in w.err "4/4 nodes alive after"

start_gcs outoforder
ctl add training-3 >/dev/null
ctl add training-1 >/dev/null
bg w2 "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 4 --join-timeout 30s
wait_text w2.err "2/4 nodes alive"
ctl add training-0 --head >/dev/null
wait_text w2.err "3/4 nodes alive"
ctl add training-2 >/dev/null
join w2
expect_rc 0 "wait, nodes joining out of order"
expect_in w2.err "2/4 nodes alive; missing: training-0, training-2"
expect_in w2.err "3/4 nodes alive; missing: training-2"

# Everyone already there: returns after its first poll (counted by the GCS, not by the clock).
before=$(counter calls.GetAllNodeInfo)
RAYLAUNCH_GCS_ADDRESS="127.0.0.1:$GCS_PORT" RAYLAUNCH_NODES=4 run w3 "$RAYLAUNCH_BIN" wait
expect_rc 0 "wait with every node registered"
(( $(counter calls.GetAllNodeInfo) - before == 1 )) || fail "wait polled more than once with every node there"
[[ "$(counter nonempty_get_all)" == 0 ]] || fail "the client sent a non-empty GetAllNodeInfoRequest"
echo "PASS"
