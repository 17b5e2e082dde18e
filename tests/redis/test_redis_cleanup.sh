# `raylaunch redis-cleanup` against a real redis-server: one cluster's keys in both layouts
# (Ray >= 2.38: hashes RAY<ns>@<TABLE>; <= 2.37: one hash <ns> with fields <ns>@…), every other
# key untouched (other clusters, a namespace with glob characters, one that is a prefix of
# another), --dry-run deleting nothing, 100k keys in batches (SCAN + UNLINK, never KEYS).
source "$(dirname "$0")/lib.sh"
start_redis
export RAY_REDIS_ADDRESS=127.0.0.1:$REDIS_PORT REDIS_PASSWORD=$PASSWORD

# Cluster "blue" in both layouts, and what must survive its cleanup.
for t in NODE ACTOR JOB KV; do rcli hset "RAYblue@$t" a 1 b 2 >/dev/null; done
rcli hset blue "blue@NODE:id1" x "blue@ACTOR:id2" y "blue@JOB:id3" z >/dev/null  # <= 2.37 layout
rcli hset RAYblue2@NODE a 1 >/dev/null          # namespace "blue2": "blue" is its prefix
rcli hset RAYblue@x@NODE a 1 >/dev/null         # namespace "blue@x": RAYblue@* matches it too
rcli hset blue2 "blue2@NODE:id" x >/dev/null    # namespace "blue2", <= 2.37
rcli hset RAYgreen@NODE a 1 >/dev/null
rcli set RAYblue unrelated >/dev/null
rcli set app:session:1 keep >/dev/null
keep=(RAYblue2@NODE RAYblue@x@NODE blue2 RAYgreen@NODE RAYblue app:session:1)
gone=(RAYblue@NODE RAYblue@ACTOR RAYblue@JOB RAYblue@KV blue)

# --dry-run: says what it would delete, deletes nothing.
before=$(rcli dbsize)
run_rl redis-cleanup --storage-namespace blue --dry-run
expect_rc 0 "dry run"
expect_in "$out" "would delete RAYblue@NODE: 2 fields" "dry run lists a key"
expect_in "$out" "would delete hash \"blue\" (Ray <= 2.37 layout): 3 fields" "dry run lists the old hash"
expect_in "$out" "dry run: would delete 5 keys (11 fields) of namespace \"blue\"" "dry run totals"
expect_in "$out" "; nothing deleted" "dry run says nothing was deleted"
[[ $(rcli dbsize) == "$before" ]] && pass || fail "dry run changed the database: $before → $(rcli dbsize) keys"

# The cleanup, namespace from Ray's own variable (as the cleanup Job gives it).
RAY_external_storage_namespace=blue run_rl redis-cleanup
expect_rc 0 "cleanup"
expect_in "$out" "deleted RAYblue@KV: 2 fields" "a key deleted"
expect_in "$out" "deleted hash \"blue\" (Ray <= 2.37 layout): 3 fields" "the old hash deleted"
expect_in "$out" "left alone: 1 key of another namespace that RAYblue@* also matches (e.g. \"RAYblue@x@NODE\")" \
  "the other namespace's key named"
expect_in "$out" "deleted 5 keys (11 fields) of namespace \"blue\" in " "totals"
for k in "${gone[@]}"; do [[ $(rcli exists "$k") == 0 ]] && pass || fail "$k survived the cleanup"; done
for k in "${keep[@]}"; do [[ $(rcli exists "$k") == 1 ]] && pass || fail "$k was deleted, but is not blue's"; done

# Again: nothing left to delete is success.
RAY_external_storage_namespace=blue run_rl redis-cleanup
expect_rc 0 "second cleanup"
expect_in "$out" "nothing to delete: no keys of namespace \"blue\"" "nothing left"

# A namespace with glob characters is matched literally.
ns='a*b?[c]'
rcli hset "RAY$ns@NODE" a 1 >/dev/null
rcli hset "RAYazzbQc@NODE" a 1 >/dev/null   # what the pattern would match unescaped
rcli hset "RAYa*b?[c]x@NODE" a 1 >/dev/null # a namespace the literal one is a prefix of
run_rl redis-cleanup --storage-namespace "$ns"
expect_rc 0 "glob namespace"
[[ $(rcli exists "RAY$ns@NODE") == 0 ]] && pass || fail "the glob namespace's key survived"
[[ $(rcli exists RAYazzbQc@NODE) == 1 ]] && pass || fail "a key the unescaped glob matches was deleted"
[[ $(rcli exists "RAYa*b?[c]x@NODE") == 1 ]] && pass || fail "a key of namespace a*b?[c]x was deleted"

