#!/usr/bin/env bash
# Ray token auth: raylaunch finds the token where Ray's loader finds it, in Ray's order —
# RAY_AUTH_TOKEN, the first line of RAY_AUTH_TOKEN_PATH, the pod's service-account token in
# Kubernetes token mode, ~/.ray/auth_token — and each source works
# against a GCS with auth on and with auth off. A GCS that requires a token rejects wait/status/
# probes without it (exit 69 with a hint, probes 1, head liveness excepted). An unreadable token
# path fails only when a call needs a token, or at once with RAY_AUTH_MODE=token. The token never
# appears in any output, even at debug level.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0
secret="s3cret-$$-token"

start_gcs auth --token "$secret"
ctl add training-0 --head >/dev/null
auth="127.0.0.1:$GCS_PORT"
auth_ctl=$CTL
start_gcs open
ctl add training-0 --head >/dev/null
open="127.0.0.1:$GCS_PORT"

# --- auth on, no token anywhere: refused at once, with the sources to set.
CTL=$auth_ctl
run no "$RAYLAUNCH_BIN" wait --address "$auth" --nodes 1 --timeout 10s --log-level debug
expect_rc 69 "wait without a token"
expect_in no.err "rejected the request: UNAUTHENTICATED: InvalidAuthToken"
expect_in no.err "set RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token"
[[ "$(counter calls.GetAllNodeInfo)" == 1 ]] || fail "UNAUTHENTICATED was retried"

# --- each source, against auth on and auth off.
printf '%s\nsecond line, not part of the token\n' "$secret" >"$WORK/token"
mkdir -p "$HOME/.ray" && printf '  %s  \n' "$secret" >"$HOME/.ray/auth_token.off"
check_source() {  # NAME SOURCE-TEXT ENV...
  local name=$1 source=$2
  shift 2
  for where in auth open; do
    local address=$auth
    [[ $where == open ]] && address=$open
    env "$@" "$RAYLAUNCH_BIN" status --address "$address" --log-level debug \
      >"$WORK/$name-$where.out" 2>"$WORK/$name-$where.err" || fail "$name against auth $where: exit $?"
    expect_in "$name-$where.out" "1 alive"
    env "$@" "$RAYLAUNCH_BIN" wait --address "$address" --nodes 1 --timeout 10s --log-level debug \
      >"$WORK/w$name-$where.out" 2>"$WORK/w$name-$where.err" || fail "wait, $name, auth $where: exit $?"
    expect_in "w$name-$where.err" "sending Ray's auth token from $source"
  done
}
check_source env RAY_AUTH_TOKEN RAY_AUTH_TOKEN="$secret"
check_source path "RAY_AUTH_TOKEN_PATH=$WORK/token" RAY_AUTH_TOKEN_PATH="$WORK/token"
mv "$HOME/.ray/auth_token.off" "$HOME/.ray/auth_token"
check_source home "~/.ray/auth_token ($HOME/.ray/auth_token)"
# RAY_AUTH_TOKEN comes first, then RAY_AUTH_TOKEN_PATH: a wrong one there shadows the right file.
RAY_AUTH_TOKEN_PATH="$WORK/token" RAY_AUTH_TOKEN=wrong run order "$RAYLAUNCH_BIN" status --address "$auth"
expect_rc 69 "RAY_AUTH_TOKEN before RAY_AUTH_TOKEN_PATH"
expect_in order.err "the token from RAY_AUTH_TOKEN was refused"
rm "$HOME/.ray/auth_token"

# Kubernetes token mode (Ray's precedence 3), before ~/.ray/auth_token: with RAY_ENABLE_K8S_TOKEN_AUTH
# (Ray 2.55+) Ray's projected token at the ray.io path, never the API server's token beside it; with
# RAY_AUTH_MODE=k8s (Ray 2.52-2.53) the API server's service-account token. Needs a private mount
# namespace to put tokens where Kubernetes mounts them.
if unshare -m --propagation private true 2>/dev/null; then
  printf '%s\n' "$secret" >"$WORK/sa-token"
  printf 'the-api-servers-token\n' >"$WORK/api-token"
  printf 'not-this-one\n' >"$HOME/.ray/auth_token"
  k8s() {  # RAY-TOKEN API-TOKEN ENV... -- command in a namespace where those tokens are mounted
    unshare -m --propagation private bash -c '
      mount -t tmpfs tmpfs /var/run && mkdir -p /var/run/secrets/kubernetes.io/serviceaccount \
        /var/run/secrets/ray.io/serviceaccount &&
      { [[ -z "$0" ]] || cp "$0" /var/run/secrets/ray.io/serviceaccount/token; } &&
      cp "$1" /var/run/secrets/kubernetes.io/serviceaccount/token && shift && exec env "$@"' "$@"
  }
  k8s "$WORK/sa-token" "$WORK/api-token" RAY_ENABLE_K8S_TOKEN_AUTH=true "$RAYLAUNCH_BIN" wait --address "$auth" \
    --nodes 1 --timeout 5s --log-level debug >"$WORK/k8s.out" 2>"$WORK/k8s.err" || fail "k8s token mode: exit $?"
  expect_in k8s.err "sending Ray's auth token from the Ray service-account token /var/run/secrets/ray.io/serviceaccount/token"
  # Only the API server's token mounted: Ray 2.55+ does not send it, and neither does raylaunch.
  k8s "" "$WORK/api-token" RAY_ENABLE_K8S_TOKEN_AUTH=true "$RAYLAUNCH_BIN" status --address "$auth" \
    >"$WORK/noray.out" 2>"$WORK/noray.err" && fail "the API server's token was used in Ray's place"
  expect_in noray.err "the token from ~/.ray/auth_token ($HOME/.ray/auth_token) was refused"
  k8s "" "$WORK/sa-token" RAY_AUTH_MODE=k8s "$RAYLAUNCH_BIN" wait --address "$auth" --nodes 1 --timeout 5s \
    --log-level debug >"$WORK/k8smode.out" 2>"$WORK/k8smode.err" || fail "RAY_AUTH_MODE=k8s: exit $?"
  expect_in k8smode.err "sending Ray's auth token from the service-account token /var/run/secrets/kubernetes.io/serviceaccount/token"
  k8s "$WORK/sa-token" "$WORK/sa-token" "$RAYLAUNCH_BIN" status --address "$auth" >"$WORK/nok8s.out" 2>"$WORK/nok8s.err" &&
    fail "token mode off: a mounted token was used"
  expect_in nok8s.err "the token from ~/.ray/auth_token ($HOME/.ray/auth_token) was refused"
  rm "$HOME/.ray/auth_token"
