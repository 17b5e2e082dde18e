# Shared helpers for the GCS end-to-end tests: the built static raylaunch ($RAYLAUNCH_BIN)
# against the FAKE GCS ($FAKE_GCS, tests/gcs/fake). Every test gets its own temp dir, its own
# ports (bound at 0 or picked by `fake_gcs freeport`) and control sockets, so `ctest -j` is safe.
set -euo pipefail
: "${RAYLAUNCH_BIN:?set RAYLAUNCH_BIN to the built raylaunch}"
: "${FAKE_GCS:?set FAKE_GCS to the built fake_gcs}"
[[ -x "$RAYLAUNCH_BIN" && -x "$FAKE_GCS" ]] || { echo "SKIP: binaries not built"; exit 125; }

WORK=$(mktemp -d /tmp/raylaunch-gcs-XXXXXX)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${PIDS[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT

# No proxy may be consulted, and no token or TLS unless a test sets them: not even the runner's
# own ~/.ray/auth_token, which Ray's loader (and raylaunch's) would find.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY RAY_AUTH_TOKEN RAY_AUTH_TOKEN_PATH RAY_AUTH_MODE \
      RAY_ENABLE_K8S_TOKEN_AUTH RAY_USE_TLS RAY_TLS_SERVER_CERT RAY_TLS_SERVER_KEY RAY_TLS_CA_CERT \
      RAYLAUNCH_GCS_ADDRESS RAYLAUNCH_NODES RAYLAUNCH_ORDINAL || true
export HOME=$WORK/home
mkdir -p "$HOME"

fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/*.out "$WORK"/*.err "$WORK"/*.log; do
    [[ -s "$f" ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
  done
  exit 1
}

# Waits up to 10 s for a file to exist and be non-empty.
wait_file() {
  local i
  for i in $(seq 100); do
    [[ -s "$1" ]] && return 0
    sleep 0.1
  done
  fail "timed out waiting for $1"
}

# wait_text NAME TEXT: waits up to 20 s until $WORK/NAME contains TEXT (a log line of a
# background command), so tests step on what the program said, not on sleeps.
wait_text() {
  local i
  for i in $(seq 200); do
    grep -qF -- "$2" "$WORK/$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "timed out waiting for '$2' in $WORK/$1"
}

free_port() { "$FAKE_GCS" freeport; }

# start_gcs ID [--port P] [fake args...]: a fake GCS; sets GCS_PORT and CTL (control socket).
start_gcs() {
  local id=$1
  shift
  rm -f "$WORK/gcs-$id.port"
  "$FAKE_GCS" serve --port-file "$WORK/gcs-$id.port" --control "unix:$WORK/ctl-$id.sock" "$@" \
    2>"$WORK/gcs-$id.log" &
  PIDS+=($!)
  wait_file "$WORK/gcs-$id.port"
  GCS_PORT=$(cat "$WORK/gcs-$id.port")
  CTL="unix:$WORK/ctl-$id.sock"
}

# ctl COMMAND...: talk to the fake GCS started last.
ctl() { "$FAKE_GCS" ctl --control "$CTL" "$@"; }

# counter KEY: one counter from the fake's stats.
counter() { ctl stats | sed -n "s/^$1=//p"; }

# start_raylet [fake raylet args...]: sets RAYLET_PORT and RAYLET_PID.
start_raylet() {
  rm -f "$WORK/raylet.port"
  "$FAKE_GCS" raylet --port-file "$WORK/raylet.port" "$@" 2>"$WORK/raylet.log" &
  RAYLET_PID=$!
  PIDS+=($RAYLET_PID)
  wait_file "$WORK/raylet.port"
  RAYLET_PORT=$(cat "$WORK/raylet.port")
}

# run NAME CMD...: runs CMD, stdout to $WORK/NAME.out, stderr to $WORK/NAME.err; sets RC.
run() {
  local name=$1
  shift
  set +e
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  RC=$?
  set -e
}

expect_rc() { [[ "$RC" == "$1" ]] || fail "$2: exit $RC, expected $1"; }
# expect_in FILE TEXT: fixed-string match.
expect_in() { grep -qF -- "$2" "$WORK/$1" || fail "$WORK/$1 lacks: $2"; }
# expect_one_line NAME: NAME's stdout and stderr together are exactly one line (probe contract).
expect_one_line() { [[ "$(cat "$WORK/$1.out" "$WORK/$1.err" | wc -l)" == 1 ]] || fail "$1: not exactly one line"; }
expect_not_in() { ! grep -qF -- "$2" "$WORK/$1" || fail "$WORK/$1 has: $2"; }

# bg NAME CMD...: runs CMD in the background like `run`; `join NAME` waits and sets RC.
declare -A BG
bg() {
  local name=$1
  shift
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  BG[$name]=$!
  PIDS+=($!)
}
join() {
  set +e
  wait "${BG[$1]}"
  RC=$?
  set -e
}

now_ms() { date +%s%3N; }

# make_certs: a test PKI made with openssl (pki.sh).
source "$(dirname "${BASH_SOURCE[0]}")/pki.sh"
