#!/usr/bin/env bash
# A projected token rotates (Kubernetes refreshes it in place; Ray 2.55+'s own expire after 10
# minutes): a wait that outlives its token keeps working because every call re-reads a token file
# that changed. The GCS here accepts the old and the new token during the overlap, then only the
# new one, as a rotation does; a client that loaded its token once is refused from then on (69).
# The same for the worker's wait for its head.
source "$(dirname "$0")/lib.sh"
export HOSTNAME=training-0

# A projected volume as the kubelet writes it: token -> ..data/token, ..data -> a generation dir.
vol=$WORK/projected
gen=0
rotate() {
  gen=$((gen + 1))
  mkdir -p "$vol/..gen$gen"
  printf '%s\n' "$1" >"$vol/..gen$gen/token"
  ln -sfn "..gen$gen" "$vol/..data_tmp"
  mv -T "$vol/..data_tmp" "$vol/..data"
}
mkdir -p "$vol"
rotate first-token
ln -s ..data/token "$vol/token"

start_gcs rot --token first-token
ctl fill 1 training >/dev/null
addr="127.0.0.1:$GCS_PORT"

bg wait env RAY_AUTH_TOKEN_PATH="$vol/token" "$RAYLAUNCH_BIN" wait --address "$addr" --nodes 2 --timeout 60s
wait_text wait.err "1/2 nodes alive"
ctl token second-token first-token >/dev/null   # both valid for a while
rotate second-token
poll 10 grep -q "Ray's auth token changed in RAY_AUTH_TOKEN_PATH=$vol/token: sending the new one" "$WORK/wait.err"
ctl token second-token >/dev/null               # the old one expired
ctl reset-stats >/dev/null
polled() { (( $(counter calls.GetAllNodeInfo) >= 2 )); }
poll 10 polled   # polls go on with the new token ...
[[ "$(counter unauthenticated)" == 0 || -z "$(counter unauthenticated)" ]] || fail "a poll sent the expired token"
ctl add training-1 >/dev/null
join wait
expect_rc 0 "a wait across a token rotation"
expect_in wait.err "2/2 nodes alive"
expect_not_in wait.err "second-token"
expect_not_in wait.err "first-token"

# The worker side: waiting for a head GCS that is down; the token rotates meanwhile, and the GCS
# that comes back accepts only the new one.
ctl token third-token >/dev/null
ctl stop >/dev/null
bg head env RAY_AUTH_TOKEN_PATH="$vol/token" "$RAYLAUNCH_BIN" wait head --address "$addr" --timeout 60s
wait_text head.err "stage failing"
rotate third-token
ctl start >/dev/null
join head
expect_rc 0 "wait head across a token rotation"
expect_in head.err "answered"
expect_not_in head.err "third-token"
echo "PASS"
