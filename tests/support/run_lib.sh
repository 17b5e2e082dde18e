# Shared helpers for the end-to-end tests of `raylaunch run`: the built static raylaunch
# ($RAYLAUNCH_BIN) supervising the FAKE `ray` CLI (tests/fakes/ray/bin/ray), which runs the FAKE GCS
# and raylet ($FAKE_GCS). Every test has its own temp dir, ports and RAY_TMPDIR, so `ctest -j`
# is safe. Modelled on dumb-init's and tini's suites: one behaviour per script, a matrix inside.
set -euo pipefail
: "${RAYLAUNCH_BIN:?set RAYLAUNCH_BIN to the built raylaunch}"
: "${FAKE_GCS:?set FAKE_GCS to the built fake_gcs}"
[[ -x "$RAYLAUNCH_BIN" && -x "$FAKE_GCS" ]] || { echo "SKIP: binaries not built"; exit 125; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export FAKE_GCS
export PATH=$HERE/../fakes/ray/bin:$HERE/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PY=/usr/bin/python3

source "$HERE/fail_fast.sh"
new_work raylaunch-run
FAIL_LOGS=('*.out' '*.err' 'termination-log*')
FAIL_TAIL=25
export FAKE_RAY_RECORD_DIR=$WORK/records
mkdir -p "$FAKE_RAY_RECORD_DIR"
fast_raylet_health_checks
unset RAY_ADDRESS RAY_AUTH_MODE RAY_AUTH_TOKEN RAY_AUTH_TOKEN_PATH RAY_REDIS_ADDRESS FAKE_RAY_FAIL_START \
      FAKE_RAY_DIE_AFTER FAKE_RAY_IGNORE_SIGTERM http_proxy https_proxy HTTP_PROXY HTTPS_PROXY || true
for v in $(env | sed -n "s/^\(RAYLAUNCH_[A-Z_]*\)=.*/\1/p" | grep -vx RAYLAUNCH_BIN); do unset "$v"; done
# Settings every test shares: no node checks against this machine, no GPUs or EFA expected.
export RAYLAUNCH_CHECKS=off RAYLAUNCH_GPUS=0 RAYLAUNCH_EFA=0 RAYLAUNCH_TERM_GRACE=5s RAYLAUNCH_RAY_STOP_GRACE=5s \
       RAYLAUNCH_TERMINATION_LOG=$WORK/termination-log

# Every process this test started that is still alive: its fakes (programs under $WORK or the
# fakes' dirs) and anything whose environment carries this test's RAY_TMPDIR root.
leftovers() {
  local d
  for d in /proc/[0-9]*; do
    [[ "$(awk '{print $3}' "$d/stat" 2>/dev/null)" == Z ]] && continue
    if { tr '\0' '\n' <"$d/environ"; } 2>/dev/null | grep -qF "RAY_TMPDIR=$WORK"; then
      echo "${d#/proc/}"
    fi
  done
  return 0
}

# pod NAME [ENV=VALUE...] -- RAYLAUNCH ARGS...: `raylaunch ARGS` in the background as pod NAME
# (HOSTNAME=NAME, RAY_TMPDIR=$WORK/NAME), stdout in NAME.out, stderr in NAME.err (or in
# $POD_STDERR when set: a FIFO, say); POD[NAME]=pid.
declare -A POD
pod() {
  local name=$1 envs=()
  shift
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  mkdir -p "$WORK/$name"
  env HOSTNAME="$name" RAY_TMPDIR="$WORK/$name" "${envs[@]}" "$RAYLAUNCH_BIN" "$@" \
    >"$WORK/$name.out" 2>"${POD_STDERR:-$WORK/$name.err}" &
  POD[$name]=$!
  PIDS+=($!)
}

# finish NAME [SECONDS]: waits for pod NAME (at most SECONDS, default 60); sets RC.
finish() {
  local name=$1 limit=${2:-60} i
  for ((i = 0; i < limit * 10; i++)); do
    kill -0 "${POD[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "${POD[$name]}" 2>/dev/null && fail "$name still running after ${limit}s"
  set +e
  wait "${POD[$name]}"
  RC=$?
  set -e
}

# expect_clean: no process of this test is left (Ray's fakes, commands, orphans).
expect_clean() {
  local left i
  for i in $(seq 30); do
    left=$(leftovers)
    [[ -z "$left" ]] && return 0
    sleep 0.1
  done
  fail "processes left behind: $(for p in $left; do tr '\0' ' ' </proc/$p/cmdline; echo; done)"
}

# head_env PORTS...: the settings of a head on loopback with its own ports (sets RAY_PORT etc.).
ports() {
  RAY_PORT=$(free_port)
  NM_PORT=$(free_port)
  METRICS_PORT=$(free_port)
  HEALTH_PORT=$(free_port)
}
loopback_env() {
  echo RAYLAUNCH_RAY_PORT=$RAY_PORT RAYLAUNCH_NODE_MANAGER_PORT=$NM_PORT RAYLAUNCH_METRICS_EXPORT_PORT=$METRICS_PORT \
       RAYLAUNCH_HEAD_ADDRESS=127.0.0.1
}

# record KEY: a value from the newest `ray start` record (FAKE_RAY_RECORD_DIR), e.g. env.RAYLAUNCH_ROLE.
record() {
  $PY - "$FAKE_RAY_RECORD_DIR" "$1" <<'PY'
import glob, json, os, sys
files = [f for f in glob.glob(os.path.join(sys.argv[1], "ray-start-*.json"))]
if not files:
    sys.exit(1)
rec = json.load(open(max(files, key=os.path.getmtime)))
v = rec
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if isinstance(v, (list, dict)) else v)
PY
}

# http PORT PATH: status code and body of GET http://127.0.0.1:PORT/PATH, "CODE BODY".
http() {
  $PY - "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}{sys.argv[2]}", timeout=5)
    print(r.status, r.read().decode().strip())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode().strip())
PY
}
