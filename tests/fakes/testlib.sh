# Shared helpers for the tests of the FAKE `ray` CLI (tests/fakes/bin/ray) and the FAKE GCS and
# raylet it runs ($FAKE_GCS, tests/gcs/fake). Each "pod" gets its own RAY_TMPDIR under this test's
# temp dir, so `ray stop` in one pod never touches another, and tests can run side by side.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RAY=$HERE/bin/ray
# ctest sets FAKE_GCS; by hand, the newest fake_gcs in a build directory of this checkout.
: "${FAKE_GCS:=$(ls -t "$HERE"/../../build*/tests/gcs/fake_gcs 2>/dev/null | head -n1)}"
[[ -n "$FAKE_GCS" && -x "$FAKE_GCS" ]] || { echo "SKIP: fake_gcs not built (set FAKE_GCS)"; exit 125; }
export FAKE_GCS

WORK=$(mktemp -d /tmp/fakeray-XXXXXX)
export FAKE_RAY_RECORD_DIR=$WORK/records
PIDS=()
# Fast raylet health checks (Ray reads the same variables); the GCS's defaults are Ray's 5 s/3 s/10 s/5.
export RAY_health_check_initial_delay_ms=300 RAY_health_check_period_ms=200 RAY_health_check_timeout_ms=500 \
       RAY_health_check_failure_threshold=3
unset RAY_ADDRESS RAY_AUTH_MODE RAY_AUTH_TOKEN RAY_AUTH_TOKEN_PATH FAKE_RAY_FAIL_START FAKE_RAY_DIE_AFTER \
      FAKE_RAY_IGNORE_SIGTERM FAKE_RAY_GCS_ARGS http_proxy https_proxy HTTP_PROXY HTTPS_PROXY || true

# Every process whose program lies under $WORK: the fakes' gcs_server and raylet symlinks.
work_procs() {
  local d exe
  for d in /proc/[0-9]*; do
    exe=$({ tr '\0' '\n' <"$d/cmdline"; } 2>/dev/null | head -n1) || continue
    [[ "$exe" == "$WORK/"* && "$(awk '{print $3}' "$d/stat" 2>/dev/null)" != Z ]] && echo "${d#/proc/}"
  done
  return 0
}

cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in $(work_procs); do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  local f
  for f in "$WORK"/*.out "$WORK"/*/ray/session_latest/logs/*; do
    [[ -s "$f" ]] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }
  done
  exit 1
}

# poll SECONDS CMD...: runs CMD every 0.1 s until it succeeds; fails the test after SECONDS.
poll() {
  local limit=$1 i
  shift
  for ((i = 0; i < limit * 10; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "timed out after ${limit}s waiting for: $*"
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

expect_rc() { [[ "$RC" == "$1" ]] || fail "$2: exit $RC, expected $1"; }
expect_in() { grep -qF -- "$2" "$WORK/$1" || fail "$WORK/$1 lacks: $2"; }
expect_no_procs() { local left; left=$(work_procs); [[ -z "$left" ]] || fail "$1: processes left: $left"; }

# nodes ADDRESS [WRAPPER...]: the GCS node table as a client sees it (GetAllNodeInfo over TCP).
nodes() { local a=$1; shift; "$@" "$FAKE_GCS" nodes --address "$a"; }
# count_rows ADDRESS PATTERN N [WRAPPER...]: exactly N rows match the extended regex PATTERN.
count_rows() {
  local a=$1 pattern=$2 n=$3
  shift 3
  [[ "$(nodes "$a" "$@" | grep -cE -- "$pattern")" == "$n" ]]
}
