# Helpers shared by the shell suites that stop at their first failure (tests/fakes/ray,
# tests/supervisor, tests/health, tests/gcs): a temp dir per test, background processes killed at
# exit, a failure that shows the logs, and waits that poll for what a program said instead of
# sleeping.
#
# Source it from a suite's lib.sh, then call `new_work PREFIX`. A suite may set FAIL_LOGS (globs
# under $WORK whose tails `fail` prints) and FAIL_TAIL, and may define `leftovers` (PIDs of
# processes the test started indirectly, killed at exit too).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/children.sh"

FAIL_LOGS=('*.out' '*.err' '*.log')
FAIL_TAIL=20
PIDS=()
leftovers() { :; }

# new_work PREFIX: this test's temp dir ($WORK, /tmp/PREFIX-XXXXXX), removed at exit unless
# KEEP_WORK is set.
new_work() {
  WORK=$(mktemp -d "/tmp/$1-XXXXXX")
  trap cleanup EXIT
}

cleanup() {
  local p
  kill_children KILL "${PIDS[@]}"  # never a PID this shell has reaped: another program may have it
  # Found by `leftovers` just now (a scan of /proc for this test's marks), killed at once.
  for p in $(leftovers); do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}

fail() {
  echo "FAIL: $*" >&2
  local pattern f
  for pattern in "${FAIL_LOGS[@]}"; do
    for f in "$WORK"/$pattern; do
      [[ -s "$f" ]] && { echo "--- $f" >&2; tail -n "$FAIL_TAIL" "$f" >&2; }
    done
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

# wait_file FILE: waits up to 10 s for FILE to exist and be non-empty.
wait_file() { poll 10 test -s "$1"; }

# wait_text NAME TEXT: waits up to 30 s for TEXT in $WORK/NAME (a log line of a background
# command), so tests step on what the program said, not on sleeps.
wait_text() { poll 30 grep -qF -- "$2" "$WORK/$1"; }

expect_rc() { [[ "$RC" == "$1" ]] || fail "$2: exit $RC, expected $1"; }
# expect_in NAME TEXT: $WORK/NAME contains TEXT (a fixed string).
expect_in() { grep -qF -- "$2" "$WORK/$1" || fail "$WORK/$1 lacks: $2"; }
expect_not_in() { ! grep -qF -- "$2" "$WORK/$1" || fail "$WORK/$1 has: $2"; }

free_port() { "$FAKE_GCS" freeport; }

# Raylet health checks in the fake GCS fast enough for tests (Ray reads the same variables; its
# defaults are 5 s initial delay, 3 s period, 10 s timeout, 5 failures).
fast_raylet_health_checks() {
  export RAY_health_check_initial_delay_ms=300 RAY_health_check_period_ms=200 RAY_health_check_timeout_ms=500 \
         RAY_health_check_failure_threshold=3
}
