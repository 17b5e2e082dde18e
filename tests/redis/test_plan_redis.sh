# `raylaunch plan` of an FT cluster from the static binary: the head's Redis preflight, its
# ray start credentials shown redacted (text and JSON), the workers' reconnect timeout, and the
# bad inputs refused with one line (exit 64), none of which ever shows the password.
source "$(dirname "$0")/lib.sh"
tree=$WORK/node
bash "$TESTS_DIR/support/make-node-tree" workstation "$tree" training-0 >/dev/null
common=(--host-root "$tree" --nodes 3 --namespace ml --service training --checks warn)
export RAY_REDIS_ADDRESS=redis://redis.redis.svc.cluster.local:6379 RAY_external_storage_namespace=blue-run \
       REDIS_USERNAME=ray REDIS_PASSWORD=$PASSWORD

# Head, text: the preflight before ray start, the credentials redacted.
run_rl plan "${common[@]}" --hostname training-0 -- python3 train.py
expect_rc 0 "head plan"
expect_in "$out" "before ray start:" "preflight section"
expect_in "$out" "wait up to 5m for Redis at redis.redis.svc.cluster.local:6379 to answer PING (AUTH as ray with REDIS_PASSWORD); storage namespace \"blue-run\"" \
  "preflight action"
expect_in "$out" "--redis-username=ray '--redis-password=***'" "redacted ray start"
expect_in "$out" "RAY_REDIS_ADDRESS=redis://redis.redis.svc.cluster.local:6379  [user]" "address for Ray"

# Head, JSON: the same, machine-readable.
RAYLAUNCH_OUTPUT=json run_rl plan "${common[@]}" --hostname training-0 -- python3 train.py
expect_rc 0 "head plan json"
echo "$out" > "$WORK/head.json"
"$PY" - "$WORK/head.json" <<'PY' && pass || fail "head JSON plan"
import json, sys
p = json.load(open(sys.argv[1]))
assert "--redis-password=***" in p["ray_start"], p["ray_start"]
assert "--redis-username=ray" in p["ray_start"]
assert p["actions"][-1].startswith("wait up to 5m for Redis at redis.redis.svc.cluster.local:6379"), p["actions"]
assert p["env"]["RAY_external_storage_namespace"]["value"] == "blue-run"
assert "RAY_gcs_rpc_server_reconnect_timeout_s" not in p["env"]
PY

# A flag-given address and namespace reach Ray through the plan's environment.
RAY_REDIS_ADDRESS= RAY_external_storage_namespace= run_rl plan "${common[@]}" --hostname training-0 \
  --redis-address 10.0.0.7:6380 --storage-namespace green
expect_in "$out" "RAY_REDIS_ADDRESS=10.0.0.7:6380" "flag address exported"
expect_in "$out" "(from --redis-address)" "flag address source"
expect_in "$out" "RAY_external_storage_namespace=green" "flag namespace exported"

# Worker: no preflight, no credentials, the reconnect timeout with its reason.
RAYLAUNCH_OUTPUT=json run_rl plan "${common[@]}" --hostname training-2
expect_rc 0 "worker plan"
echo "$out" > "$WORK/worker.json"
"$PY" - "$WORK/worker.json" <<'PY' && pass || fail "worker JSON plan"
import json, sys
p = json.load(open(sys.argv[1]))
v = p["env"]["RAY_gcs_rpc_server_reconnect_timeout_s"]
assert v["value"] == "600" and v["origin"] == "raylaunch" and "Ray's default 60 s" in v["reason"], v
assert not any(a.startswith("--redis-") for a in p["ray_start"]), p["ray_start"]
assert not any("Redis" in a for a in p["actions"]), p["actions"]
PY

# Bad inputs: one line each, exit 64, nothing about the password but its name.
RAY_REDIS_ADDRESS="redis://:$PASSWORD@redis:6379" run_rl plan "${common[@]}" --hostname training-0
expect_rc 64 "credentials in the URL"
expect_in "$err" "RAY_REDIS_ADDRESS: \"redis://:***@redis:6379\" is not valid" "URL: the password not echoed"
expect_in "$err" "no credentials in the address" "URL credentials line"
RAY_REDIS_ADDRESS=redis:99999 run_rl plan "${common[@]}" --hostname training-0
expect_rc 64 "bad port"
REDIS_PASSWORD= run_rl plan "${common[@]}" --hostname training-0
expect_rc 64 "user without password"
expect_in "$err" "REDIS_USERNAME is set but REDIS_PASSWORD is not" "user without password line"
REDIS_PASSWORD="$PASSWORD"$'\n' run_rl plan "${common[@]}" --hostname training-0
expect_rc 64 "password with a newline"
expect_in "$err" "REDIS_PASSWORD: \"<redacted>\" is not valid (expected a password without a trailing newline" \
  "newline line"
run_rl plan "${common[@]}" --hostname training-0 --redis-password "$PASSWORD"
expect_rc 64 "no password flag"
RAYLAUNCH_RAY_ARGS="--redis-password=$PASSWORD" run_rl plan "${common[@]}" --hostname training-0
expect_rc 64 "password in RAYLAUNCH_RAY_ARGS"
expect_in "$err" "RAYLAUNCH_RAY_ARGS: \"--redis-password=***\" is not valid" "ray args: the password not echoed"
expect_in "$err" "use REDIS_PASSWORD (never on a command line)" "ray args line"

# The secret is named in --help, never asked for as a flag.
run_rl plan --help
expect_in "$out" "Environment only: REDIS_PASSWORD" "help names the variable"
expect_not_in "$out" "--redis-password" "help has no password flag"

finish
