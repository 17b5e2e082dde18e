// Redis over TLS at the boundary: rediss:// turns TLS on, Ray's RAY_REDIS_* TLS variables (or
// their flags) are read and checked, TLS settings without rediss:// are refused, and the head's
// plan shows the verified name and hands flag-given settings to Ray's GCS through its env.
#include <catch2/catch.hpp>
#include <algorithm>

#include "config/config.hpp"
#include "config/redis_settings.hpp"
#include "redis_settings_parse.hpp"
#include "fixtures.hpp"
#include "plan/plan.hpp"
#include "util/fatal.hpp"

using namespace launcher;

namespace {

using redis_test::parse;
using redis_test::problems;

}  // namespace

TEST_CASE("rediss:// turns TLS on, with Ray's own variables", "[redis-tls]") {
  CHECK(parse_redis_address("rediss://master.x.cache.amazonaws.com:6379")->text() ==
        "master.x.cache.amazonaws.com:6379");
  CHECK(redis_address_uses_tls("rediss://r:6379"));
  CHECK_FALSE(redis_address_uses_tls("redis://r:6379"));
  CHECK_FALSE(redis_address_uses_tls("r:6379"));
  const Config c = parse({{"RAY_REDIS_ADDRESS", "rediss://redis.internal:6380"},
                          {"RAY_REDIS_CA_CERT", "/etc/redis-tls/ca.crt"},
                          {"RAY_REDIS_CA_PATH", "/etc/ssl/certs"},
                          {"RAY_REDIS_CLIENT_CERT", "/etc/redis-tls/tls.crt"},
                          {"RAY_REDIS_CLIENT_KEY", "/etc/redis-tls/tls.key"},
                          {"RAY_REDIS_SERVER_NAME", "redis.example.com"}});
  CHECK(c.redis_tls.enabled);
  CHECK(c.redis_address->text() == "redis.internal:6380");
  CHECK(c.redis_address_text == "rediss://redis.internal:6380");  // Ray reads the scheme itself
  CHECK(c.redis_tls.ca_cert == "/etc/redis-tls/ca.crt");
  CHECK(c.redis_tls.ca_path == "/etc/ssl/certs");
  CHECK(c.redis_tls.client_cert == "/etc/redis-tls/tls.crt");
  CHECK(c.redis_tls.client_key == "/etc/redis-tls/tls.key");
  CHECK(c.redis_tls.server_name == "redis.example.com");
  // Flags win over the environment, as for every setting.
  const Config f = parse({{"RAY_REDIS_ADDRESS", "rediss://r:6379"}, {"RAY_REDIS_CA_CERT", "/env/ca.crt"}},
                         {{"redis_ca_cert", "/flag/ca.crt"}, {"redis_server_name", "10.0.0.5"}});
  CHECK(f.redis_tls.ca_cert == "/flag/ca.crt");
  CHECK(f.source_of(&Config::redis_tls, &RedisTlsSettings::ca_cert) == "--redis-ca-cert");
  CHECK(f.redis_tls.server_name == "10.0.0.5");
  CHECK_FALSE(parse({{"RAY_REDIS_ADDRESS", "redis://r:6379"}}).redis_tls.enabled);
}

TEST_CASE("bad Redis TLS settings are refused before anything starts", "[redis-tls][bad-input]") {
  CHECK(problems({{"RAY_REDIS_ADDRESS", "rediss://r:6379"}, {"RAY_REDIS_CA_CERT", "ca.crt"}}).front() ==
        "RAY_REDIS_CA_CERT: \"ca.crt\" is not valid (expected an absolute file path)");
  CHECK(problems({{"RAY_REDIS_ADDRESS", "rediss://r:6379"}, {"RAY_REDIS_SERVER_NAME", "not a name"}}).front() ==
        "RAY_REDIS_SERVER_NAME: \"not a name\" is not valid (expected a DNS name or an IP address that the Redis "
        "server's certificate carries)");
  // A certificate without its key (or the other way round) cannot authenticate.
  CHECK(problems({{"RAY_REDIS_ADDRESS", "rediss://r:6379"}, {"RAY_REDIS_CLIENT_CERT", "/t/tls.crt"}}).front() ==
        "RAY_REDIS_CLIENT_CERT is set without RAY_REDIS_CLIENT_KEY (expected both: a client certificate and its key)");
  // TLS settings for a plaintext address would leave Redis (and its password) in plaintext.
  CHECK(problems({{"RAY_REDIS_ADDRESS", "redis://r:6379"}, {"RAY_REDIS_CA_CERT", "/t/ca.crt"}}).front() ==
        "RAY_REDIS_CA_CERT is set but RAY_REDIS_ADDRESS is not rediss:// (expected rediss://host:port for Redis over "
        "TLS, or no TLS settings)");
}