else
  echo "note: no mount namespace here; the service-account sources are covered by the unit tests only"
fi

# --- RAY_AUTH_TOKEN of spaces: Ray takes that source and finds no token there; so does raylaunch
# (the right token in RAY_AUTH_TOKEN_PATH is not looked at).
RAY_AUTH_TOKEN="   " RAY_AUTH_TOKEN_PATH="$WORK/token" RAY_AUTH_MODE=token run spaces "$RAYLAUNCH_BIN" status --address "$auth"
expect_rc 64 "RAY_AUTH_TOKEN of spaces with RAY_AUTH_MODE=token"
expect_in spaces.err "RAY_AUTH_TOKEN: the token is not usable: it holds only whitespace"
RAY_AUTH_TOKEN="   " RAY_AUTH_TOKEN_PATH="$WORK/token" run spaces2 "$RAYLAUNCH_BIN" status --address "$auth"
expect_rc 69 "RAY_AUTH_TOKEN of spaces, mode unset"
expect_in spaces2.err "the GCS requires Ray's auth token, and RAY_AUTH_TOKEN: the token is not usable: it holds only whitespace"

# --- a wrong token names its source.
RAY_AUTH_TOKEN="wrong" run wrong "$RAYLAUNCH_BIN" status --address "$auth"
expect_rc 69 "status with a wrong token"
expect_in wrong.err "UNAUTHENTICATED"
expect_in wrong.err "the token from RAY_AUTH_TOKEN was refused"

# --- an unreadable RAY_AUTH_TOKEN_PATH: harmless while no call needs a token…
RAY_AUTH_TOKEN_PATH="$WORK/missing" run missing_open "$RAYLAUNCH_BIN" status --address "$open"
expect_rc 0 "unreadable token path, GCS without auth"
# …the reason when the GCS asks for one…
RAY_AUTH_TOKEN_PATH="$WORK/missing" run missing_auth "$RAYLAUNCH_BIN" wait --address "$auth" --nodes 1 --timeout 5s
expect_rc 69 "unreadable token path, GCS with auth"
expect_in missing_auth.err "(the GCS requires Ray's auth token, and RAY_AUTH_TOKEN_PATH=$WORK/missing: cannot read the token file: No such file or directory"
# …and an error before anything starts when RAY_AUTH_MODE=token says a token is required.
RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH="$WORK/missing" run missing_mode "$RAYLAUNCH_BIN" status --address "$open"
expect_rc 64 "unreadable token path with RAY_AUTH_MODE=token"
expect_in missing_mode.err "raylaunch: error: RAY_AUTH_TOKEN_PATH=$WORK/missing: cannot read the token file: No such file or directory"
RAY_AUTH_MODE=token run nomode "$RAYLAUNCH_BIN" status --address "$open"
expect_rc 64 "RAY_AUTH_MODE=token without a token"
expect_in nomode.err "RAY_AUTH_MODE=token but no token was found"
# RAY_AUTH_MODE=disabled: Ray's clients send no token then, and neither does raylaunch.
RAY_AUTH_MODE=disabled RAY_AUTH_TOKEN="$secret" run disabled "$RAYLAUNCH_BIN" status --address "$auth"
expect_rc 69 "RAY_AUTH_MODE=disabled against a GCS with auth"
expect_in disabled.err "RAY_AUTH_MODE turns it off here"

# --- probes on the head: liveness counts an UNAUTHENTICATED answer as alive; readiness does not.
export RAYLAUNCH_RAY_PORT=${auth##*:}
run live "$RAYLAUNCH_BIN" probe liveness
expect_rc 0 "liveness without a token"
expect_in live.out "answered UNAUTHENTICATED"
run ready "$RAYLAUNCH_BIN" probe readiness
expect_rc 1 "readiness without a token"
expect_in ready.err "UNAUTHENTICATED"
RAY_AUTH_TOKEN_PATH="$WORK/token" run ready2 "$RAYLAUNCH_BIN" probe readiness
expect_rc 0 "readiness with the token"

! grep -rqF -- "$secret" "$WORK"/*.out "$WORK"/*.err || fail "the token was printed"
echo "PASS"
