# Shared helpers for the GCS end-to-end tests: the built static raylaunch ($RAYLAUNCH_BIN)
# against the FAKE GCS ($FAKE_GCS, tests/fakes/gcs). Every test gets its own temp dir, its own
# ports (bound at 0 or picked by `fake_gcs freeport`) and control sockets, so `ctest -j` is safe.
set -euo pipefail
: "${RAYLAUNCH_BIN:?set RAYLAUNCH_BIN to the built raylaunch}"
: "${FAKE_GCS:?set FAKE_GCS to the built fake_gcs}"
[[ -x "$RAYLAUNCH_BIN" && -x "$FAKE_GCS" ]] || { echo "SKIP: binaries not built"; exit 125; }

source "$(dirname "${BASH_SOURCE[0]}")/../support/fail_fast.sh"
new_work raylaunch-gcs

# No proxy may be consulted, and no token or TLS unless a test sets them: not even the runner's
# own ~/.ray/auth_token, which Ray's loader (and raylaunch's) would find.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY RAY_AUTH_TOKEN RAY_AUTH_TOKEN_PATH RAY_AUTH_MODE \
      RAY_ENABLE_K8S_TOKEN_AUTH RAY_USE_TLS RAY_TLS_SERVER_CERT RAY_TLS_SERVER_KEY RAY_TLS_CA_CERT \
      RAYLAUNCH_GCS_ADDRESS RAYLAUNCH_NODES RAYLAUNCH_ORDINAL || true
export HOME=$WORK/home
mkdir -p "$HOME"

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

# expect_one_line NAME: NAME's stdout and stderr together are exactly one line (probe contract).
expect_one_line() { [[ "$(cat "$WORK/$1.out" "$WORK/$1.err" | wc -l)" == 1 ]] || fail "$1: not exactly one line"; }

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
