#!/usr/bin/env bash
# `raylaunch redis-cleanup` at the edges: an ACL user limited to ~RAY<ns>@* (all a Ray >= 2.38
# cluster needs) cleans its keys, the old-layout key it may not read left unchecked; a user
# that may not (NOPERM) exits 77, which no retry heals, not 69; a key of the namespace that is
# not a hash is left alone, as a non-hash old-layout key is; a server whose SCAN cursor never
# comes back to 0 is given up at the --timeout deadline; a cleanup stopped half-way (SIGTERM,
# the server gone) says what it had deleted, and why it stopped.
source "$(dirname "$0")/lib.sh"
start_redis
export RAY_REDIS_ADDRESS=127.0.0.1:$REDIS_PORT REDIS_PASSWORD=$PASSWORD

# A key-scoped ACL user: its namespace's keys only, not the old-layout key named after it.
rcli acl setuser scoped on ">$USER_PASSWORD" '~RAYcyan@*' '+@all' >/dev/null
for t in NODE ACTOR JOB; do rcli hset "RAYcyan@$t" a 1 >/dev/null; done
rcli hset cyan "cyan@NODE:1" x >/dev/null
REDIS_USERNAME=scoped REDIS_PASSWORD=$USER_PASSWORD run_rl redis-cleanup --storage-namespace cyan
expect_rc 0 "a key-scoped ACL user"
expect_in "$out" "deleted 3 keys (3 fields) of namespace \"cyan\"" "its keys deleted"
expect_in "$out" "not looked at: key \"cyan\" (Ray <= 2.37 layout): this user may not read it (NOPERM)" \
  "the old layout not looked at"
[[ $(rcli exists RAYcyan@NODE RAYcyan@ACTOR RAYcyan@JOB) == 0 ]] && pass || fail "the scoped user's keys survived"
[[ $(rcli exists cyan) == 1 ]] && pass || fail "a key the user may not read was deleted"

# A user that may read but not delete: NOPERM on UNLINK is 77 (no retry heals it).
rcli acl setuser readonly on ">$USER_PASSWORD" '~*' '+@all' '-unlink' >/dev/null
rcli hset RAYmauve@NODE a 1 >/dev/null
REDIS_USERNAME=readonly REDIS_PASSWORD=$USER_PASSWORD run_rl redis-cleanup --storage-namespace mauve
expect_rc 77 "NOPERM"
expect_in "$err" "redis-cleanup: UNLINK refused: NOPERM" "NOPERM named"
expect_in "$out" "stopped early: had deleted 0 keys" "nothing deleted, said so"

# A key of the namespace that is not a hash: not Ray's, left alone (and said so).
rcli hset RAYlime@NODE a 1 >/dev/null
rcli set RAYlime@NOTES "a string someone left" >/dev/null
run_rl redis-cleanup --storage-namespace lime
expect_rc 0 "a string under RAYlime@"
expect_in "$out" "left alone: 1 key of namespace \"lime\" that is not a hash (e.g. \"RAYlime@NOTES\")" "non-hash named"
[[ $(rcli exists RAYlime@NOTES) == 1 ]] && pass || fail "a string key under RAYlime@ was deleted"
[[ $(rcli exists RAYlime@NODE) == 0 ]] && pass || fail "the hash under RAYlime@ survived"

# A server whose SCAN never comes back to cursor 0: given up at the deadline, with what it did.
rm -f "$WORK/scan.port"
"$PY" "$HERE/../fakes/redis/fake_scan_server.py" "$WORK/scan.port" endless 2>"$WORK/scan.log" &
PIDS+=($!)
SCAN_PID=$!
for i in $(seq 100); do [[ -s "$WORK/scan.port" ]] && break; sleep 0.05; done
SCAN_PORT=$(cat "$WORK/scan.port")
RAY_REDIS_ADDRESS=127.0.0.1:$SCAN_PORT run_rl redis-cleanup --storage-namespace endless --timeout 2s
expect_rc 69 "a SCAN that never ends"
expect_in "$err" "redis-cleanup: gave up at the deadline after" "deadline named"
expect_in "$err" "SCAN had not come back to cursor 0" "the endless SCAN named"
expect_in "$out" "stopped early: had deleted " "what was deleted"

# half_way NAME ACTION...: a cleanup against the endless server in the background; once it has
# said it deleted keys, ACTION runs (with $CLEANUP its pid); sets rc, err and out.
half_way() {
  local name=$1
  shift
  RAY_REDIS_ADDRESS=127.0.0.1:$SCAN_PORT "$RL" redis-cleanup --storage-namespace endless --timeout 1h \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  CLEANUP=$!
  for i in $(seq 300); do grep -q "keys so far" "$WORK/$name.err" && break; sleep 0.1; done
  "$@"
  wait "$CLEANUP" && rc=0 || rc=$?
  err=$(cat "$WORK/$name.err")
  out=$(cat "$WORK/$name.out")
}

# SIGTERM half-way: what was deleted is listed, the reason is not blank, 143.
half_way term eval 'kill -TERM "$CLEANUP"'
expect_rc 143 "SIGTERM half-way"
expect_in "$err" "raylaunch: error: redis-cleanup stopped by SIGTERM; what it deleted stays deleted" "SIGTERM said"
expect_in "$out" "stopped early: had deleted " "what SIGTERM left deleted"

# The server gone half-way: 69, with what was deleted.
half_way gone kill -KILL "$SCAN_PID"
expect_rc 69 "the server gone half-way"
expect_in "$out" "stopped early: had deleted " "what was deleted before the server went"
finish