# An old-layout key that is not Ray's hash is left alone, with the reason.
rcli hset mixed "mixed@NODE:1" a "someone-else" b >/dev/null
rcli set plain-string x >/dev/null
run_rl redis-cleanup --storage-namespace mixed
expect_rc 0 "mixed hash"
expect_in "$out" "left alone: hash \"mixed\" holds fields that are not Ray's" "mixed hash reason"
[[ $(rcli exists mixed) == 1 ]] && pass || fail "a hash with foreign fields was deleted"
run_rl redis-cleanup --storage-namespace plain-string
expect_in "$out" "left alone: key \"plain-string\" is a string, not Ray's <= 2.37 hash" "string key reason"
[[ $(rcli exists plain-string) == 1 ]] && pass || fail "a string key was deleted"

# 100k keys: deleted in batches (UNLINK of at most 1000 keys at a time, SCAN, never KEYS),
# 1,000 unrelated keys kept.
"$PY" - > "$WORK/load.resp" <<'PY'
import sys
out = sys.stdout
def cmd(*args):
    out.write("*%d\r\n" % len(args))
    for a in args:
        out.write("$%d\r\n%s\r\n" % (len(a.encode()), a))
for i in range(100000):
    cmd("HSET", "RAYbig@T%d" % i, "f", "v")
for i in range(1000):
    cmd("SET", "unrelated:%d" % i, "v")
PY
rcli --pipe < "$WORK/load.resp" > "$WORK/load.out" 2>&1 || fail "loading 100k keys: $(tail -2 "$WORK/load.out")"
rcli config resetstat >/dev/null
run_rl redis-cleanup --storage-namespace big --log-level warn
expect_rc 0 "100k cleanup"
expect_in "$out" "deleted 100000 keys (100000 fields) of namespace \"big\"" "100k totals"
expect_in "$out" "... and 99900 more keys" "listing capped"
stats=$(rcli info commandstats)
[[ $(rcli --scan --pattern 'RAYbig@*' | wc -l) == 0 ]] && pass || fail "big keys survived"
[[ $(rcli --scan --pattern 'unrelated:*' | wc -l) == 1000 ]] && pass || fail "unrelated keys were deleted"
calls() { sed -n "s/^cmdstat_$1:calls=\([0-9]*\),.*/\1/p" <<< "$stats" | tr -d '\r'; }
unlinks=$(calls unlink) scans=$(calls scan) keys_calls=$(calls keys)
[[ -z "$keys_calls" ]] && pass || fail "KEYS was called $keys_calls times"
(( ${unlinks:-0} >= 100 )) && pass || fail "100k keys in ${unlinks:-0} UNLINKs: expected batches of at most 1000"
(( ${scans:-0} >= 100 )) && pass || fail "100k keys in ${scans:-0} SCANs"
round_trips=$(sed -n 's/.* in \([0-9]*\) round trips$/\1/p' <<< "$out")
(( round_trips >= 100 && round_trips <= scans + 3 )) && pass ||
  fail "$round_trips round trips for $scans SCANs: HLEN and UNLINK should ride with the next SCAN"

# Bad input: 64 before anything is touched; unreachable or rejected: 69.
run_rl redis-cleanup
expect_rc 64 "no namespace"
expect_in "$err" "redis-cleanup: no storage namespace given" "no namespace line"
RAY_external_storage_namespace= run_rl redis-cleanup
expect_rc 64 "empty namespace"
expect_in "$err" "RAY_external_storage_namespace is empty" "empty namespace line"
run_rl redis-cleanup --storage-namespace ""
expect_rc 64 "empty namespace flag"
run_rl redis-cleanup --namespace blue
expect_rc 64 "no --namespace alias"
RAY_REDIS_ADDRESS= run_rl redis-cleanup --storage-namespace blue
expect_rc 64 "no address"
REDIS_PASSWORD=wrong-password-1 run_rl redis-cleanup --storage-namespace green
expect_rc 69 "wrong password"
expect_in "$err" "WRONGPASS" "wrong password line"
(( ms < 3000 )) && pass || fail "wrong password took $ms ms, expected an immediate exit"
RAY_REDIS_ADDRESS=127.0.0.1:$(free_port) run_rl redis-cleanup --storage-namespace green --timeout 1s
expect_rc 69 "unreachable"
[[ $(rcli exists RAYgreen@NODE) == 1 ]] && pass || fail "a failed cleanup deleted something"

# An ACL user limited to one cluster's keys can clean it.
rcli acl setuser blueonly on ">$USER_PASSWORD" '~RAYteal@*' '~teal' '+@all' >/dev/null
rcli hset RAYteal@NODE a 1 >/dev/null
REDIS_USERNAME=blueonly REDIS_PASSWORD=$USER_PASSWORD run_rl redis-cleanup --storage-namespace teal
expect_rc 0 "ACL user cleanup"
[[ $(rcli exists RAYteal@NODE) == 0 ]] && pass || fail "ACL user cleanup left the key"

finish
