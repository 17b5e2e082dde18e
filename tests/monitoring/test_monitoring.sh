#!/usr/bin/env bash
# The kit's alerting rules and Grafana dashboard against what raylaunch really exports: a head
# and a worker (`raylaunch run`, the built static binary, supervising the fake `ray` of
# tests/fakes/ray) serve /metrics on their health ports, the worker after a readiness probe
# failed while it waited for the head (the probe counter's result="fail"), both after probes that
# passed; check_monitoring.py compares the promtool tests' series, the rules and the dashboard
# with those scrapes, runs promtool and a real Prometheus that scrapes both pods (its docstring).
# Needs Debian's prometheus package (promtool and prometheus): scripts/deps --test installs it.
source "$(dirname "$0")/../support/run_lib.sh"
for tool in promtool prometheus; do
  command -v $tool >/dev/null || fail "$tool not found: scripts/deps --test installs Debian's prometheus package"
done
FAIL_LOGS+=('prometheus.log')
ports
WORKER_NM=$(free_port) WORKER_METRICS=$(free_port) WORKER_HEALTH=$(free_port) PROMETHEUS_PORT=$(free_port)
common="RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$RAY_PORT"
pod training-1 $common RAYLAUNCH_NODE_MANAGER_PORT=$WORKER_NM RAYLAUNCH_METRICS_EXPORT_PORT=$WORKER_METRICS \
    RAYLAUNCH_HEALTH_PORT=$WORKER_HEALTH -- run -- ignored-on-workers
wait_text training-1.err "waiting for the head GCS at 127.0.0.1:$RAY_PORT"
[[ "$(http "$WORKER_HEALTH" /readyz)" == "503 not ready: waiting_head"* ]] || fail "worker readyz: $(http "$WORKER_HEALTH" /readyz)"
[[ "$(http "$WORKER_HEALTH" /livez)" == "200 "* ]] || fail "worker livez: $(http "$WORKER_HEALTH" /livez)"
pod training-0 $common RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT \
    RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT -- run -- sleep 600
poll 60 sh -c "$PY -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:$HEALTH_PORT/metrics\").read().decode())' | grep -qx 'raylaunch_phase{phase=\"running_command\"} 1'"
poll 30 sh -c "[ \"\$($PY -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:$WORKER_HEALTH/readyz\").status)' 2>/dev/null)\" = 200 ]"
for port in "$HEALTH_PORT" "$WORKER_HEALTH"; do
  for path in /livez /readyz; do
    [[ "$(http "$port" $path)" == "200 "* ]] || fail "$port$path: $(http "$port" $path)"
  done
done
$PY "$(dirname "$0")/check_monitoring.py" --work "$WORK" --prometheus-port "$PROMETHEUS_PORT" \
    training-0=127.0.0.1:$HEALTH_PORT training-1=127.0.0.1:$WORKER_HEALTH || fail "check_monitoring.py"
kill -TERM "${POD[training-0]}" "${POD[training-1]}"
finish training-0 60
expect_rc 143 "head stopped by SIGTERM"
finish training-1 60
expect_clean
echo PASS
