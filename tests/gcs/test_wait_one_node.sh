#!/usr/bin/env bash
# wait --nodes 1 (issue 26 item 12): the one node is counted whatever its name, and the line never
# calls a pod missing once it is there. Without a pod identity (a workstation's hostname, no
# ordinal) no pod names are expected at all; in a pod, a node under another name (a `ray start`
# without --node-name=<pod>, named after its IP) is named as such.
source "$(dirname "$0")/lib.sh"

start_gcs one
ctl add 10.0.0.5 --head >/dev/null

HOSTNAME=devbox run ws "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 1 --timeout 10s
expect_rc 0 "wait --nodes 1 from a workstation"
expect_in ws.err "1/1 nodes alive after"
expect_not_in ws.err "missing"
expect_not_in ws.err "other names"

HOSTNAME=training-0 run pod "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 1 --timeout 10s
expect_rc 0 "wait --nodes 1 in a pod"
expect_in pod.err "1/1 nodes alive after"
expect_in pod.err "; alive under other names: 10.0.0.5"
expect_not_in pod.err "missing"

# Nothing there: the timeout names no pod from a workstation, the pod in a pod.
start_gcs empty
HOSTNAME=devbox run ws0 "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 1 --timeout 1s
expect_rc 75 "wait --nodes 1 from a workstation, no node"
expect_in ws0.err "raylaunch: error: join timed out after 1s: 0/1 nodes alive"
expect_not_in ws0.err "missing"
HOSTNAME=training-0 run pod0 "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 1 --timeout 1s
expect_rc 75 "wait --nodes 1 in a pod, no node"
expect_in pod0.err "join timed out after 1s: 0/1 nodes alive; missing: training-0"
echo "PASS"
