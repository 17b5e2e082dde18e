#!/usr/bin/env bash
# The resident health endpoint: /livez, /readyz and /metrics while the command runs, after Ray
# died (liveness fails), and a slow or malformed client never stalls it.
source "$(dirname "$0")/../support/run_lib.sh"
ports
export PRINT_SIGNALS_TO=$WORK/signals
pod h $(loopback_env) RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT RAYLAUNCH_TERM_GRACE=3s -- run -- print_signals
poll 20 grep -q ready "$WORK/signals"
[[ "$(http "$HEALTH_PORT" /livez)" == "200 ok: head GCS at 127.0.0.1:$RAY_PORT answered (Ray "* ]] || fail "livez: $(http "$HEALTH_PORT" /livez)"
[[ "$(http "$HEALTH_PORT" /readyz)" == "200 ok: head GCS at 127.0.0.1:$RAY_PORT answered (Ray "* ]] || fail "readyz: $(http "$HEALTH_PORT" /readyz)"
metrics=$(http "$HEALTH_PORT" /metrics)
for want in 'raylaunch_phase{phase="running_command"} 1' 'raylaunch_nodes_alive 1' 'raylaunch_nodes_expected 1' \
            'raylaunch_command_exit_status -1' '# TYPE raylaunch_command_restarts_total counter' 'raylaunch_ray_up 1'; do
  [[ "$metrics" == *"$want"* ]] || fail "metrics lack: $want"
done
[[ "$(http "$HEALTH_PORT" /nope)" == "404 "* ]] || fail "unknown path"

# A client that connects and says nothing, and one that sends garbage: others are still served.
$PY - "$HEALTH_PORT" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
time.sleep(8)
PY
PIDS+=($!)
printf 'GARBAGE\r\n\r\n' | timeout 5 $PY -c 'import socket,sys; s=socket.create_connection(("127.0.0.1",int(sys.argv[1]))); s.sendall(sys.stdin.buffer.read()); print(s.recv(100))' "$HEALTH_PORT" >"$WORK/garbage.out" || true
expect_in garbage.out "400"
[[ "$(http "$HEALTH_PORT" /livez)" == "200 "* ]] || fail "livez after a slow and a bad client"

# Ray dies: the head's liveness fails, the command is stopped, the run ends with 69.
RAY_TMPDIR=$WORK/h ray stop --force >/dev/null 2>&1 || true
poll 20 sh -c "[ \"\$($PY -c 'import urllib.request,sys
try: urllib.request.urlopen(\"http://127.0.0.1:$HEALTH_PORT/livez\", timeout=2)
except Exception as e: print(getattr(e, \"code\", 0))' 2>/dev/null)\" = 503 ] || ! kill -0 ${POD[h]}"
finish h 30
expect_rc 69 "Ray died"
expect_clean
echo PASS
