#include "app/redis_target.hpp"

#include "util/fatal.hpp"

namespace launcher {

namespace {

redis::TlsSetting setting(const Config& config, std::string RedisTlsSettings::*field) {
  const Setting& spec = setting_of(&Config::redis_tls, field);
  const std::string source = config.source_of(spec);
  return {config.redis_tls.*field, source == "default" ? std::string(spec.env) : source};
}

}  // namespace

std::shared_ptr<const redis::TlsClient> redis_tls_or_fatal(const Config& config) {
  const RedisTlsSettings& t = config.redis_tls;
  if (!config.redis_address || !t.enabled) {
    return nullptr;
  }
  using R = RedisTlsSettings;
  redis::TlsOptions options{setting(config, &R::ca_cert), setting(config, &R::ca_path),
                            setting(config, &R::client_cert), setting(config, &R::client_key),
                            setting(config, &R::server_name)};
  if (!options.server_name.set()) {
    options.server_name = {config.redis_address->host, "the host of " + config.source_of(&Config::redis_address)};
  }
  auto client = redis::TlsClient::load(options);
  if (!client) {
    throw Fatal(exit_code::usage, "Redis over TLS: " + client.error());
  }
  return std::move(client).value();
}

redis::RedisTarget redis_target_or_fatal(const Config& config, const char* command) {
  if (!config.redis_address) {
    throw Fatal(exit_code::usage,
                std::string(command) + ": no Redis address (expected RAY_REDIS_ADDRESS or --redis-address)");
  }
  return {*config.redis_address, {config.redis_username, config.redis_password}, redis_tls_or_fatal(config)};
}

}  // namespace launcher
