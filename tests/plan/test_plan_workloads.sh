# `raylaunch plan` in pods of LeaderWorkerSet, JobSet and Kubeflow Trainer: the identity from the
# variables each controller sets (no --ordinal, no --head-address, no RAYLAUNCH_NODES where the
# workload says), shown with its source in text and JSON; hostile values are 64, nothing started.
source "$(dirname "$0")/../support/e2e_lib.sh"

plan_in() {  # plan_in TREE VAR=VALUE... : `plan` with only these variables, like a pod's environment
  local tree=$1; shift
  out=$(env -i RAYLAUNCH_HOST_ROOT="$tree" RAYLAUNCH_SHM_MIN=1Mi POD_NAMESPACE=ml "$@" "$RL" plan -- python3 serve.py \
        2>"$WORK/err"); rc=$?
  err=$(cat "$WORK/err")
}

json_is() {  # json_is WHAT PYTHON: the plan in $out, loaded as p, passes PYTHON's asserts
  echo "$out" > "$WORK/plan.json"
  "$PY" -c 'import json, sys; p = json.load(open(sys.argv[1])); exec(sys.argv[2])' "$WORK/plan.json" "$2" \
    && pass || fail "$1"
}

# LWS: a worker of group 1 (vllm-1-2), the leader, as LWS's pod webhook writes the variables.
lws=$WORK/lws; make_tree workstation "$lws" vllm-1-2 ml vllm
lws_env=(LWS_LEADER_ADDRESS=vllm-1.vllm.ml LWS_GROUP_SIZE=3)
plan_in "$lws" HOSTNAME=vllm-1-2 LWS_WORKER_INDEX=2 "${lws_env[@]}"
expect_rc 0 "LWS worker"
expect_in "$out" "vllm-1-2 is the worker (ordinal 2 of 3 nodes)" "LWS worker role"
expect_in "$out" "workload       LeaderWorkerSet: group vllm-1, worker index 2 of 3" "LWS workload line"
expect_in "$out" "nodes          3  (LWS_GROUP_SIZE)" "LWS nodes source"
expect_in "$out" "head           vllm-1.vllm.ml:6379  (LWS_LEADER_ADDRESS)" "LWS head"
expect_in "$out" "--address=vllm-1.vllm.ml:6379" "LWS ray start"
plan_in "$lws" HOSTNAME=vllm-1 LWS_WORKER_INDEX=0 RAYLAUNCH_OUTPUT=json "${lws_env[@]}"
expect_rc 0 "LWS leader JSON"
json_is "LWS leader JSON plan" '
assert p["role"] == "head" and p["ordinal"] == 0 and p["ordinal_source"] == "LWS_WORKER_INDEX", p
assert p["nodes"] == 3 and p["nodes_source"] == "LWS_GROUP_SIZE"
assert p["workload"] == {"kind": "lws", "detail": "group vllm-1, worker index 0 of 3"}, p["workload"]
assert p["ray_start"][:3] == ["ray", "start", "--head"]'

# A quorum under LWS needs no RAYLAUNCH_NODES: it is checked against LWS_GROUP_SIZE.
plan_in "$lws" HOSTNAME=vllm-1 LWS_WORKER_INDEX=0 RAYLAUNCH_MIN_NODES=2 "${lws_env[@]}"
expect_rc 0 "LWS quorum"
expect_in "$out" "wait up to 5m for 3 ALIVE nodes, or start with at least 2" "LWS quorum barrier"

# JobSet: replicated jobs head and workers; JOBSET_NAME from the Downward API, the index from the Job.
js=$WORK/js; make_tree workstation "$js" rl-workers-0-0 ml rl
# The kubelet's line for a pod with a subdomain (a workstation tree has no /etc/hosts of its own).
printf '10.0.0.7\trl-workers-0-0.rl.ml.svc.cluster.local\trl-workers-0-0\n' > "$js/etc/hosts"
plan_in "$js" HOSTNAME=rl-workers-0-0 JOBSET_NAME=rl JOB_COMPLETION_INDEX=0 RAYLAUNCH_NODES=3
expect_rc 0 "JobSet worker"
expect_in "$out" "rl-workers-0-0 is the worker (ordinal 1 of 3 nodes)" "JobSet worker role"
expect_in "$out" "ordinal        1  (JobSet workers pod 0 (JOB_COMPLETION_INDEX))" "JobSet ordinal source"
expect_in "$out" "head           rl-head-0-0.rl.ml.svc.cluster.local:6379  (derived from JobSet pod rl-head-0-0)" \
  "JobSet head"
