#include <catch2/catch.hpp>

#include "config/config.hpp"
#include "config/redis_settings.hpp"
#include "redis_settings_parse.hpp"
#include "util/fatal.hpp"
#include "util/redact.hpp"

using namespace launcher;

namespace {

using redis_test::parse;
using redis_test::problems;

}  // namespace

TEST_CASE("Redis addresses Ray's head accepts are accepted", "[redis-settings]") {
  CHECK(parse_redis_address("redis.redis.svc.cluster.local:6379")->text() == "redis.redis.svc.cluster.local:6379");
  CHECK(parse_redis_address("redis://10.0.0.5:6380")->port == 6380);
  CHECK(parse_redis_address("redis://[fd00::1]:6379")->host == "fd00::1");
  const Config c = parse({{"RAY_REDIS_ADDRESS", "redis://redis:6379"}});
  CHECK(c.redis_address->text() == "redis:6379");
  CHECK(c.redis_address_text == "redis://redis:6379");  // passed to Ray as given
  CHECK(c.storage_namespace == "default");             // Ray's default
  CHECK_FALSE(c.redis_password.has_value());
}

TEST_CASE("a Redis address raylaunch cannot check is refused with the reason", "[redis-settings][bad-input]") {
  const auto why = [](const char* text) {
    const auto r = parse_redis_address(text);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  CHECK(why("redis://:hunter22@redis:6379").find("no credentials in the address") != std::string::npos);
  CHECK(why("redis://redis:6379/0").find("no database number") != std::string::npos);
  CHECK(why("a:6379,b:6379").find("one address, not a list") != std::string::npos);
  CHECK(why("http://redis:6379").find("no other scheme") != std::string::npos);
  CHECK(why("redis").find("port 1-65535") != std::string::npos);
  CHECK(why("redis:0").find("port 1-65535") != std::string::npos);
  CHECK(why("redis:65536").find("port 1-65535") != std::string::npos);
  CHECK(why("fd00::1:6379").find("IPv6 in brackets") != std::string::npos);
  CHECK(why("").find("at most 1024 printable bytes") != std::string::npos);
  CHECK(why("redis:6379\n").find("at most 1024 printable bytes") != std::string::npos);
  CHECK(why(std::string(2000, 'a').c_str()).find("at most 1024") != std::string::npos);
  CHECK(problems({{"RAY_REDIS_ADDRESS", "redis://r:6379/2"}}).front().starts_with(
      "RAY_REDIS_ADDRESS: \"redis://r:6379/2\" is not valid (expected host:port, redis://host:port or "
      "rediss://host:port (TLS); no database number"));
}

TEST_CASE("user, password and namespace are checked at the boundary", "[redis-settings][bad-input]") {
  CHECK(check_redis_username("ray").empty());
  CHECK_FALSE(check_redis_username("").empty());
  CHECK_FALSE(check_redis_username("two words").empty());
  CHECK_FALSE(check_redis_username(std::string(257, 'u')).empty());
  CHECK(check_redis_password("pass word with 'quotes' and $signs").empty());
  CHECK(check_redis_password("hunter22\n").starts_with("a password without a trailing newline"));
  CHECK_FALSE(check_redis_password("a\tb").empty());
  CHECK_FALSE(check_redis_password(std::string(4097, 'p')).empty());
  CHECK(check_storage_namespace("7c1f3a2e-6b0d-4c1e-9a4f-2d9f0c8b1a55").empty());  // KubeRay: the cluster UID
  CHECK(check_storage_namespace("a*b?[c]").empty());  // escaped where it is used
  CHECK_FALSE(check_storage_namespace("").empty());
  CHECK_FALSE(check_storage_namespace(" ns").empty());
  CHECK_FALSE(check_storage_namespace("ns\n").empty());
  CHECK_FALSE(check_storage_namespace(std::string(257, 'n')).empty());
  // Ray's GCS aborts on a namespace with '@' (RedisStoreClient's RAY_CHECK): refused before it starts.
  CHECK(check_storage_namespace("a@b").find("without '@'") != std::string::npos);
  CHECK_FALSE(check_storage_namespace("@").empty());
}

TEST_CASE("a bad password is refused without being shown", "[redis-settings][bad-input][secret]") {
  const auto lines = problems({{"REDIS_PASSWORD", "Hunter2-secret\n"}});
  REQUIRE(lines.size() == 1);
  CHECK(lines.front().starts_with("REDIS_PASSWORD: \"<redacted>\" is not valid (expected a password without"));
  CHECK(lines.front().find("Hunter2") == std::string::npos);
}

TEST_CASE("a password read is registered as a secret for every log line", "[redis-settings][secret]") {
  const Config c = parse({{"REDIS_PASSWORD", "s3cret-for-redact-test"}});
  CHECK(*c.redis_password == "s3cret-for-redact-test");
  CHECK(util::redact("AUTH s3cret-for-redact-test") == "AUTH ***");
}

TEST_CASE("a Redis user without a password is refused: Ray's GCS would abort", "[redis-settings][bad-input]") {
  const auto lines = problems({{"REDIS_USERNAME", "ray"}});
  REQUIRE(lines.size() == 1);
  CHECK(lines.front() ==
        "REDIS_USERNAME is set but REDIS_PASSWORD is not (expected both: Ray authenticates a Redis user only with a "
        "password)");
  CHECK_NOTHROW(parse({{"REDIS_USERNAME", "ray"}, {"REDIS_PASSWORD", "pw-1234"}}));
}

TEST_CASE("the namespace comes from Ray's variable or the flag, the flag winning", "[redis-settings]") {
  CHECK(parse({{"RAY_external_storage_namespace", "blue"}}).storage_namespace == "blue");
  const Config c = parse({{"RAY_external_storage_namespace", "blue"}}, {{"storage_namespace", "green"}});
  CHECK(c.storage_namespace == "green");
  CHECK(c.source_of(&Config::storage_namespace) == "--storage-namespace");
}

TEST_CASE("the dry-run setting is true or false", "[redis-settings]") {
  CHECK_FALSE(parse({}).dry_run);
  CHECK(parse({}, {{"dry_run", "true"}}).dry_run);
  CHECK(parse({{"RAYLAUNCH_DRY_RUN", "true"}}).dry_run);
  CHECK_THROWS_AS(parse({}, {{"dry_run", "yes"}}), Fatal);
}
