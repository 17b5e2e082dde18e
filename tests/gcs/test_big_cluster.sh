#!/usr/bin/env bash
# 4,096 registered nodes: wait and status handle the table, and a reply above gRPC's default
# 4 MiB receive limit is accepted (the client raises it to Ray's 512 MiB).
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0

start_gcs big --ray-version 2.40.0
ctl fill 4095 training >/dev/null
bg w "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 4096 --timeout 60s
sleep 1
ctl add training-4095 >/dev/null
join w
expect_rc 0 "wait for 4,096 nodes"
expect_in w.err "4095/4096 nodes alive; missing: training-4095"
expect_in w.err "4096/4096 nodes alive after"

run s "$RAYLAUNCH_BIN" status --address "127.0.0.1:$GCS_PORT" --output json
expect_rc 0 "status of 4,096 nodes"
expect_in s.out '"alive": 4096,'
[[ "$(grep -c '"node_name"' "$WORK/s.out")" == 4096 ]] || fail "status listed $(grep -c '"node_name"' "$WORK/s.out") nodes"

# 4,096 nodes with 2 KiB of labels each: an ~9 MB reply.
start_gcs padded
ctl fault pad 2048 >/dev/null
ctl fill 4096 training >/dev/null
run p "$RAYLAUNCH_BIN" status --address "127.0.0.1:$GCS_PORT" --output json
expect_rc 0 "status with a reply above 4 MiB"
expect_in p.out '"alive": 4096,'
bytes=$(counter last_reply_bytes)
(( bytes > 4 * 1024 * 1024 )) || fail "reply was only $bytes bytes"
run pw "$RAYLAUNCH_BIN" wait --address "127.0.0.1:$GCS_PORT" --nodes 4096 --timeout 20s
expect_rc 0 "wait with a reply above 4 MiB"
echo "PASS"
