# Shared helpers for the tests of the FAKE `ray` CLI (tests/fakes/ray/bin/ray) and the FAKE GCS and
# raylet it runs ($FAKE_GCS, tests/fakes/gcs). Each "pod" gets its own RAY_TMPDIR under this test's
# temp dir, so `ray stop` in one pod never touches another, and tests can run side by side.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RAY=$HERE/bin/ray
# ctest sets FAKE_GCS; by hand, the newest fake_gcs in a build directory of this checkout.
: "${FAKE_GCS:=$(ls -t "$HERE"/../../../build*/tests/fakes/fake_gcs 2>/dev/null | head -n1)}"
[[ -n "$FAKE_GCS" && -x "$FAKE_GCS" ]] || { echo "SKIP: fake_gcs not built (set FAKE_GCS)"; exit 125; }
export FAKE_GCS

source "$HERE/../../support/fail_fast.sh"
new_work fakeray
FAIL_LOGS=('*.out' '*/ray/session_latest/logs/*')
FAIL_TAIL=15
export FAKE_RAY_RECORD_DIR=$WORK/records
fast_raylet_health_checks
unset RAY_ADDRESS RAY_AUTH_MODE RAY_AUTH_TOKEN RAY_AUTH_TOKEN_PATH FAKE_RAY_FAIL_START FAKE_RAY_DIE_AFTER \
      FAKE_RAY_IGNORE_SIGTERM FAKE_RAY_GCS_ARGS http_proxy https_proxy HTTP_PROXY HTTPS_PROXY || true

# Every process whose program lies under $WORK: the fakes' gcs_server and raylet symlinks.
leftovers() {
  local d exe
  for d in /proc/[0-9]*; do
    exe=$({ tr '\0' '\n' <"$d/cmdline"; } 2>/dev/null | head -n1) || continue
    [[ "$exe" == "$WORK/"* && "$(awk '{print $3}' "$d/stat" 2>/dev/null)" != Z ]] && echo "${d#/proc/}"
  done
  return 0
}

# pod NAME [WRAPPER...] -- ray ARGS...: runs `ray ARGS` as pod NAME (RAY_TMPDIR=$WORK/NAME) in the
# background, output in $WORK/NAME.out; sets POD_PID[NAME]. WRAPPER (e.g. ip netns exec NS) execs it.
declare -A POD_PID
pod() {
  local name=$1 wrapper=()
  shift
  while [[ $1 != -- ]]; do wrapper+=("$1"); shift; done
  shift
  mkdir -p "$WORK/$name"
  # bash starts background commands with SIGINT and SIGQUIT ignored; a supervisor would not.
  RAY_TMPDIR=$WORK/$name "${wrapper[@]}" env --default-signal=INT,QUIT "$RAY" "$@" >"$WORK/$name.out" 2>&1 &
  POD_PID[$name]=$!
  PIDS+=($!)
}

# blocking_head NAME: `ray start --head --block` as pod NAME on a free port ($port), once its
# session facts are written.
blocking_head() {
  port=$(free_port)
  pod "$1" -- start --head --port="$port" --block
  poll 20 started "$1"
}

# info NAME KEY: a value from the pod's session facts ($RAY_TMPDIR/ray/session_latest/fake_ray.json).
info() {
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[k]
print(v)' "$WORK/$1/ray/session_latest/fake_ray.json" "$2"
}
started() { [[ -s "$WORK/$1/ray/session_latest/fake_ray.json" ]]; }

# finish NAME: waits for the pod's `ray` to exit; sets RC.
finish() {
  set +e
  wait "${POD_PID[$1]}" 2>/dev/null  # no "Killed" notice from bash
  RC=$?
  set -e
}
# gone PID: the process has exited (a zombie counts: only `wait` removes a child of this shell).
gone() { [[ ! -e /proc/$1/stat || "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" == Z ]]; }
# exits_within SECONDS NAME: the pod's `ray` exits within SECONDS; sets RC.
exits_within() {
  poll "$1" gone "${POD_PID[$2]}"
  finish "$2"
}

expect_no_procs() { local left; left=$(leftovers); [[ -z "$left" ]] || fail "$1: processes left: $left"; }

# nodes ADDRESS [WRAPPER...]: the GCS node table as a client sees it (GetAllNodeInfo over TCP).
nodes() { local a=$1; shift; "$@" "$FAKE_GCS" nodes --address "$a"; }
# count_rows ADDRESS PATTERN N [WRAPPER...]: exactly N rows match the extended regex PATTERN.
count_rows() {
  local a=$1 pattern=$2 n=$3
  shift 3
  [[ "$(nodes "$a" "$@" | grep -cE -- "$pattern")" == "$n" ]]
}
