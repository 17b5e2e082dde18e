# Hostile input across commands (issue 7's list and its siblings): every case is one clear line
# and its documented exit code, never a crash, a hang, raw control bytes or invalid JSON.
source "$(dirname "$0")/../support/e2e_lib.sh"
tree=$WORK/t; make_tree p4de "$tree" training-1
base=(plan --host-root "$tree" --namespace ml --nodes 4 --checks warn)

# A typo in a setting a command does not read does not fail it (a probe must not kill a pod).
RAYLAUNCH_SHM_MIN=bogus RAYLAUNCH_OBJECT_STORE_MEMORY=lots run_rl status --address 127.0.0.1:1
expect_rc 69 "status ignores unrelated bad settings"
expect_not_in "$err" "RAYLAUNCH_SHM_MIN" "status ignores RAYLAUNCH_SHM_MIN"

# An unknown command is named.
run_rl strat
expect_rc 64 "unknown command"
expect_in "$err" 'raylaunch: error: unknown command "strat" (expected one of run, plan, wait, status, probe' "unknown command named"

# Output that cannot be written is an error, not exit 0.
out=$("$RL" "${base[@]}" --hostname training-1 --service training-svc 2>"$WORK/full.err" >/dev/full); rc=$?
[[ $rc -eq 74 ]] && pass || fail "plan > /dev/full: exit $rc"
expect_in "$(cat "$WORK/full.err")" "raylaunch: error: cannot write the output: No space left on device" "/dev/full message"

# Control bytes in a value stay escaped: one line, no ESC reaching the terminal.
run_rl "${base[@]}" --service $'svc\n\e[31mred'
expect_rc 64 "control bytes"
[[ $(wc -l <<<"$err") -eq 1 ]] && pass || fail "control bytes split the error: $err"
expect_not_in "$err" $'\e' "no raw ESC"
expect_in "$err" '\n\e[31mred' "escaped"

# Bytes that are not UTF-8 in the command still give valid JSON.
run_rl "${base[@]}" --hostname training-1 --output json -- python3 $'\xff\xfe' $'"quoted"\n'
expect_rc 0 "non-UTF-8 argv"
/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["command"][2] == "\"quoted\"\n", d["command"]' <<<"$out" &&
  pass || fail "plan JSON with odd bytes is not valid JSON: $out"

# JSON log lines are valid JSON whatever the message holds.
RAYLAUNCH_LOG_FORMAT=json run_rl wait --address 127.0.0.1:1 --timeout 1s --hostname training-1
expect_rc 69 "wait against nothing"
while IFS= read -r line; do
  [[ $line == raylaunch:* ]] && continue
  /usr/bin/python3 -c 'import json,sys; json.loads(sys.argv[1])' "$line" && pass || fail "log line is not JSON: $line"
done <<<"$err"

# Ports that would collide in one pod.
run_rl "${base[@]}" --hostname training-1 --ray-port 6380
expect_rc 64 "port collision"
expect_in "$err" "--ray-port and --node-manager-port are both 6380" "port collision named"

# Addresses: a scheme, a space, an unbracketed IPv6 are refused at once (not after a timeout).
for a in 'http://h:6379' 'h :6379' 'fd00::1:6379'; do
  run_rl status --address "$a"
  expect_rc 64 "address $a"
done

# A huge token file and a token with a BOM, with token auth on (RAY_AUTH_MODE=token): one line,
# exit 64, the token never printed. (With the mode unset, Ray's loader does not fail over a
# token nobody needs yet: tests/gcs/test_token.sh.)
head -c 2000000 /dev/zero | tr '\0' a >"$WORK/huge-token"
RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH=$WORK/huge-token run_rl status --address 127.0.0.1:1
expect_rc 64 "huge token file"
expect_in "$err" "it is longer than 65536 bytes" "huge token named"  # its first line, 64 KiB at most, is read
printf '\xef\xbb\xbfsecret-token-value\n' >"$WORK/bom-token"
RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH=$WORK/bom-token run_rl probe readiness --head-address 127.0.0.1 --nodes 2 --hostname training-1
expect_rc 64 "token with a BOM"
expect_not_in "$err" "secret-token-value" "token not printed"
RAY_AUTH_TOKEN_PATH=$WORK/bom-token run_rl probe readiness --head-address 127.0.0.1 --nodes 2 --hostname training-1
expect_not_in "$err" "secret-token-value" "token not printed (mode unset)"

# A FIFO as /etc/hosts and /dev/zero as product_name: plan neither hangs nor grows.
rm -f "$tree/etc/hosts" "$tree/sys/devices/virtual/dmi/id/product_name"
mkfifo "$tree/etc/hosts"
ln -s /dev/zero "$tree/sys/devices/virtual/dmi/id/product_name"
out=$(timeout 10 "$RL" "${base[@]}" --hostname training-1 --service s 2>"$WORK/fifo.err"); rc=$?
[[ $rc -eq 0 ]] && pass || fail "plan with a FIFO /etc/hosts: exit $rc $(cat "$WORK/fifo.err")"
finish
