# `raylaunch plan` from the static binary on fake EFA images of real ELF files: the fabric
# checks' lines, JSON, and exit codes (tests/support/make-node-tree *-ofi, tests/fabric/make-efa-image).
source "$(dirname "$0")/../support/e2e_lib.sh"
command -v gcc >/dev/null && command -v ldconfig >/dev/null || { echo "SKIP: gcc and ldconfig build the fake images"; exit 125; }
image() { bash "$TESTS_DIR/fabric/make-efa-image" "$@"; }
plugin=/opt/amazon/ofi-nccl/lib/libnccl-net.so

tree=$WORK/ofi; make_tree p4de-ofi "$tree" training-1
common=(--host-root "$tree" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi)

# A complete image: every fabric check passes, with the plugin's path, versions and GDR.
run_rl plan "${common[@]}"
expect_rc 0 "complete image"
expect_in "$out" "pass  efa-provider           only EFA devices in /dev/infiniband" "efa provider"
expect_in "$out" "pass  nccl-net-plugin        libnccl-net.so → $plugin (→ libnccl-net-ofi.so) via LD_LIBRARY_PATH, aws-ofi-nccl 1.16.3; the 6 libraries it loads all resolve" "plugin line"
expect_in "$out" "pass  libfabric              libfabric.so.1 → /opt/amazon/efa/lib/libfabric.so.1 (→ libfabric.so.1.26.0) via LD_LIBRARY_PATH" "libfabric line"
expect_in "$out" "pass  nccl                   libnccl.so.2 → /usr/lib/x86_64-linux-gnu/libnccl.so.2 (→ libnccl.so.2.27.7) via ld.so.cache, NCCL 2.27.7" "nccl line"
expect_in "$out" "pass  aws-ofi-nccl           1.16.3: no setting here is tied to a known issue of this version" "plugin version"
expect_in "$out" "pass  gdr                    p4de.24xlarge: the EFA driver reaches GPU memory through its P2P provider \"NVIDIA peermem\"" "gdr line"

run_rl plan "${common[@]}" --output json
echo "$out" > "$WORK/plan.json"
"$PY" - "$WORK/plan.json" <<'PY' && pass || fail "JSON fabric checks"
import json, sys
p = json.load(open(sys.argv[1]))
checks = {c["name"]: c for c in p["checks"]}
for name in ["efa-provider", "nccl-net-plugin", "libfabric", "nccl", "aws-ofi-nccl", "gdr"]:
    assert checks[name]["status"] == "pass", checks[name]
assert "/opt/amazon/ofi-nccl/lib/libnccl-net.so" in checks["nccl-net-plugin"]["detail"]
assert "aws-ofi-nccl 1.16.3" in checks["nccl-net-plugin"]["detail"]
assert "NCCL 2.27.7" in checks["nccl"]["detail"]
assert p["exit_code"] == 0
PY

# One dependency missing from the image: named with every directory searched; strict exits 78.
rm "$tree"/usr/lib/x86_64-linux-gnu/libhwloc.so.15*
image --ldconfig "$tree"
run_rl plan "${common[@]}"
expect_rc 78 "missing dependency, strict"
expect_in "$out" "FAIL  nccl-net-plugin        $plugin cannot load: libhwloc.so.15 (needed by $plugin) not found in LD_LIBRARY_PATH (/opt/amazon/efa/lib, /opt/amazon/ofi-nccl/lib); RUNPATH of $plugin (/opt/amazon/efa/lib); ld.so.cache; default directories (" "missing dependency line"
expect_in "$out" "fix: install libhwloc.so.15 in the image" "missing dependency fix"
run_rl plan "${common[@]}" --checks warn
expect_rc 0 "missing dependency, warn"
RAYLAUNCH_CHECKS=off run_rl plan "${common[@]}"
expect_rc 0 "missing dependency, off"
expect_not_in "$out" "nccl-net-plugin" "off: no fabric check"

# A symlink loop and a truncated library: a warning, quickly, never a hang or a crash.
loop=$WORK/loop; make_tree p4de-ofi "$loop" training-1
(cd "$loop/opt/amazon/efa/lib" && rm libfabric.so.1 && ln -s loop.so libfabric.so.1 && ln -s libfabric.so.1 loop.so)
truncate -s 100 "$loop/usr/lib/x86_64-linux-gnu/libhwloc.so.15.6.4"
out=$(timeout 20 "$RL" plan --host-root "$loop" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi 2>"$WORK/err"); rc=$?
expect_rc 0 "loop and truncated file only warn"
expect_in "$out" "warn  nccl-net-plugin        $plugin cannot load: libfabric.so.1 (needed by $plugin) is unusable: /opt/amazon/efa/lib/libfabric.so.1: symlink loop (more than 40 links); libhwloc.so.15 (needed by $plugin) is unusable: /usr/lib/x86_64-linux-gnu/libhwloc.so.15: file too short" "loop and truncated line"

# No plugin at all (the p4de tree has the EFA directories, empty) and no EFA devices at all.
bare=$WORK/bare; make_tree p4de "$bare" training-1
run_rl plan --host-root "$bare" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi
expect_rc 78 "no plugin"
expect_in "$out" "FAIL  nccl-net-plugin        NCCL_NET_PLUGIN unset: NCCL would load libnccl-net.so: not found in LD_LIBRARY_PATH (/opt/amazon/efa/lib, /opt/amazon/ofi-nccl/lib); ld.so.cache (none);" "no plugin line"
noefa=$WORK/noefa; make_tree g5-noefa "$noefa" training-1; image "$noefa"
run_rl plan --host-root "$noefa" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi --efa 0
expect_rc 0 "no EFA"
expect_not_in "$out" "nccl-net-plugin" "no EFA: no fabric check"
finish