TEST_CASE("the head's plan verifies the server name and hands the TLS settings to Ray", "[redis-tls][gcs-ft]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  const auto plan_of = [&](const EnvMap& env, std::map<std::string, std::string> flags) {
    flags.insert({{"host_root", tree.path()}, {"hostname", "training-0"}, {"nodes", "2"}, {"namespace", "ml"},
                  {"service", "training"}, {"checks", "warn"}});
    const Config config = fixtures::config(flags, env);
    return make_plan(config, gather_pod_facts(config, env, fixtures::eks_limits()), {"python", "train.py"});
  };
  const EnvMap env = {{"RAY_REDIS_ADDRESS", "rediss://redis.redis.svc:6380"},
                      {"RAY_external_storage_namespace", "blue"},
                      {"RAY_REDIS_CA_CERT", "/etc/redis-tls/ca.crt"}};
  const Plan plan = plan_of(env, {});
  const auto* wait = std::get_if<WaitForRedis>(&plan.actions.back());
  REQUIRE(wait != nullptr);
  CHECK(wait->tls_server_name == std::optional<std::string>("redis.redis.svc"));
  CHECK(describe(plan.actions.back()).starts_with(
      "wait up to 5m for Redis at redis.redis.svc:6380 over TLS (certificate for redis.redis.svc) to answer PING"));
  const auto env_of = [](const Plan& p, const std::string& name) -> const EnvVar* {
    const auto it = std::find_if(p.env.begin(), p.env.end(), [&](const EnvVar& v) { return v.name == name; });
    return it == p.env.end() ? nullptr : &*it;
  };
  REQUIRE(env_of(plan, "RAY_REDIS_CA_CERT") != nullptr);
  CHECK(env_of(plan, "RAY_REDIS_CA_CERT")->origin == Origin::user);  // already in Ray's environment
  // Given as flags, they reach Ray's GCS through the plan's environment; the name too.
  const Plan flagged = plan_of({{"RAY_REDIS_ADDRESS", "rediss://10.0.0.7:6380"}, {"RAY_external_storage_namespace", "b"}},
                               {{"redis_ca_cert", "/flag/ca.crt"}, {"redis_server_name", "redis.example.com"}});
  REQUIRE(env_of(flagged, "RAY_REDIS_CA_CERT") != nullptr);
  CHECK(env_of(flagged, "RAY_REDIS_CA_CERT")->value == "/flag/ca.crt");
  CHECK(env_of(flagged, "RAY_REDIS_CA_CERT")->origin == Origin::raylaunch);
  CHECK(env_of(flagged, "RAY_REDIS_SERVER_NAME")->value == "redis.example.com");
  CHECK(std::get<WaitForRedis>(flagged.actions.back()).tls_server_name == std::optional<std::string>("redis.example.com"));
  // Plaintext: no TLS in the plan.
  const Plan plain = plan_of({{"RAY_REDIS_ADDRESS", "redis://r:6379"}, {"RAY_external_storage_namespace", "b"}}, {});
  CHECK_FALSE(std::get<WaitForRedis>(plain.actions.back()).tls_server_name.has_value());
  CHECK(env_of(plain, "RAY_REDIS_CA_CERT") == nullptr);
}
