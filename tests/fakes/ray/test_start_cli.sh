#!/usr/bin/env bash
# `ray start` on the command line, as Ray's click CLI: usage errors exit 2, worker-only mistakes
# abort with exit 1 before anything starts, FAKE_RAY_FAIL_START fails at once, and without
# --block `ray start` exits 0 leaving its processes running (no fate-sharing).
source "$(dirname "$0")/testlib.sh"
ray_run() { local name=$1; shift; set +e; RAY_TMPDIR=$WORK/$name "$RAY" "$@" >"$WORK/$name.out" 2>&1; RC=$?; set -e; }

ray_run e1 start --head --foo
expect_rc 2 "unknown option"
expect_in e1.out "Error: No such option: --foo"
expect_in e1.out "Usage: ray start [OPTIONS]"
ray_run e2 start --head --prot=6379
expect_rc 2 "misspelt option"
expect_in e2.out "Error: No such option: --prot Did you mean --port?"
ray_run e3 start --head --num-gpus=eight
expect_rc 2 "not an integer"
expect_in e3.out "Error: Invalid value for '--num-gpus': 'eight' is not a valid integer."
ray_run e4 start --head --port
expect_rc 2 "missing value"
expect_in e4.out "Error: Option '--port' requires an argument."
ray_run e5 start --head --block=yes
expect_rc 2 "flag with a value"
ray_run e6 start --address=127.0.0.1:1 --port=6379
expect_rc 1 "--port on a worker"
expect_in e6.out "\`--port\` should only be specified when starting head node with \`--head\`."
ray_run e7 start --block
expect_rc 1 "worker without --address"
expect_in e7.out "\`--address\` is a required flag unless starting a head node with \`--head\`."
ray_run e8 start --address=127.0.0.1:1 --include-dashboard=true
expect_rc 1 "--include-dashboard on a worker"
ray_run e10 start --head --port=1 --resources='{"a":'
expect_rc 1 "bad --resources"
expect_in e10.out "\`--resources\` is not a valid JSON string."
ray_run e9 frobnicate
expect_rc 2 "unknown command"
expect_in e9.out "Error: No such command 'frobnicate'."
expect_no_procs "usage errors"
[[ ! -e "$WORK/e7/ray" ]] || fail "a rejected ray start created its temp dir"

FAKE_RAY_FAIL_START=3 ray_run f1 start --head --port=1 --block
expect_rc 3 "FAKE_RAY_FAIL_START=3"
expect_in f1.out "RuntimeError: Failed to start GCS."
expect_no_procs "FAKE_RAY_FAIL_START"

# A port that is taken: the GCS cannot listen, ray start says so and exits 1.
blocking_head busy
RAY_NUM_REDIS_GET_RETRIES=3 ray_run taken start --head --port="$port"
expect_rc 1 "port in use"
expect_in taken.out "RuntimeError: Failed to start GCS."
kill -TERM "${POD_PID[busy]}"
exits_within 10 busy
expect_no_procs "port in use"

# Without --block: exit 0 at once, processes keep running after ray start is gone.
port=$(free_port)
ray_run nb start --head --port="$port" --node-name=training-0
expect_rc 0 "ray start without --block"
expect_in nb.out "Ray runtime started."
[[ "$(cat "$WORK/nb/ray/ray_current_cluster")" == *":$port" ]] || fail "ray_current_cluster"
sleep 1
for p in "$(info nb pids.gcs_server)" "$(info nb pids.raylet)"; do ! gone "$p" || fail "process $p died with ray start"; done
count_rows "127.0.0.1:$port" "^ALIVE training-0 " 1 || fail "head not ALIVE after ray start exited"
RAY_TMPDIR=$WORK/nb "$RAY" stop >/dev/null
expect_no_procs "after ray stop"
echo "PASS"
