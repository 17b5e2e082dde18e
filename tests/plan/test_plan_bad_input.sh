# Bad input: one line per problem on stderr, exit 64, nothing on stdout, nothing started.
source "$(dirname "$0")/../support/e2e_lib.sh"
tree=$WORK/t; make_tree p4de "$tree" training-1
base=(plan --host-root "$tree" --namespace ml)

bad() {  # bad EXPECTED_LINE ARGS... (env may be set by the caller)
  local expected=$1; shift
  run_rl "$@"
  expect_rc 64 "$*"
  [[ -z $out ]] && pass || fail "$*: stdout not empty: $out"
  [[ $err == "raylaunch: error: $expected" ]] && pass || fail "$*: stderr was: $err"
}

bad '--nodes: "abc" is not valid (expected a whole number from 1 to 100000)' "${base[@]}" --nodes abc
bad '--nodes: "-3" is not valid (expected a whole number from 1 to 100000)' "${base[@]}" --nodes=-3
bad '--ordinal: "x" is not valid (expected a whole number from 0 to 99999)' "${base[@]}" --nodes 4 --ordinal x
bad '--ordinal: ordinal 4 is not below nodes=4 (expected 0..3; set RAYLAUNCH_NODES to the replica count)' \
    "${base[@]}" --nodes 4 --ordinal 4
bad 'hostname training-1: ordinal 1 is not below nodes=1 (set RAYLAUNCH_NODES to the replica count)' \
    "${base[@]}" --hostname training-1
bad 'ordinal: hostname "laptop" has no -N suffix and neither RAYLAUNCH_ORDINAL nor JOB_COMPLETION_INDEX is set (expected a StatefulSet/Indexed Job pod name like training-3, without leading zeros, or --ordinal N)' \
    "${base[@]}" --nodes 2 --hostname laptop --service training-svc
bad 'namespace: not set, and the head'"'"'s DNS name needs it (set POD_NAMESPACE from the Downward API: valueFrom.fieldRef.fieldPath: metadata.namespace, or pass --namespace or --head-address)' \
    plan --host-root "$tree" --nodes 2 --hostname training-1
bad '--checks: "lenient" is not valid (expected one of strict|warn|off)' "${base[@]}" --checks lenient
bad '--join-timeout: "5 min" is not valid (expected a positive duration such as 300, 300s, 5m, 1h, 1m30s or 1500ms, at most 168h)' \
    "${base[@]}" --join-timeout "5 min"
bad '--timeout: "0s" is not valid (expected a positive duration such as 300, 300s, 5m, 1h, 1m30s or 1500ms, at most 168h)' \
    "${base[@]}" --timeout 0s
bad '--shm-min: "64GB" is not valid (expected a size in bytes or with a suffix such as 64Gi, 512Mi, 60G, from 0 to 1024Ti)' \
    "${base[@]}" --shm-min 64GB
bad '--host-root: "/nonexistent/root" is not valid (expected a readable directory; No such file or directory)' \
    plan --host-root /nonexistent/root
RAYLAUNCH_NODES=four bad 'RAYLAUNCH_NODES: "four" is not valid (expected a whole number from 1 to 100000)' plan
RAYLAUNCH_CHECKS=maybe bad 'RAYLAUNCH_CHECKS: "maybe" is not valid (expected one of strict|warn|off)' plan
bad 'The following argument was not expected: --bogus (see raylaunch --help)' plan --bogus

# Several problems at once: each on its own line, all reported, still 64.
run_rl "${base[@]}" --nodes x --checks y --gpus z
expect_rc 64 "three problems"
[[ $(wc -l <<<"$err") -eq 3 ]] && pass || fail "three problems, three lines: $err"
finish
