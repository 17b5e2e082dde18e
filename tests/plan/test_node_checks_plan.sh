# `raylaunch plan` from the static binary on fake node trees with injected faults
# (tests/support/make-node-tree, tests/support/break-node-tree): the device checks' lines, exit
# codes and JSON, a workstation that stays quiet, and NCCL_NET_PLUGIN=ofi.
source "$(dirname "$0")/../support/e2e_lib.sh"
brk() { bash "$TESTS_DIR/support/break-node-tree" "$@"; }

# A healthy p5: the three device checks pass.
tree=$WORK/p5; make_tree p5 "$tree" training-1
common=(--host-root "$tree" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi)
run_rl plan "${common[@]}" --efa 32
expect_in "$out" "pass  gpu-bus                8 NVIDIA GPUs on PCI, each bound to nvidia and answering; 8 of them this pod's" "gpu-bus pass"
expect_in "$out" "pass  rdma-ports             all 32 ports of this pod's RDMA devices ACTIVE" "rdma-ports pass"
expect_in "$out" "pass  pcie-links             8 GPU links at full width and speed; 32 EFA links at full width and speed" "pcie-links pass"

# A GPU fell off the bus, another's link lost lanes, an EFA port is down: strict stops with 78.
brk "$tree" gpu-fell-off 0000:13:00.0
brk "$tree" link 0000:15:00.0 8 32.0
brk "$tree" port rdmap5s0 "1: DOWN" "2: Polling"
run_rl plan "${common[@]}" --efa 32
expect_rc 78 "fallen GPU, strict"
expect_in "$out" "FAIL  gpu-bus                GPU 0000:13:00.0 (this pod's) does not answer on PCI (its config space reads all ones): it fell off the bus" "gpu-bus fail line"
expect_in "$out" "fix: drain the node and reboot or replace the instance" "gpu-bus fix"
expect_in "$out" "warn  rdma-ports             rdmap5s0 port 1 is 1: DOWN (phys_state 2: Polling); 1 of 32 ports not ACTIVE" "rdma-ports warn line"
expect_in "$out" "warn  pcie-links             GPU 0000:13:00.0 link status unreadable (x63; see gpu-bus); GPU 0000:15:00.0 runs x8 of the x16 both ends allow" "pcie-links warn line"
run_rl plan "${common[@]}" --efa 32 --checks warn
expect_rc 0 "fallen GPU, warn policy"

run_rl plan "${common[@]}" --efa 32 --output json
echo "$out" > "$WORK/plan.json"
"$PY" - "$WORK/plan.json" <<'PY' && pass || fail "JSON device checks"
import json, sys
p = json.load(open(sys.argv[1]))
checks = {c["name"]: c for c in p["checks"]}
names = [c["name"] for c in p["checks"]]
assert names.index("gpu-bus") == names.index("gpus") + 1, names
assert names.index("rdma-ports") == names.index("efa") + 1, names
assert checks["gpu-bus"]["status"] == "fail" and checks["gpu-bus"]["fix"].startswith("drain the node")
assert checks["rdma-ports"]["status"] == "warn"
assert checks["pcie-links"]["status"] == "warn"
assert p["exit_code"] == 78
PY

# The EFA devices the pod got against the node's: the request limits it.
short=$WORK/short; make_tree p5 "$short" training-1
brk "$short" efa-pod 16
run_rl plan --host-root "$short" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi
expect_rc 78 "EFA request short"
expect_in "$out" "FAIL  efa                    16 EFA devices found, 32 expected (p5.48xlarge); limited by the pod's request: the node has 32 EFA devices" "efa limiter line"
expect_in "$out" "fix: request vpc.amazonaws.com/efa: 32, or set RAYLAUNCH_EFA=16 if 16 is meant" "efa limiter fix"

# A workstation says nothing about fabric or GPUs it does not have.
ws=$WORK/ws; make_tree workstation "$ws" laptop
run_rl plan --host-root "$ws" --hostname laptop --shm-min 1Mi
expect_rc 0 "workstation"
for name in gpu-bus rdma-ports pcie-links efa-provider nccl-net-plugin NCCL_NET_PLUGIN; do
  expect_not_in "$out" "$name" "workstation: no $name"
done

# Only libnccl-net-ofi.so in the image: NCCL_NET_PLUGIN=ofi in the environment; the user's wins.
if command -v gcc >/dev/null && command -v ldconfig >/dev/null; then
  ofi=$WORK/ofi; make_tree p4de-ofi "$ofi" training-1
  rm "$ofi/opt/amazon/ofi-nccl/lib/libnccl-net.so"
  run_rl plan --host-root "$ofi" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi --output json
  expect_rc 0 "ofi only"
  echo "$out" > "$WORK/ofi.json"
  "$PY" - "$WORK/ofi.json" <<'PY' && pass || fail "JSON NCCL_NET_PLUGIN=ofi"
import json, sys
p = json.load(open(sys.argv[1]))
var = p["env"]["NCCL_NET_PLUGIN"]
assert var["value"] == "ofi" and var["origin"] == "raylaunch", var
checks = {c["name"]: c for c in p["checks"]}
assert checks["nccl-net-plugin"]["status"] == "pass", checks["nccl-net-plugin"]
assert "libnccl-net-ofi.so → /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so" in checks["nccl-net-plugin"]["detail"]
PY
  NCCL_NET_PLUGIN=custom run_rl plan --host-root "$ofi" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi
  expect_rc 78 "the user's NCCL_NET_PLUGIN wins"
  expect_not_in "$out" "NCCL_NET_PLUGIN=ofi"$'\n' "no ofi over the user's value"
  expect_in "$out" "fix: set NCCL_NET_PLUGIN=ofi" "the fix names ofi"
fi
finish
