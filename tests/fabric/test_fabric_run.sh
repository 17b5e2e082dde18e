# `raylaunch run` stops with 78 before Ray starts when a fabric check fails under strict, and
# says which; under warn it goes on to ray start (a stand-in `ray` that only records its argv).
source "$(dirname "$0")/../support/e2e_lib.sh"
command -v gcc >/dev/null && command -v ldconfig >/dev/null || { echo "SKIP: gcc and ldconfig build the fake images"; exit 125; }

tree=$WORK/tree; make_tree p4de-ofi "$tree" training-1
rm "$tree"/usr/lib/x86_64-linux-gnu/libhwloc.so.15*
bash "$TESTS_DIR/fabric/make-efa-image" --ldconfig "$tree"

# A stand-in ray (a fake): records that it was run, then exits 1 so a worker run ends.
mkdir -p "$WORK/bin"
printf '#!/bin/sh\necho "$@" >> "%s/ray-ran"\nexit 1\n' "$WORK" > "$WORK/bin/ray"
chmod +x "$WORK/bin/ray"
export PATH=$WORK/bin:$PATH RAYLAUNCH_TERMINATION_LOG=$WORK/termination-log
args=(--host-root "$tree" --nodes 4 --namespace ml --hostname training-1 --shm-min 1Mi
      --head-address 127.0.0.1:1 --join-timeout 1s)

run_rl run "${args[@]}"
expect_rc 78 "strict fabric check"
expect_in "$err" "nccl-net-plugin" "the failing check is named"
[[ ! -e $WORK/ray-ran ]] && pass || fail "ray was started despite a failed strict check"
expect_in "$(cat "$WORK/termination-log" 2>/dev/null)" "nccl-net-plugin" "termination message"
finish