expect_in "$out" "service        rl  (/etc/hosts)" "JobSet subdomain"

# Kubeflow Trainer (torch runtime): PET_* settle it, even with JobSet's facts there too.
tj=$WORK/tj; make_tree workstation "$tj" tj-node-0-1 ml tj
plan_in "$tj" HOSTNAME=tj-node-0-1 PET_NODE_RANK=1 PET_NNODES=2 PET_MASTER_ADDR=tj-node-0-0.tj PET_MASTER_PORT=29400 \
  JOBSET_NAME=tj JOB_COMPLETION_INDEX=1 RAYLAUNCH_OUTPUT=json
expect_rc 0 "Trainer node"
json_is "Trainer JSON plan" '
assert p["role"] == "worker" and p["ordinal"] == 1 and p["ordinal_source"] == "PET_NODE_RANK", p
assert p["nodes"] == 2 and p["nodes_source"] == "PET_NNODES"
assert p["workload"]["kind"] == "trainer"
assert p["head_address"] == "tj-node-0-0.tj:6379" and p["head_address_source"] == "PET_MASTER_ADDR"'

# Hostile values: one line, exit 64, nothing on stdout.
bad() {  # bad TREE EXPECTED_LINE VAR=VALUE...
  local tree=$1 expected=$2; shift 2
  plan_in "$tree" "$@"
  expect_rc 64 "$expected"
  [[ -z $out ]] && pass || fail "stdout not empty: $out"
  [[ $err == "raylaunch: error: $expected" ]] && pass || fail "stderr was: $err"
}
bad "$lws" 'LWS_LEADER_ADDRESS: "" is not valid (expected a DNS name such as training-0.training.ml; LeaderWorkerSet sets it: do not override it in the pod template)' \
  HOSTNAME=vllm-1-2 LWS_WORKER_INDEX=2 LWS_GROUP_SIZE=3 LWS_LEADER_ADDRESS=
bad "$lws" 'LWS_WORKER_INDEX: "3" is not valid (expected a whole number from 0 to 2 (below LWS_GROUP_SIZE=3); LeaderWorkerSet sets it: do not override it in the pod template)' \
  HOSTNAME=vllm-1-3 LWS_WORKER_INDEX=3 "${lws_env[@]}"
bad "$lws" 'RAYLAUNCH_NODES: 4 contradicts LWS_GROUP_SIZE=3 (LeaderWorkerSet'"'"'s own count: unset RAYLAUNCH_NODES or make them equal)' \
  HOSTNAME=vllm-1-2 LWS_WORKER_INDEX=2 RAYLAUNCH_NODES=4 "${lws_env[@]}"
bad "$js" 'JobSet rl: replicated job "node" is neither head nor workers; raylaunch'"'"'s JobSet shape is replicated jobs head (replicas 1, 1 pod) and workers (replicas 1, nodes-1 pods): see docs/deploy.md' \
  HOSTNAME=rl-node-0-0 JOBSET_NAME=rl JOB_COMPLETION_INDEX=0 RAYLAUNCH_NODES=3
bad "$tj" 'PET_NNODES: "2:4" is not valid (expected a fixed node count; an elastic MIN:MAX range cannot size the join barrier (set numNodes in the TrainJob))' \
  HOSTNAME=tj-node-0-1 PET_NODE_RANK=1 PET_NNODES=2:4 PET_MASTER_ADDR=tj-node-0-0.tj
bad "$lws" 'RAYLAUNCH_MIN_NODES: 4 is more than nodes=3 (expected a quorum from 1 to 3)' \
  HOSTNAME=vllm-1 LWS_WORKER_INDEX=0 RAYLAUNCH_MIN_NODES=4 "${lws_env[@]}"
finish
