# Helpers for end-to-end tests of the built binary ($RAYLAUNCH_BIN). Source it; call `finish`.
set -uo pipefail
: "${RAYLAUNCH_BIN:?set RAYLAUNCH_BIN to the built raylaunch}"
: "${TESTS_DIR:?set TESTS_DIR to tests/}"
RL=$RAYLAUNCH_BIN
PY=/usr/bin/python3  # Debian's interpreter (python3-yaml etc.), not a pyenv one on PATH
_passed=0 _failed=0
WORK=$(mktemp -d /tmp/raylaunch-e2e.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

pass() { _passed=$((_passed + 1)); }
fail() { _failed=$((_failed + 1)); echo "FAIL: $*" >&2; }

# run_rl ARGS...: runs raylaunch, capturing $out, $err and $rc.
run_rl() {
  out=$("$RL" "$@" 2>"$WORK/stderr"); rc=$?
  err=$(cat "$WORK/stderr")
}

expect_rc() { [[ $rc -eq $1 ]] && pass || fail "$2: exit $rc, expected $1 (stderr: $err)"; }
expect_in() { [[ $1 == *"$2"* ]] && pass || fail "$3: missing '$2' in: $1"; }
expect_not_in() { [[ $1 != *"$2"* ]] && pass || fail "$3: unexpected '$2' in: $1"; }

# make_tree KIND DIR [HOSTNAME]: a fake node tree (tests/support/make-node-tree).
make_tree() { bash "$TESTS_DIR/support/make-node-tree" "$@"; }

finish() {
  echo "$_passed passed, $_failed failed"
  [[ $_failed -eq 0 ]]
}
