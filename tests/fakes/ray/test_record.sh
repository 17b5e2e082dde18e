#!/usr/bin/env bash
# Every invocation of the fake `ray` leaves one JSON record in $FAKE_RAY_RECORD_DIR: argv exactly,
# the environment, pid/ppid/pgid, and the signal mask and ignored signals it was started with
# (from /proc/self/status), so a supervisor's tests can assert what `ray start` really received.
source "$(dirname "$0")/testlib.sh"

# check RECORD PYTHON-EXPRESSION...: each expression, over the record `r`, must be true.
check() {
  python3 - "$@" <<'PY' || fail "record check failed"
import json, sys
r = json.load(open(sys.argv[1]))
for expr in sys.argv[2:]:
    if not eval(expr, {"r": r}):
        print(f"false: {expr}\n{json.dumps({k: v for k, v in r.items() if k != 'env'}, indent=1)}", file=sys.stderr)
        sys.exit(1)
PY
}
latest() { ls -t "$FAKE_RAY_RECORD_DIR"/ray-"$1"-*.json | head -n1; }

# A clean start: nothing blocked; nothing ignored but what Python itself ignores.
set +e
MARKER="a b" "$RAY" start --head --port=not-a-number "arg with spaces" >/dev/null 2>&1
rc=$?
set -e
[[ $rc == 2 ]] || fail "bad --port: exit $rc, expected 2"
rec=$(latest start)
check "$rec" \
  "r['argv'][1:] == ['start', '--head', '--port=not-a-number', 'arg with spaces']" \
  "r['command'] == 'start'" \
  "r['env']['MARKER'] == 'a b'" \
  "r['ppid'] == $$" \
  "r['signals']['blocked'] == []" \
  "set(r['signals']['ignored']) <= set(r['signals']['interpreter_ignores'])" \
  "int(r['signals']['SigBlk'], 16) == 0"

# A parent that blocks SIGUSR1 and ignores SIGHUP and SIGTERM: the record shows it.
env --block-signal=USR1 --ignore-signal=HUP,TERM "$RAY" stop >/dev/null 2>&1
rec=$(latest stop)
check "$rec" \
  "r['argv'][1:] == ['stop']" \
  "r['signals']['blocked'] == ['SIGUSR1']" \
  "int(r['signals']['SigBlk'], 16) == 1 << 9" \
  "{'SIGHUP', 'SIGTERM'} <= set(r['signals']['ignored'])"

# One record per invocation, named ray-<command>-<ns>-<pid>.json.
"$RAY" --version >/dev/null
n=$(ls "$FAKE_RAY_RECORD_DIR" | grep -c '\.json$')
[[ $n == 3 ]] || fail "expected 3 records, found $n"
[[ -z "$(ls "$FAKE_RAY_RECORD_DIR" | grep -v '^ray-[a-z]*-[0-9]*-[0-9]*\.json$')" ]] || fail "unexpected record names"
echo "PASS"
