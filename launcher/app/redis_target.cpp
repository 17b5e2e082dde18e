#include "app/redis_target.hpp"

#include "util/fatal.hpp"

namespace launcher {

namespace {

redis::TlsSetting setting(const Config& config, const char* key, const std::string& value) {
  const std::string source = config.source_of(key);
  return {value, source == "default" ? std::string(setting_spec(key).env) : source};
}

}  // namespace

std::shared_ptr<const redis::TlsClient> redis_tls_or_fatal(const Config& config) {
  const RedisTlsSettings& t = config.redis_tls;
  if (!config.redis_address || !t.enabled) {
    return nullptr;
  }
  redis::TlsOptions options{setting(config, "redis_ca_cert", t.ca_cert), setting(config, "redis_ca_path", t.ca_path),
                            setting(config, "redis_client_cert", t.client_cert),
                            setting(config, "redis_client_key", t.client_key),
                            setting(config, "redis_server_name", t.server_name)};
  if (!options.server_name.set()) {
    options.server_name = {config.redis_address->host, "the host of " + config.source_of("redis_address")};
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
