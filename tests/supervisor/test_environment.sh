#!/usr/bin/env bash
# What `ray start` really received: the plan's environment (never overriding a user value), the
# plan's argv, and a clean signal state (empty mask, nothing ignored), whatever raylaunch
# itself blocks; the command gets the same environment and a clean state too.
source "$(dirname "$0")/../support/run_lib.sh"
ports
export NCCL_DEBUG=INFO
pod training-0 $(loopback_env) RAYLAUNCH_NODES=1 -- run -- sh -c 'env > "$0"' "$WORK/command-env"
finish training-0
expect_rc 0 "run"
[[ "$(record env.RAYLAUNCH_ROLE)" == head ]] || fail "RAYLAUNCH_ROLE: $(record env.RAYLAUNCH_ROLE)"
[[ "$(record env.NCCL_DEBUG)" == INFO ]] || fail "user NCCL_DEBUG overridden: $(record env.NCCL_DEBUG)"
[[ "$(record env.NCCL_SOCKET_IFNAME)" == "^lo,docker,veth,pod-id-link" ]] || fail "NCCL_SOCKET_IFNAME not set"
[[ "$(record env.RAY_ADDRESS)" == "127.0.0.1:$RAY_PORT" ]] || fail "RAY_ADDRESS: $(record env.RAY_ADDRESS)"
[[ "$(record signals.blocked)" == "[]" ]] || fail "ray start began with blocked signals: $(record signals.blocked)"
# Python ignores SIGPIPE and SIGXFSZ itself at start-up (the fake lists them): any other is ours.
ignored=$($PY -c 'import json,sys; i=json.loads(sys.argv[1]); p=json.loads(sys.argv[2]); print(sorted(set(i)-set(p)))' \
  "$(record signals.ignored)" "$(record signals.interpreter_ignores)")
[[ "$ignored" == "[]" ]] || fail "ray start began with ignored signals: $ignored"
argv=$(record argv)
for want in '"--head"' "\"--port=$RAY_PORT\"" '"--node-name=training-0"' "\"--node-manager-port=$NM_PORT\"" '"--block"'; do
  [[ "$argv" == *"$want"* ]] || fail "ray start argv lacks $want: $argv"
done
grep -qx "RAYLAUNCH_RANK=0" "$WORK/command-env" || fail "the command lacks RAYLAUNCH_RANK"
grep -qx "NCCL_DEBUG=INFO" "$WORK/command-env" || fail "the command lacks NCCL_DEBUG"

# The command's own signal state, read by a shell (Python would add its own SIGPIPE ignore).
pod t2 $(loopback_env) -- run -- sh -c 'exec grep -E "^Sig(Blk|Ign)" /proc/self/status > "$0"' "$WORK/sigstate"
finish t2
expect_rc 0 "signal state"
grep -qx "SigBlk:.0000000000000000" "$WORK/sigstate" || fail "the command began with blocked signals: $(cat "$WORK/sigstate")"
grep -qx "SigIgn:.0000000000000000" "$WORK/sigstate" || fail "the command began with ignored signals: $(cat "$WORK/sigstate")"
expect_clean
echo PASS
