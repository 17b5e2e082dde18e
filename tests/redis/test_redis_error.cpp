#include <catch2/catch.hpp>

#include "redis/redis_error.hpp"

using namespace launcher::redis;
using Kind = RedisError::Kind;

// The server texts are Redis' own (5.0, 6.x and 7.x).
TEST_CASE("rejected credentials will not heal, and say which setting to fix", "[redis-error]") {
  const RedisError wrongpass =
      classify_error_reply("WRONGPASS invalid username-password pair or user is disabled.", true, true);
  CHECK(wrongpass.kind == Kind::auth);
  CHECK(wrongpass.will_not_heal());
  CHECK(wrongpass.detail ==
        "Redis rejected the credentials: WRONGPASS invalid username-password pair or user is disabled. (check "
        "REDIS_PASSWORD and REDIS_USERNAME, and that the ACL user is enabled)");
  CHECK(classify_error_reply("ERR invalid password", true, false).kind == Kind::auth);  // Redis 5
  const RedisError noauth = classify_error_reply("NOAUTH Authentication required.", false, false);
  CHECK(noauth.kind == Kind::auth);
  CHECK(noauth.detail.ends_with("(this Redis requires a password: set REDIS_PASSWORD)"));
  const RedisError nopass = classify_error_reply(
      "ERR AUTH <password> called without any password configured for the default user. Are you sure your "
      "configuration is correct?",
      true, false);
  CHECK(nopass.kind == Kind::auth);
  CHECK(nopass.detail.ends_with("(this Redis has no password: unset REDIS_PASSWORD, or configure requirepass)"));
  CHECK(classify_error_reply("ERR Client sent AUTH, but no password is set", true, false).kind == Kind::auth);
  const RedisError acl5 = classify_error_reply("ERR wrong number of arguments for 'auth' command", true, true);
  CHECK(acl5.kind == Kind::auth);
  CHECK(acl5.detail.ends_with("(REDIS_USERNAME needs Redis 6 or later (ACL users); unset it for this server)"));
  CHECK(classify_error_reply("NOPERM this user has no permissions to run the 'ping' command", true, true).kind ==
        Kind::auth);
}

TEST_CASE("other error replies are retried", "[redis-error]") {
  const RedisError loading = classify_error_reply("LOADING Redis is loading the dataset in memory", true, false);
  CHECK(loading.kind == Kind::server);
  CHECK_FALSE(loading.will_not_heal());
  CHECK(loading.detail == "Redis answered with an error: LOADING Redis is loading the dataset in memory");
  CHECK(classify_error_reply("ERR wrong number of arguments for 'auth' command", true, false).kind == Kind::server);
}

TEST_CASE("a server's text is shown escaped, on one line", "[redis-error][bad-input]") {
  const RedisError e = classify_error_reply("ERR evil\nsecond line\x1b[2J", false, false);
  CHECK(e.detail == "Redis answered with an error: ERR evil\\nsecond line\\e[2J");
}
