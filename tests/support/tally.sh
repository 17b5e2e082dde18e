# Helpers shared by the shell suites that run every check and count (e2e_lib.sh, tests/redis):
# each expectation passes or fails, the script goes on, and `finish` prints the tally and fails
# the test if anything failed. Source it from a suite's lib.sh after setting RL (the raylaunch
# under test) and WORK; a suite may set RUN_LOG (a file that collects everything raylaunch
# printed) and define `before_finish` (last checks, e.g. that no secret was printed).
set -uo pipefail
_passed=0 _failed=0

pass() { _passed=$((_passed + 1)); }
fail() { _failed=$((_failed + 1)); echo "FAIL: $*" >&2; }
expect_rc() { [[ $rc -eq $1 ]] && pass || fail "$2: exit $rc, expected $1 (stderr: $err)"; }
expect_in() { [[ $1 == *"$2"* ]] && pass || fail "$3: missing '$2' in: $1"; }
expect_not_in() { [[ $1 != *"$2"* ]] && pass || fail "$3: unexpected '$2' in: $1"; }
now_ms() { date +%s%3N; }

# run_rl ARGS...: runs raylaunch (environment as exported), capturing $out, $err, $rc and the
# wall time $ms; with RUN_LOG set, everything it printed is appended there too.
run_rl() {
  local t0
  t0=$(now_ms)
  out=$("$RL" "$@" 2>"$WORK/stderr"); rc=$?
  ms=$(($(now_ms) - t0))
  err=$(cat "$WORK/stderr")
  [[ -z "${RUN_LOG:-}" ]] || printf '%s\n%s\n' "$out" "$err" >> "$RUN_LOG"
}

finish() {
  if declare -F before_finish >/dev/null; then before_finish; fi
  echo "$_passed passed, $_failed failed"
  [[ $_failed -eq 0 ]]
}
