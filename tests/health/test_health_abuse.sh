#!/usr/bin/env bash
# The health endpoint under abuse, and at its edges: HEAD gets headers and no body; it answers on
# IPv6 as on IPv4 (IPv6-only clusters); 2,000 slow clients each sending an unfinished request do
# not lock the kubelet's probes out; at its descriptor limit it backs off instead of spinning, and
# serves again once descriptors are free. (Memory under 15,000 slow clients is measured by
# benchmarks/supervisor_abuse.py, not asserted here.)
source "$(dirname "$0")/../support/run_lib.sh"
ports
export PRINT_SIGNALS_TO=$WORK/signals

# raw PORT HOST REQUEST: the raw HTTP response to REQUEST (printf escapes), connection closed by
# the server.
raw() {
  $PY - "$@" <<'PY'
import socket, sys
port, host, request = int(sys.argv[1]), sys.argv[2], sys.argv[3].encode().decode("unicode_escape").encode()
s = socket.create_connection((host, port), timeout=5)
s.sendall(request)
data = b""
while chunk := s.recv(65536):
    data += chunk
sys.stdout.write(data.decode(errors="replace"))
PY
}

# Open files: a hard limit low enough to reach (raylaunch raises its soft limit to the hard one).
pod h $(loopback_env) RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT -- run -- print_signals
poll 20 grep -q ready "$WORK/signals"

# HEAD: GET's status and headers (Content-Length included), no body.
raw "$HEALTH_PORT" 127.0.0.1 'HEAD /livez HTTP/1.1\r\nHost: x\r\n\r\n' >"$WORK/head.out"
expect_in head.out "HTTP/1.1 200 OK"
grep -q "^Content-Length: [1-9]" "$WORK/head.out" || fail "HEAD without GET's Content-Length: $(cat "$WORK/head.out")"
[[ "$(sed -n '/^\r$/,$p' "$WORK/head.out" | tail -n +2)" == "" ]] || fail "HEAD got a body: $(cat "$WORK/head.out")"

# IPv6 and IPv4.
if $PY -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
  raw "$HEALTH_PORT" ::1 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\n' >"$WORK/v6.out"
  expect_in v6.out "HTTP/1.1 200 OK"
else
  echo "note: no IPv6 loopback here: the IPv6 half was skipped"
fi
raw "$HEALTH_PORT" 127.0.0.1 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\n' >"$WORK/v4.out"
expect_in v4.out "HTTP/1.1 200 OK"

# 2,000 slow clients, each with an unfinished 8 KB request, kept open: probes still answered.
$PY - "$HEALTH_PORT" "$WORK/slow.ready" <<'PY' &
import socket, sys, time
port, ready = int(sys.argv[1]), sys.argv[2]
held = []
for i in range(2000):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /livez HTTP/1.1\r\nX-Slow: " + b"a" * 8000)
        held.append(s)
    except OSError:
        pass
open(ready, "w").write(str(len(held)))
time.sleep(60)
PY
PIDS+=($!)
SLOW=$!
poll 60 test -s "$WORK/slow.ready"
for i in 1 2 3; do
  [[ "$(http "$HEALTH_PORT" /livez)" == "200 ok:"* ]] || fail "probe $i under 2,000 slow clients: $(http "$HEALTH_PORT" /livez)"
done
kill "$SLOW"
kill -TERM "${POD[h]}"
finish h 30
expect_rc 143 "after the slow clients"
expect_clean

# At the descriptor limit (hard limit 64): the accept loop waits instead of spinning, says so
# once, and serves again when the clients are gone.
: >"$WORK/signals"
mkdir -p "$WORK/lim"
(ulimit -n 64; exec env HOSTNAME=lim RAY_TMPDIR="$WORK/lim" $(loopback_env) RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT \
   "$RAYLAUNCH_BIN" run -- print_signals >"$WORK/lim.out" 2>"$WORK/lim.err") &
POD[lim]=$!
PIDS+=($!)
poll 20 grep -q ready "$WORK/signals"
$PY - "$HEALTH_PORT" "$WORK/fill.ready" <<'PY' &
import socket, sys, time
port, ready = int(sys.argv[1]), sys.argv[2]
held = []
for i in range(200):
    try:
        held.append(socket.create_connection(("127.0.0.1", port), timeout=2))
    except OSError:
        pass
open(ready, "w").write(str(len(held)))
time.sleep(60)
PY
PIDS+=($!)
FILL=$!
poll 30 test -s "$WORK/fill.ready"
wait_text lim.err "health endpoint: cannot accept connections (Too many open files); trying again in"
cpu() { awk '{print $14 + $15}' "/proc/${POD[lim]}/stat"; }
before=$(cpu)
sleep 3  # the measure itself: how much CPU three seconds at the limit cost
used=$(( $(cpu) - before ))
(( used < 60 )) || fail "at the descriptor limit raylaunch used $used ticks of CPU in 3 s (spinning?)"
kill "$FILL"
poll 20 sh -c "$PY -c 'import urllib.request; urllib.request.urlopen(\"http://127.0.0.1:$HEALTH_PORT/livez\", timeout=2)'"
kill -TERM "${POD[lim]}"
finish lim 30
expect_rc 143 "after the descriptor limit"
expect_clean
echo PASS
