#!/usr/bin/env bash
# A worker at its pod's pids limit (a real one: the pids cgroup controller, as a pod's
# pids.max) when SIGTERM comes: the drain's thread cannot be created (EAGAIN). That is the drain
# failing, said in the reason, and the stop goes on as after any failed drain: Ray is stopped,
# exit 143 (issue 26 item 7; before, the exception was exit 70 and SIGKILL of everything).
# Root and a pids controller (cgroup v1 or v2) are needed; 125 otherwise.
source "$(dirname "$0")/../support/run_lib.sh"

cgroup_root() {
  if [[ -w /sys/fs/cgroup/pids ]]; then
    echo /sys/fs/cgroup/pids
  elif grep -qw pids /sys/fs/cgroup/cgroup.controllers 2>/dev/null && [[ -w /sys/fs/cgroup ]]; then
    echo /sys/fs/cgroup
  fi
}
root=$(cgroup_root)
[[ $(id -u) == 0 && -n "$root" ]] || { echo "SKIP: needs root and a writable pids cgroup controller"; exit 125; }
CG=$root/raylaunch-test-$$
mkdir "$CG" || { echo "SKIP: cannot create a cgroup under $root"; exit 125; }
# The cgroup goes once its processes are gone (a cgroup with members cannot be removed).
remove_cgroup() {
  local i
  echo max >"$CG/pids.max" 2>/dev/null || true
  for i in $(seq 50); do rmdir "$CG" 2>/dev/null && return 0; sleep 0.1; done
}
trap 'cleanup; remove_cgroup' EXIT  # fail_fast.sh's cleanup first: a cgroup with members stays

# The worker's raylaunch enters the cgroup before it starts (every thread and child it makes
# counts there); the head stays out of it.
cat >"$WORK/in-cgroup" <<SH
#!/bin/sh
echo \$\$ >"$CG/cgroup.procs" && exec "$RAYLAUNCH_BIN" "\$@"
SH
chmod +x "$WORK/in-cgroup"

ports
WORKER_NM=$(free_port)
common="RAYLAUNCH_NODES=2 RAYLAUNCH_HEAD_ADDRESS=127.0.0.1 RAYLAUNCH_RAY_PORT=$RAY_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT"
pod head $common RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT RAYLAUNCH_TERMINATION_LOG=$WORK/head.term \
    FAKE_RAY_GCS_ARGS="--drain idle" FAKE_RAY_VERSION=2.60.0 HOSTNAME=training-0 -- run -- sleep 600
RAYLAUNCH_BIN=$WORK/in-cgroup pod worker $common RAYLAUNCH_NODE_MANAGER_PORT=$WORKER_NM RAYLAUNCH_TERM_GRACE=30s \
    RAYLAUNCH_TERMINATION_LOG=$WORK/worker.term HOSTNAME=training-1 -- run
wait_text worker.err "watching the head: training-1 is node"
poll 30 grep -q "Ray runtime started" "$WORK/worker.err"

# The limit, below what the pod runs now (a cgroup allows that): not one thread or process more,
# even where one of gRPC's threads has just exited.
echo 1 >"$CG/pids.max"
kill -TERM "${POD[worker]}"
finish worker 60
echo max >"$CG/pids.max"
expect_rc 143 "SIGTERM to a worker at its pids limit"
expect_in worker.err "could not start a thread for the drain: Resource temporarily unavailable (the pod's pids limit?)"
expect_in worker.term "stopped by SIGTERM while Ray ran; not drained: could not start a thread for the drain"
expect_not_in worker.err "internal error"
kill -TERM "${POD[head]}"
finish head 30
expect_clean
echo PASS
