#!/usr/bin/env bash
# A head and a worker, each `ray start --block`: the head's GCS on --port, the worker's raylet
# registered in it over TCP from another network namespace (as root; else over loopback), both
# raylets health-checked by the GCS. SIGTERM to each `ray start` stops everything it started,
# exits 1, and the raylets unregister (DEAD, EXPECTED_TERMINATION).
source "$(dirname "$0")/testlib.sh"

ns_head="fkh-$$" ns_worker="fkw-$$"
netns=()
if [[ $(id -u) == 0 ]] && ip netns add "$ns_head" 2>/dev/null; then
  cleanup_ns() { ip netns del "$ns_head" 2>/dev/null || true; ip netns del "$ns_worker" 2>/dev/null || true; cleanup; }
  trap cleanup_ns EXIT
  ip netns add "$ns_worker"
  ip link add "fkh$$" netns "$ns_head" type veth peer name "fkw$$" netns "$ns_worker"
  ip -n "$ns_head" addr add 198.18.7.1/24 dev "fkh$$"
  ip -n "$ns_worker" addr add 198.18.7.2/24 dev "fkw$$"
  for ns in "$ns_head" "$ns_worker"; do
    ip -n "$ns" link set lo up
  done
  ip -n "$ns_head" link set "fkh$$" up
  ip -n "$ns_worker" link set "fkw$$" up
  # A default route, as a pod has: Ray finds the node IP by a UDP connect() toward 8.8.8.8 (no
  # packet leaves; nothing forwards out of these namespaces).
  ip -n "$ns_head" route add default dev "fkh$$"
  ip -n "$ns_worker" route add default dev "fkw$$"
  head_ip=198.18.7.1 worker_ip=198.18.7.2
  in_head=(ip netns exec "$ns_head") in_worker=(ip netns exec "$ns_worker")
  echo "head and worker in network namespaces $ns_head and $ns_worker"
else
  head_ip=$(python3 -c 'import socket; s=socket.socket(2,2); s.connect(("8.8.8.8",53)); print(s.getsockname()[0])' \
            2>/dev/null || echo 127.0.0.1)
  worker_ip=$head_ip in_head=() in_worker=()
  echo "not root: head and worker on this host's network"
fi
port=$("${in_head[@]}" "$FAKE_GCS" freeport)

export TRAINING_MARKER=from-the-test
pod head "${in_head[@]}" -- start --head --port="$port" --node-name=training-0 --num-gpus=8 --block \
  --disable-usage-stats --dashboard-host=0.0.0.0 --metrics-export-port=8080 --node-manager-port=0
poll 20 started head
expect_in head.out "Local node IP: $head_ip"
expect_in head.out "Ray runtime started."
expect_in head.out "This command will now block forever until terminated by a signal."
[[ "$(info head gcs_address)" == "$head_ip:$port" ]] || fail "head GCS address $(info head gcs_address)"

pod worker "${in_worker[@]}" -- start --address="$head_ip:$port" --node-name=training-1 --block
poll 20 started worker
expect_in worker.out "Local node IP: $worker_ip"
gcs=$head_ip:$port
poll 10 count_rows "$gcs" "^ALIVE training-0 [0-9a-f]{56} $head_ip:[0-9]+ head=1$" 1 "${in_worker[@]}"
poll 10 count_rows "$gcs" "^ALIVE training-1 $(info worker node_id) $worker_ip:$(info worker raylet_port) head=0$" 1 \
  "${in_worker[@]}"
# Health checks have run several times by now (delay 0.3 s, period 0.2 s): both stay ALIVE.
sleep 1.5
count_rows "$gcs" "^ALIVE" 2 "${in_head[@]}" || fail "a healthy raylet was marked DEAD: $(nodes "$gcs" "${in_head[@]}")"

# The environment reached ray start and, through it, the raylet (Ray copies os.environ).
raylet_pid=$(info worker pids.raylet)
tr '\0' '\n' <"/proc/$raylet_pid/environ" | grep -qx TRAINING_MARKER=from-the-test || fail "raylet lacks the env"
[[ "$(cat "/proc/$raylet_pid/comm")" == raylet ]] || fail "raylet's process name is $(cat "/proc/$raylet_pid/comm")"

# SIGTERM: everything the worker started stops, its raylet unregisters, `ray start` exits 1.
kill -TERM "${POD_PID[worker]}"
exits_within 10 worker
expect_rc 1 "worker ray start --block after SIGTERM"
! kill -0 "$raylet_pid" 2>/dev/null || fail "worker raylet survived"
poll 5 count_rows "$gcs" "^DEAD training-1 .* death=EXPECTED_TERMINATION \(Received SIGTERM\)$" 1 "${in_head[@]}"

kill -TERM "${POD_PID[head]}"
exits_within 10 head
expect_rc 1 "head ray start --block after SIGTERM"
expect_no_procs "after SIGTERM to both"
echo "PASS"
