#!/usr/bin/env bash
# No secret in any output, on long lines too: Ray's output is redacted a whole line at a time
# before anything cuts it (the 8,000-byte pieces of a long line, the 512 bytes of it the reason
# keeps), in the log and the termination message; a password under 4 bytes is masked where it
# stands as a word; a password given in RAYLAUNCH_RAY_ARGS is never echoed by the refusal, in
# either form, however long or odd the setting; REDIS_PASSWORD reaches only the head's
# `ray start`. And what Ray prints is escaped once: control characters that reorder or hide text
# (U+202E, C1) never reach the terminal raw, and a byte escaped as \xff is not escaped again. A
# token file is read to its first line only.
source "$(dirname "$0")/../support/run_lib.sh"
ports
LEFT=S3cretLeftHalf RIGHT=S3cretRightHalf
SECRET=$LEFT+$RIGHT

# Ray's output: secrets in lines longer than every cut.
pod loud $(loopback_env) RAYLAUNCH_RAY="$HERE/bin/loud_ray" REDIS_PASSWORD=$SECRET LOUD_SECRET=$SECRET -- run -- true
finish loud
expect_rc 69 "ray start failing loudly"
for f in loud.err termination-log; do
  expect_not_in "$f" "$LEFT"
  expect_not_in "$f" "$RIGHT"
done
expect_in loud.err "ray: auth *** ok"
expect_in loud.err 'bidi \u202e override, c1 \u009b csi, raw \xff byte'
expect_in termination-log 'raw \xff byte'
expect_not_in termination-log '\\xff'
! grep -q $'\xe2\x80\xae\|\xc2\x9b' "$WORK/loud.err" "$WORK/termination-log" || fail "a raw U+202E or C1 control reached the log"

# A 3-byte password: masked where it is a word, not inside other words.
pod short $(loopback_env) RAYLAUNCH_RAY="$HERE/bin/loud_ray" REDIS_PASSWORD=p4s LOUD_SECRET=p4s -- run -- true
finish short
expect_rc 69 "short password"
expect_in short.err "ray: auth *** ok"
expect_not_in short.err "auth p4s"

# A password in RAYLAUNCH_RAY_ARGS is refused and never echoed: both forms, with a backslash in
# it, and in a setting over 256 bytes.
long=$(printf -- '--resources={"r%03d":1} ' $(seq 30))
for args in "--redis-password hunter2-space --num-cpus=2" "--redis-password=hunter2-equals --num-cpus=2" \
            '--redis-password=hunter2\back' "$long --redis-password=hunter2-long"; do
  pod args $(loopback_env) RAYLAUNCH_RAY_ARGS="$args" -- plan -- true
  finish args
  expect_rc 64 "a password in RAYLAUNCH_RAY_ARGS"
  expect_in args.err "RAYLAUNCH_RAY_ARGS"
  expect_not_in args.err "hunter2"
  expect_not_in args.out "hunter2"
done

# A token file whose first line is the token is Ray's, however long the rest (only the first
# line is read): no "cannot read the token file" for a 100 KiB file.
{ echo "tok-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"; head -c 100000 /dev/zero | tr '\0' '#'; } >"$WORK/token-file"
pod token RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH="$WORK/token-file" -- wait head --address "127.0.0.1:$(free_port)" --timeout 1s
finish token
expect_rc 69 "a 100 KiB token file (no head to wait for)"
expect_not_in token.err "token file"

# REDIS_PASSWORD goes to the head's `ray start` only: not to the command, not to a worker's Ray.
pod env $(loopback_env) REDIS_PASSWORD=$SECRET -- run -- sh -c 'echo "[${REDIS_PASSWORD:-}]" > "$0"' "$WORK/command-env"
finish env
expect_rc 0 "run with a Redis password"
[[ "$(cat "$WORK/command-env")" == "[]" ]] || fail "the command got REDIS_PASSWORD"
[[ "$(record env.REDIS_PASSWORD)" == "$SECRET" ]] || fail "the head's ray start lost REDIS_PASSWORD"
expect_clean
echo PASS
