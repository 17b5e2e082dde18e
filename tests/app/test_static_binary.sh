# The shipped artifact: fully static, stripped, and its smoke behaviour.
source "$(dirname "$0")/../support/e2e_lib.sh"

if [[ -z "${RAYLAUNCH_SANITIZED:-}" ]]; then  # a sanitizer build is dynamic by necessity
  info=$(file -L "$RL")
  expect_in "$info" "statically linked" "file(1)"
  expect_in "$info" "stripped" "file(1)"
  expect_not_in "$info" "not stripped" "file(1)"
  ldd_out=$(ldd "$RL" 2>&1)
  expect_in "$ldd_out" "not a dynamic executable" "ldd"
fi

run_rl version
expect_rc 0 "version"
[[ $out =~ ^raylaunch\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-f]+|unknown\)$ ]] && pass || fail "version line: $out"

run_rl
expect_rc 64 "no subcommand"
expect_in "$err" "raylaunch: error: A subcommand is required" "no subcommand"

run_rl --help
expect_rc 0 "--help"
expect_in "$out" "Exit codes: 0 ok" "--help lists exit codes"

run_rl plan --help
expect_rc 0 "plan --help"
for env in RAYLAUNCH_NODES RAYLAUNCH_ORDINAL POD_NAMESPACE RAYLAUNCH_SERVICE RAYLAUNCH_CLUSTER_DOMAIN \
           RAYLAUNCH_HEAD_ADDRESS RAYLAUNCH_RAY_PORT RAYLAUNCH_JOIN_TIMEOUT RAYLAUNCH_RAY RAYLAUNCH_CHECKS \
           RAYLAUNCH_GPUS RAYLAUNCH_EFA RAYLAUNCH_SHM_MIN RAYLAUNCH_HOST_ROOT RAYLAUNCH_OUTPUT RAYLAUNCH_LOG_FORMAT; do
  expect_in "$out" "env: $env " "plan --help names $env"
done
expect_in "$out" "default: 300s" "plan --help prints defaults"
finish
