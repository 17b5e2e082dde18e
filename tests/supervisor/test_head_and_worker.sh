#!/usr/bin/env bash
# A head and a worker on this machine: the worker waits for the head, joins; the barrier
# passes, the command runs once on the head, the head stops Ray and exits with its status. The
# worker, left without a head, exits 69 with the reason (its raylet gave up on the head). The
# Redis password reaches neither the worker's Ray nor the command.
source "$(dirname "$0")/../support/run_lib.sh"
ports
WORKER_NM=$(free_port)
export REDIS_PASSWORD=s3cret-for-the-head-only
common="RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$RAY_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT"
# The worker first: it waits for a head that is not there yet.
pod training-1 $common RAYLAUNCH_NODE_MANAGER_PORT=$WORKER_NM RAY_gcs_rpc_server_reconnect_timeout_s=2 -- run -- ignored-on-workers
wait_text training-1.err "waiting for the head GCS at 127.0.0.1:$RAY_PORT"
pod training-0 $common RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT -- run -- sh -c 'echo ran >> "$0"; exit 5' "$WORK/ran"
finish training-0 60
expect_rc 5 "head"
expect_in training-0.err "2/2 nodes alive"
[[ "$(wc -l <"$WORK/ran")" == 1 ]] || fail "the command ran $(wc -l <"$WORK/ran") times"
expect_in training-1.err "the launch command runs on the head only"
finish training-1 60
expect_rc 69 "worker without its head"
expect_in training-1.err "exiting 69: ray start exited with 1"
expect_in training-1.err "head GCS at 127.0.0.1:$RAY_PORT is gone"
worker_env=$($PY - "$FAKE_RAY_RECORD_DIR" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/ray-start-*.json"):
    rec = json.load(open(f))
    if any(a.startswith("--address=") for a in rec["argv"]):
        print("REDIS_PASSWORD" in rec["env"])
PY
)
[[ "$worker_env" == False ]] || fail "the worker's ray start got REDIS_PASSWORD ($worker_env)"
expect_clean
echo PASS
