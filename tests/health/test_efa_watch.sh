#!/usr/bin/env bash
# Silent TCP fallback seen from PID 1 (issue 27 item 2): the head's EFA devices are those of a
# node tree (tests/support/make-node-tree p4de, the efa driver's hw_counters). Flat counters while
# the command runs: one warning, the metric, and with --efa-idle-readyz /readyz fails; traffic on
# one device (break-node-tree's `traffic`) brings it back.
source "$(dirname "$0")/../support/run_lib.sh"
ports
tree=$WORK/tree
bash "$HERE/make-node-tree" p4de "$tree" h
export PRINT_SIGNALS_TO=$WORK/signals

# wait_readyz CODE TEXT: /readyz answers CODE with TEXT in its line, within 10 s.
wait_readyz() {
  local i line
  for ((i = 0; i < 100; i++)); do
    line=$(http "$HEALTH_PORT" /readyz)
    [[ "$line" == "$1 "*"$2"* ]] && return 0
    sleep 0.1
  done
  fail "/readyz never answered $1 ($2): $line"
}
pod h $(loopback_env) RAYLAUNCH_HOST_ROOT=$tree RAYLAUNCH_SHM_MIN=1Mi RAYLAUNCH_OBJECT_STORE_MEMORY=100Mi \
  RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT RAYLAUNCH_EFA_IDLE_AFTER=1s RAYLAUNCH_EFA_IDLE_READYZ=true RAYLAUNCH_NCCL_RAS=off \
  -- run -- print_signals
poll 20 grep -q ready "$WORK/signals"
wait_readyz 503 "EFA devices"
readyz=$(http "$HEALTH_PORT" /readyz)
[[ "$readyz" == "503 not ready: no traffic on any of the pod's 4 EFA devices (rdmap0s0, rdmap1s0, rdmap2s0, rdmap3s0) in the "*" the command has run"*"NCCL is likely on TCP sockets, not EFA"*"(RAYLAUNCH_EFA_IDLE_READYZ)" ]] \
  || fail "readyz while flat: $readyz"
expect_in h.err "NCCL is likely on TCP sockets, not EFA"
metrics=$(http "$HEALTH_PORT" /metrics)
[[ "$metrics" == *'raylaunch_efa_watch_state{state="flat"} 1'* ]] || fail "metrics: flat"

# Traffic on one device: EFA it is.
( while :; do bash "$HERE/break-node-tree" "$tree" traffic rdmap1s0 65536; sleep 0.1; done ) &
PIDS+=($!)
wait_readyz 200 ""
wait_text h.err "EFA traffic again on the pod's 4 EFA devices"
metrics=$(http "$HEALTH_PORT" /metrics)
[[ "$metrics" == *'raylaunch_efa_watch_state{state="moving"} 1'* ]] || fail "metrics: moving"
[[ "$metrics" =~ raylaunch_efa_device_bytes_per_second\{device=\"rdmap1s0\"\}\ [1-9] ]] || fail "metrics: rdmap1s0's rate"
[[ $(grep -c "NCCL is likely on TCP sockets" "$WORK/h.err") == 1 ]] || fail "the warning is said once"
kill -TERM "${POD[h]}"
finish h 30
expect_rc 143 "SIGTERM"
expect_clean
echo PASS
