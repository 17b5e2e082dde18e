#!/usr/bin/env bash
# `raylaunch run` on a cluster whose Ray speaks mutual TLS (the FAKE ray CLI of tests/fakes/ray, whose
# GCS and raylet read RAY_USE_TLS as Ray does): a worker waits for its head and joins, the head's
# barrier passes, the command runs, and the worker's /readyz asks the head over TLS in the layout
# of its version. The same head without TLS on the worker's side: the worker stops at once with
# the reason instead of waiting out its join timeout.
source "$(dirname "$0")/../support/run_lib.sh"
source "$(dirname "$0")/pki.sh"
P=$WORK/pki
# The fake Ray, like Ray, dials its GCS and raylets at the node IP: the pod certificate names it.
node_ips=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9.]+$' | sed 's/^/IP:/' | paste -sd, -)
make_certs "$P" "$node_ips"
tls="RAY_USE_TLS=1 RAY_TLS_SERVER_CERT=$P/pod.crt RAY_TLS_SERVER_KEY=$P/pod.key RAY_TLS_CA_CERT=$P/ca.crt"
ports
WORKER_NM=$(free_port)
WORKER_HEALTH=$(free_port)
common="RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$RAY_PORT FAKE_RAY_VERSION=2.40.0"

pod training-1 $common $tls RAYLAUNCH_NODE_MANAGER_PORT=$WORKER_NM RAYLAUNCH_HEALTH_PORT=$WORKER_HEALTH \
  RAYLAUNCH_METRICS_EXPORT_PORT=$(free_port) RAY_gcs_rpc_server_reconnect_timeout_s=2 -- run -- ignored
wait_text training-1.err "waiting for the head GCS at 127.0.0.1:$RAY_PORT"
pod training-0 $common $tls RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT \
  -- run -- sh -c 'sleep 2; echo ran > "$0"' "$WORK/ran"
poll 30 sh -c "[ \"\$(cd / && $PY -c 'import urllib.request
print(urllib.request.urlopen(\"http://127.0.0.1:$WORKER_HEALTH/readyz\", timeout=3).status)' 2>/dev/null)\" = 200 ]"
[[ "$(http "$WORKER_HEALTH" /readyz)" == "200 ok: training-1 is ALIVE in the head GCS at 127.0.0.1:$RAY_PORT"* ]] ||
  fail "worker readyz over TLS: $(http "$WORKER_HEALTH" /readyz)"
finish training-0 60
expect_rc 0 "head over TLS"
expect_in training-0.err "2/2 nodes alive"
[[ -s "$WORK/ran" ]] || fail "the command did not run"
finish training-1 60

# A worker without TLS against a TLS head: refused at once, with the fix, not after 300 s.
pod training-0 $common $tls RAYLAUNCH_NODES=2 RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT \
  RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT -- run -- sleep 30
wait_text training-0.err "waiting for 2 nodes"
start=$(date +%s)
pod training-1 $common RAYLAUNCH_NODE_MANAGER_PORT=$WORKER_NM RAYLAUNCH_METRICS_EXPORT_PORT=$(free_port) -- run -- ignored
finish training-1 20
expect_rc 69 "plaintext worker against a TLS head"
expect_in training-1.err "requires TLS and this client speaks plaintext"
(( $(date +%s) - start < 15 )) || fail "the plaintext worker waited out its deadline"
kill -TERM "${POD[training-0]}"
finish training-0 30
expect_clean
echo PASS
