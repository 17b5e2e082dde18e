#!/usr/bin/env bash
# `ray stop`: finds this pod's raylet and gcs_server by process name, stops the raylet first and
# the GCS last (SIGTERM, then SIGKILL after the grace period; --force: SIGKILL at once), says what
# it stopped, and leaves other pods alone. `ray start --block` is not stopped by it: its children
# exit with expected codes and it keeps blocking, as Ray's does.
source "$(dirname "$0")/testlib.sh"
stop_in() { local name=$1; shift; RAY_TMPDIR=$WORK/$name "$RAY" stop "$@" >"$WORK/stop-$name.out" 2>&1; }

port=$(free_port)
gcs=127.0.0.1:$port
pod head -- start --head --port="$port" --node-name=training-0
finish head
expect_rc 0 "ray start --head without --block"
pod worker -- start --address="$gcs" --node-name=training-1
finish worker
expect_rc 0 "worker ray start without --block"
poll 10 count_rows "$gcs" "^ALIVE" 2
head_pids="$(info head pids.gcs_server) $(info head pids.raylet)"

# The worker pod's `ray stop`: only its raylet, which unregisters; the head is untouched.
stop_in worker
worker_raylet=$(info worker pids.raylet)
expect_in stop-worker.out "Stopped all 1 Ray processes."
expect_in stop-worker.out "(via SIGTERM) [raylet pid $worker_raylet]"
poll 5 gone "$worker_raylet"
for p in $head_pids; do ! gone "$p" || fail "the worker's ray stop killed head process $p"; done
poll 5 count_rows "$gcs" "^DEAD training-1 .* death=EXPECTED_TERMINATION" 1
[[ ! -e "$WORK/worker/ray/ray_current_cluster" ]] || fail "ray stop left ray_current_cluster"
stop_in worker
expect_in stop-worker.out "Did not find any active Ray processes."

# The head pod: raylet and GCS, both gone.
stop_in head --grace-period 4
expect_in stop-head.out "Stopped all 2 Ray processes."
for p in $head_pids; do gone "$p" || fail "head process $p survived ray stop"; done
expect_no_procs "after ray stop"

# --force: SIGKILL, no unregistering.
port=$(free_port)
pod h2 -- start --head --port="$port"
finish h2
stop_in h2 -f
expect_in stop-h2.out "(via SIGKILL) [raylet pid $(info h2 pids.raylet)]"
expect_in stop-h2.out "Stopped all 2 Ray processes."
expect_no_procs "after ray stop --force"

# Into a closed pipe, as Ray's CLI (click) does it: exit 1 at the first write, silently, with
# what was left undone left undone (Ray 2.60 measured: the raylet got SIGTERM, gcs_server ran
# on). A supervisor must read `ray stop`'s output, not close it.
port=$(free_port)
pod h4 -- start --head --port="$port"
finish h4
h4_gcs=$(info h4 pids.gcs_server)
set +e
RAY_TMPDIR=$WORK/h4 /usr/bin/python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w, stderr=w).returncode)' "$RAY" stop --grace-period 3
RC=$?
set -e
expect_rc 1 "ray stop writing into a closed pipe"
! gone "$h4_gcs" || fail "ray stop went on after EPIPE: gcs_server was stopped"
stop_in h4
expect_in stop-h4.out "Stopped all 1 Ray processes."
expect_no_procs "after the second ray stop"

# Under `ray start --block`: ray stop stops the children, ray start keeps blocking.
blocking_head h3
stop_in h3
expect_in stop-h3.out "Stopped all 2 Ray processes."
sleep 2
! gone "${POD_PID[h3]}" || fail "ray start --block exited after ray stop"
kill -TERM "${POD_PID[h3]}"
exits_within 10 h3
expect_rc 1 "SIGTERM after ray stop"
echo "PASS"
