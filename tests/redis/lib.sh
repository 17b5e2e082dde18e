# Helpers for the GCS fault-tolerance end-to-end tests: the built static raylaunch
# ($RAYLAUNCH_BIN) against a real redis-server (Debian's), started here on a free loopback port
# with `requirepass` and an ACL user, and the FAKE servers of fake_server.py. Source it; call
# `finish`. Every test has its own temp dir and ports, so `ctest -j` is safe.
: "${RAYLAUNCH_BIN:?set RAYLAUNCH_BIN to the built raylaunch}"
: "${TESTS_DIR:?set TESTS_DIR to tests/}"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "SKIP: redis-server or redis-cli is not installed (scripts/deps --test installs redis-server)"
  exit 125
fi
RL=$RAYLAUNCH_BIN
PY=/usr/bin/python3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d /tmp/raylaunch-redis.XXXXXX)
PIDS=()

# The secrets every test checks for in everything raylaunch printed (RUN_LOG).
PASSWORD='Zq9 s3cret-e2e "quoted"'     # requirepass: spaces and quotes, one AUTH argument
USER_PASSWORD='ray-user-Pw-77x'        # the ACL user "ray"
RUN_LOG=$WORK/all-output
source "$TESTS_DIR/support/tally.sh"
source "$TESTS_DIR/support/children.sh"

cleanup() {
  local p
  kill_children TERM "${PIDS[@]}"  # never a PID this shell has reaped: another program may have it
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT

# Nothing from the caller's environment may change what raylaunch sees.
unset RAY_REDIS_ADDRESS REDIS_PASSWORD REDIS_USERNAME RAY_external_storage_namespace RAYLAUNCH_DRY_RUN \
      RAYLAUNCH_JOIN_TIMEOUT RAYLAUNCH_LOG_LEVEL || true

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_redis [PORT]: a redis-server on 127.0.0.1 (PORT, else a free one) with PASSWORD for
# the default user and the ACL user "ray"; sets REDIS_PORT and waits until it answers.
start_redis() {
  REDIS_PORT=${1:-$(free_port)}
  local conf=$WORK/redis-$REDIS_PORT.conf
  {
    echo "port $REDIS_PORT"
    echo "bind 127.0.0.1"
    echo "save \"\""
    echo "appendonly no"
    echo "dir $WORK"
    echo "requirepass \"Zq9 s3cret-e2e \\\"quoted\\\"\""
    echo "user ray on >$USER_PASSWORD ~* &* +@all"
  } > "$conf"
  redis-server "$conf" > "$WORK/redis-$REDIS_PORT.log" 2>&1 &
  PIDS+=($!)
  REDIS_PID=$!
  local i
  for i in $(seq 100); do
    [[ $(rcli ping 2>/dev/null) == PONG ]] && return 0
    sleep 0.05
  done
  echo "start_redis: redis-server did not answer on port $REDIS_PORT" >&2
  cat "$WORK/redis-$REDIS_PORT.log" >&2
  exit 1
}

stop_redis() { kill "$REDIS_PID" 2>/dev/null; wait "$REDIS_PID" 2>/dev/null; }

# rcli ARGS...: redis-cli as the default user, on the last Redis started.
rcli() { REDISCLI_AUTH=$PASSWORD redis-cli -p "$REDIS_PORT" "$@"; }

# start_fake MODE: one of fake_server.py's lying servers; sets FAKE_PORT.
start_fake() {
  rm -f "$WORK/fake.port"
  "$PY" "$HERE/../fakes/redis/fake_server.py" "$1" "$WORK/fake.port" 2>"$WORK/fake-$1.log" &
  PIDS+=($!)
  local i
  for i in $(seq 100); do
    [[ -s "$WORK/fake.port" ]] && FAKE_PORT=$(cat "$WORK/fake.port") && return 0
    sleep 0.05
  done
  echo "start_fake: $1 did not start" >&2
  exit 1
}

# The Redis password, and the ACL user's, never appear in anything raylaunch printed.
before_finish() {
  if grep -qF -- "$PASSWORD" "$RUN_LOG" || grep -qF -- "$USER_PASSWORD" "$RUN_LOG" ||
     grep -qF -- "s3cret-e2e" "$RUN_LOG"; then
    fail "a Redis password appears in raylaunch's output: $(grep -F -e s3cret-e2e -e "$USER_PASSWORD" "$RUN_LOG" | head -3)"
  else
    pass
  fi
}
