#!/usr/bin/env bash
# raylaunch's own logging never stops PID 1. A stderr nobody reads (a stalled log pipe) does not
# stall reaping or the health endpoint: lines are dropped and counted instead. A stderr whose
# reader went away (`raylaunch run … 2>&1 | tee log`, then Ctrl-C, which reaches tee and
# raylaunch alike) does not kill it with SIGPIPE: the run still ends as it should, nothing left.
source "$(dirname "$0")/../support/run_lib.sh"
ports
export PRINT_SIGNALS_TO=$WORK/signals

# reader NAME: a process reading the FIFO $WORK/NAME.fifo into $WORK/NAME.err once
# $WORK/NAME.go exists (until then, it holds the pipe open and reads nothing); READER[NAME]=pid.
declare -A READER
reader() {
  mkfifo "$WORK/$1.fifo"
  $PY - "$WORK/$1" <<'PY' &
import os, sys, time
base = sys.argv[1]
fifo = os.open(base + ".fifo", os.O_RDONLY)
while not os.path.exists(base + ".go"):
    time.sleep(0.05)
with open(base + ".err", "wb") as out:
    while chunk := os.read(fifo, 65536):
        out.write(chunk)
PY
  READER[$1]=$!
  PIDS+=($!)
}

# The reader goes away, then SIGINT (Ctrl-C reaches both): raylaunch logs into a closed pipe,
# and still stops the command and Ray and exits 130.
reader tee
touch "$WORK/tee.go"
POD_STDERR=$WORK/tee.fifo pod tee $(loopback_env) -- run -- print_signals
poll 20 grep -q ready "$WORK/signals"
kill -KILL "${READER[tee]}"
wait "${READER[tee]}" 2>/dev/null || true
kill -USR1 "${POD[tee]}"  # logged ("received SIGUSR1") into the closed pipe, and forwarded
poll 10 grep -q "signal 10" "$WORK/signals"
kill -INT "${POD[tee]}"
finish tee 30
expect_rc 130 "SIGINT after stderr's reader went away"
expect_in signals "exit 130"
expect_clean

# A stalled stderr: 5,000 orphans, each reaped with a debug line (far more than a pipe holds).
# Reaping goes on (no zombie left), and /livez answers, while nobody reads a line.
reader stalled
export ORPHANS_REPORT=$WORK/zombies ORPHANS_SETTLE=3
: >"$WORK/signals"
POD_STDERR=$WORK/stalled.fifo pod stalled $(loopback_env) RAYLAUNCH_LOG_LEVEL=debug RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT -- \
  run -- sh -c 'make_orphans 5000 "$PPID"; exec print_signals'
poll 120 test -s "$WORK/zombies"
[[ "$(cat "$WORK/zombies")" == 0 ]] || fail "$(cat "$WORK/zombies") zombies left while stderr was stalled"
probe=$(http "$HEALTH_PORT" /livez 2>&1 || true)
[[ "$probe" == "200 ok:"* ]] || fail "/livez while stderr was stalled: $probe"
poll 20 grep -q ready "$WORK/signals"
touch "$WORK/stalled.go"
# Once the reader has drained the backlog, the next line raylaunch logs (a forwarded SIGUSR1's)
# fits again and brings the count of the dropped ones before it. Only then SIGTERM: on a loaded
# machine the reader may take longer than the 1 s raylaunch gives its last lines at exit.
drained() { kill -USR1 "${POD[stalled]}"; grep -q "log lines were dropped" "$WORK/stalled.err" 2>/dev/null; }
poll 60 drained
kill -TERM "${POD[stalled]}"
finish stalled 30
expect_rc 143 "SIGTERM after a stalled stderr"
wait "${READER[stalled]}" 2>/dev/null || true
expect_in stalled.err "exiting 143: stopped by SIGTERM while the command ran"
expect_clean

# The command makes the stderr it shares with raylaunch non-blocking (O_NONBLOCK belongs to the
# open file: a Python or Node program that sets it on its fd 2 sets it on raylaunch's) and fills
# the pipe while its reader is stalled. raylaunch's next line meets EAGAIN: a slow reader, not a
# gone one (issue 26 item 10). Once the reader reads again, every later line arrives.
reader nonblocking
cat >"$WORK/fill.py" <<'PY'
import fcntl, os, sys
fcntl.fcntl(2, fcntl.F_SETFL, fcntl.fcntl(2, fcntl.F_GETFL) | os.O_NONBLOCK)
for chunk in (b"command output filling the pipe " * 100 + b"\n", b"."):  # to the last byte
    try:
        while True:
            os.write(2, chunk)
    except BlockingIOError:
        pass
open(sys.argv[1], "w").write("full\n")
os.execv("/usr/bin/env", ["env", "print_signals"])
PY
: >"$WORK/signals"
POD_STDERR=$WORK/nonblocking.fifo pod nonblocking $(loopback_env) -- run -- $PY "$WORK/fill.py" "$WORK/full"
poll 30 test -s "$WORK/full"
poll 20 grep -q ready "$WORK/signals"
kill -USR1 "${POD[nonblocking]}"  # logged into the full pipe: EAGAIN
poll 10 grep -q "signal 10" "$WORK/signals"
sleep 0.5  # the writer thread meets the full pipe meanwhile
touch "$WORK/nonblocking.go"
kill -TERM "${POD[nonblocking]}"
finish nonblocking 30
expect_rc 143 "SIGTERM after a stderr the command made non-blocking"
wait "${READER[nonblocking]}" 2>/dev/null || true
expect_in nonblocking.err "sending SIGUSR1 to the command"
expect_in nonblocking.err "exiting 143: stopped by SIGTERM while the command ran"
expect_clean
echo PASS
