# `raylaunch wait redis`: the head's Redis preflight on its own, against a real redis-server
# and the fake servers. Exit 0 when Redis answers PING after AUTH; 69 at once for rejected
# credentials; 69 at the deadline when nothing (usable) answers; 143 on SIGTERM.
source "$(dirname "$0")/lib.sh"
start_redis
export RAY_REDIS_ADDRESS=127.0.0.1:$REDIS_PORT

# Success: the default user with a password holding spaces and quotes.
REDIS_PASSWORD=$PASSWORD run_rl wait redis --timeout 10s
expect_rc 0 "password"
expect_in "$err" "Redis at 127.0.0.1:$REDIS_PORT is ready: PONG after AUTH" "ready line"

# Success: an ACL user, the address with Ray's redis:// scheme and a name resolved by c-ares.
RAY_REDIS_ADDRESS=redis://localhost:$REDIS_PORT REDIS_USERNAME=ray REDIS_PASSWORD=$USER_PASSWORD \
  run_rl wait redis --timeout 10s
expect_rc 0 "ACL user"
expect_in "$err" "PONG after AUTH as ray" "ACL user ready line"

# A wrong password stops at once: it will not heal.
REDIS_PASSWORD=wrong-password-1 run_rl wait redis --timeout 60s
expect_rc 69 "wrong password"
expect_in "$err" "raylaunch: error: Redis at 127.0.0.1:$REDIS_PORT: Redis rejected the credentials: WRONGPASS" \
  "wrong password line"
(( ms < 3000 )) && pass || fail "wrong password took $ms ms, expected an immediate exit"

# A wrong ACL user, and the right user with the default user's password: both rejected at once.
REDIS_USERNAME=nobody-here REDIS_PASSWORD=$USER_PASSWORD run_rl wait redis --timeout 60s
expect_rc 69 "wrong ACL user"
expect_in "$err" "(check REDIS_PASSWORD and REDIS_USERNAME, and that the ACL user is enabled)" "wrong user hint"
(( ms < 3000 )) && pass || fail "wrong user took $ms ms"
REDIS_USERNAME=ray REDIS_PASSWORD=$PASSWORD run_rl wait redis --timeout 60s
expect_rc 69 "ACL user, wrong password"

# No password for a Redis that requires one.
run_rl wait redis --timeout 60s
expect_rc 69 "no password"
expect_in "$err" "NOAUTH Authentication required. (this Redis requires a password: set REDIS_PASSWORD)" "NOAUTH hint"

# Redis started late: the wait logs the failing stage, then passes once Redis answers.
late=$(free_port)
RAY_REDIS_ADDRESS=127.0.0.1:$late REDIS_PASSWORD=$PASSWORD "$RL" wait redis --timeout 30s \
  >"$WORK/late.out" 2>"$WORK/late.err" &
late_pid=$!
sleep 1.5
start_redis "$late"
wait "$late_pid"; rc=$?
err=$(cat "$WORK/late.err"); cat "$WORK/late.out" "$WORK/late.err" >> "$RUN_LOG"
expect_rc 0 "Redis started late"
expect_in "$err" "TCP connect stage failing: Connection refused (127.0.0.1:$late)" "late: the failing stage is logged"
expect_in "$err" "is ready: PONG after AUTH" "late: ready"

# Nothing listening until the deadline: 69, at the deadline (not long after).
down=$(free_port)
RAY_REDIS_ADDRESS=127.0.0.1:$down REDIS_PASSWORD=$PASSWORD run_rl wait redis --timeout 2s
expect_rc 69 "Redis down"
expect_in "$err" "raylaunch: error: Redis at 127.0.0.1:$down not ready at the 2s deadline: TCP connect stage failing" \
  "down line"
(( ms >= 1900 && ms < 4500 )) && pass || fail "Redis down: $ms ms for a 2 s deadline"

# A name that does not resolve fails at the DNS stage.
RAY_REDIS_ADDRESS=no-such-redis.invalid:6379 REDIS_PASSWORD=$PASSWORD run_rl wait redis --timeout 1s
expect_rc 69 "DNS"
expect_in "$err" "DNS stage failing" "DNS stage named"

# A server that accepts TCP and never answers: each attempt times out, the deadline is kept.
start_fake silent
RAY_REDIS_ADDRESS=127.0.0.1:$FAKE_PORT REDIS_PASSWORD=$PASSWORD run_rl wait redis --timeout 3s
expect_rc 69 "silent server"
expect_in "$err" "Redis stage failing: no reply from 127.0.0.1:$FAKE_PORT within" "silent: timeout named"
(( ms >= 2900 && ms < 6500 )) && pass || fail "silent server: $ms ms for a 3 s deadline (+ one 2 s attempt at most)"

# A server that stalls mid-reply, one byte at a time: the attempt's deadline still holds.
start_fake trickle
RAY_REDIS_ADDRESS=127.0.0.1:$FAKE_PORT REDIS_PASSWORD=$PASSWORD run_rl wait redis --timeout 3s
expect_rc 69 "trickling server"
# The attempt's 2 s is shared by its stages: the protocol gets what DNS and TCP left of it.
[[ $err =~ no\ reply\ from\ 127\.0\.0\.1:$FAKE_PORT\ within\ (1[0-9]{3}|2000)\ ms ]] && pass ||
  fail "trickle: timeout named: $err"
(( ms < 6500 )) && pass || fail "trickling server: $ms ms for a 3 s deadline"

# A server that answers garbage (an HTTP server on the port): not Redis, retried to the deadline.
start_fake garbage
RAY_REDIS_ADDRESS=127.0.0.1:$FAKE_PORT REDIS_PASSWORD=$PASSWORD run_rl wait redis --timeout 2s
expect_rc 69 "garbage server"
expect_in "$err" "answered something that is not Redis: protocol error: got \"H\" as reply type byte" "garbage named"

# SIGTERM ends the wait with 143 and one line.
RAY_REDIS_ADDRESS=127.0.0.1:$down REDIS_PASSWORD=$PASSWORD "$RL" wait redis --timeout 60s \
  >"$WORK/term.out" 2>"$WORK/term.err" &
term_pid=$!
sleep 1
kill -TERM "$term_pid"
wait "$term_pid"; rc=$?; err=$(cat "$WORK/term.err")
cat "$WORK/term.out" "$WORK/term.err" >> "$RUN_LOG"
expect_rc 143 "SIGTERM"
expect_in "$err" "wait for Redis at 127.0.0.1:$down stopped after" "SIGTERM line"

# Without an address there is nothing to wait for: a usage error.
unset RAY_REDIS_ADDRESS
run_rl wait redis
expect_rc 64 "no address"
expect_in "$err" "wait redis: no Redis address (expected RAY_REDIS_ADDRESS or --redis-address)" "no address line"

finish
