#include "redis/redis_error.hpp"

#include "util/strings.hpp"

namespace launcher::redis {

namespace {

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

RedisError classify_error_reply(const std::string& reply, bool sent_password, bool sent_username) {
  const std::string said = util::printable(reply, 200);
  const auto auth = [&](const std::string& hint) {
    return RedisError{RedisError::Kind::auth, "Redis rejected the credentials: " + said + " (" + hint + ")"};
  };
  // Redis 6+ answers a wrong password or user with WRONGPASS; Redis 5 with "ERR invalid password".
  if (reply.starts_with("WRONGPASS") || contains(reply, "invalid username-password pair") ||
      contains(reply, "invalid password")) {
    return auth(sent_username ? "check REDIS_PASSWORD and REDIS_USERNAME, and that the ACL user is enabled"
                              : "check REDIS_PASSWORD");
  }
  // Redis 6+: "ERR AUTH <password> called without any password configured …"; Redis 5:
  // "ERR Client sent AUTH, but no password is set".
  if (contains(reply, "without any password configured") || contains(reply, "no password is set")) {
    return auth("this Redis has no password: unset REDIS_PASSWORD, or configure requirepass");
  }
  if (reply.starts_with("NOAUTH")) {
    return auth(sent_password ? "the password was not accepted" : "this Redis requires a password: set REDIS_PASSWORD");
  }
  // Redis 5 knows only AUTH <password>; ACL users came with Redis 6.
  if (sent_username && contains(reply, "wrong number of arguments") && contains(reply, "auth")) {
    return auth("REDIS_USERNAME needs Redis 6 or later (ACL users); unset it for this server");
  }
  if (reply.starts_with("NOPERM")) {
    return auth("the ACL user may not run PING; Ray's GCS needs a user with access to every command on its keys");
  }
  return RedisError{RedisError::Kind::server, "Redis answered with an error: " + said};
}

}  // namespace launcher::redis
