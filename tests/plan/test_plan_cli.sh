# `raylaunch plan` from the static binary against fake node trees.
source "$(dirname "$0")/../support/e2e_lib.sh"

# A 64Gi tmpfs at the fake /dev/shm needs a private mount namespace (root); tmpfs size costs
# nothing until written. Without it the shm check sees the temp dir's disk and only warns.
with_shm() {  # with_shm SIZE CMD... : runs CMD with a SIZE tmpfs at $tree/dev/shm
  local size=$1; shift
  unshare -m bash -c 'mount -t tmpfs -o size="$1" tmpfs "$2/dev/shm" && shift 2 && exec "$@"' _ "$size" "$tree" "$@"
}
tree=$WORK/p4de; make_tree p4de-ofi "$tree" training-0
have_tmpfs=0; with_shm 1m true 2>/dev/null && have_tmpfs=1

common=(--host-root "$tree" --nodes 4 --namespace ml --service training-svc)

# Head, text.
run_rl plan "${common[@]}" --hostname training-0 -- python3 -m training.main
expect_in "$out" "training-0 is the head (ordinal 0 of 4 nodes)" "head text"
expect_in "$out" "ray start --head --port=6379 --dashboard-host=0.0.0.0 --disable-usage-stats --node-name=training-0 --num-gpus=8" "head argv"
expect_in "$out" "join barrier   wait up to 5m for 4 ALIVE nodes" "head barrier"
expect_in "$out" "command:"$'\n'"  python3 -m training.main" "command"

# Worker, JSON, settings from the environment only.
out=$(env -i HOSTNAME=training-3 POD_NAMESPACE=ml RAYLAUNCH_SERVICE=training-svc RAYLAUNCH_NODES=4 RAYLAUNCH_HOST_ROOT="$tree" \
      RAYLAUNCH_OUTPUT=json NCCL_DEBUG=INFO RAY_AUTH_TOKEN=s3cr3t-token REDIS_PASSWORD=hunter2 \
      "$RL" plan -- python3 train.py 2>"$WORK/err"); rc=$?
echo "$out" > "$WORK/plan.json"
"$PY" - "$WORK/plan.json" <<'PY' && pass || fail "worker JSON plan"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["schema"] == "raylaunch.plan/v1"
assert p["role"] == "worker" and p["ordinal"] == 3 and p["ordinal_source"] == "hostname training-3", p
assert p["nodes"] == 4 and p["node_name"] == "training-3"
assert p["head_address"] == "training-0.training-svc.ml.svc.cluster.local:6379"
assert p["ray_start"][:3] == ["ray", "start", "--address=training-0.training-svc.ml.svc.cluster.local:6379"]
assert "--block" in p["ray_start"] and "--node-manager-port=6380" in p["ray_start"]
assert p["env"]["NCCL_DEBUG"] == {"value": "INFO", "origin": "user", "reason": p["env"]["NCCL_DEBUG"]["reason"]}
assert p["env"]["FI_EFA_USE_HUGE_PAGE"]["origin"] == "raylaunch"
assert {c["name"] for c in p["checks"]} >= {"shm", "gpus", "efa", "memlock", "nofile", "hugetlb"}
assert all(set(c) == {"name", "status", "detail", "fix"} for c in p["checks"])
assert p["command"] == ["python3", "train.py"]
PY
expect_not_in "$out$(cat "$WORK/err")" "s3cr3t-token" "token never printed"
expect_not_in "$out$(cat "$WORK/err")" "hunter2" "password never printed"

# Strict checks: 2 of 4 EFA devices attached → 78; warn → 0; off → 0.
tree2=$WORK/p4de-2efa; make_tree p4de-2efa "$tree2" training-1
run_rl plan --host-root "$tree2" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi
expect_rc 78 "strict failed check"
expect_in "$out" "FAIL  efa                    2 EFA devices found, 4 expected (p4de.24xlarge)" "efa fail line"
run_rl plan --host-root "$tree2" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi --checks warn
expect_rc 0 "warn policy"
RAYLAUNCH_CHECKS=off run_rl plan --host-root "$tree2" --nodes 4 --namespace ml --hostname training-1
expect_rc 0 "off policy"
expect_in "$out" "(none: checks=off)" "off policy text"

if [[ $have_tmpfs -eq 1 ]]; then
  out=$(with_shm 64g "$RL" plan "${common[@]}" --hostname training-1); rc=$?
  expect_rc 0 "64Gi tmpfs shm"
  expect_in "$out" "pass  shm                    tmpfs 64Gi, 64Gi free" "64Gi tmpfs shm"
  out=$(with_shm 64m "$RL" plan "${common[@]}" --hostname training-1); rc=$?
  expect_rc 78 "64Mi shm"
  expect_in "$out" "FAIL  shm                    tmpfs 64Mi" "64Mi shm fails"
else
  echo "note: no private mount namespace here; tmpfs /dev/shm cases skipped"
fi

# plan writes nothing: the tree is byte-for-byte the same afterwards.
before=$(cd "$tree" && find . -printf '%p %s %T@\n' | sort | sha256sum)
"$RL" plan "${common[@]}" --hostname training-1 >/dev/null 2>&1
after=$(cd "$tree" && find . -printf '%p %s %T@\n' | sort | sha256sum)
[[ $before == "$after" ]] && pass || fail "plan changed the host tree"

# A workstation: no EC2 facts, a single node, no namespace needed.
ws=$WORK/ws; make_tree workstation "$ws" laptop
run_rl plan --host-root "$ws" --hostname laptop --shm-min 1Mi
expect_rc 0 "workstation plan"
expect_in "$out" "laptop is the head (ordinal 0 of 1 nodes)" "workstation role"
expect_in "$out" "head           127.0.0.1:6379  (single-node job: this pod)" "workstation head"
finish
