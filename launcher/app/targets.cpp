#include "app/targets.hpp"

#include "plan/pod_facts.hpp"
#include "plan/pod_identity.hpp"
#include "util/fatal.hpp"

namespace launcher {

namespace {

// c-ares resolves the GCS's name from the real /etc, so identity is derived from it too.
constexpr const char* k_etc_root = "/";

}  // namespace

GcsTarget resolve_gcs_target(const Config& config, const EnvMap& env) {
  GcsTarget target;
  if (!config.address) {
    target.identity = resolve_identity(config, gather_identity_facts(config, env, k_etc_root));
    target.address = target.identity->head_address();
  } else {
    target.address = config.address->text();
    try {
      const PodFacts facts = gather_identity_facts(config, env, k_etc_root);
      try {
        target.identity = resolve_identity(config, facts);
      } catch (const Fatal&) {
        // No namespace or Service (only the head's DNS name needs them): the names still follow.
        if (ordinal_suffix(facts.hostname)) {
          target.expected_names = pod_names(base_name(facts.hostname), config.nodes);
        }
      }
    } catch (const Fatal&) {
      // No hostname at all (e.g. a debugging shell): counting still works, naming does not.
    }
  }
  if (target.identity) {
    target.expected_names = target.identity->expected_node_names();
  }
  return target;
}

gcs::ProbeTarget probe_target(const PodIdentity& id, const Config& config) {
  gcs::ProbeTarget t;
  t.head = id.role == Role::head;
  t.node_name = id.hostname;
  t.head_address = id.head_address();
  t.ray_port = config.ray_port;
  t.node_manager_port = config.node_manager_port;
  t.timeout = config.probe_timeout;
  return t;
}

namespace {

// The setting that names a TLS file: the flag or variable it came from, else Ray's variable.
gcs::TlsFile tls_file(const Config& config, std::optional<std::string> Config::*field) {
  const Setting& setting = setting_of(field);
  const std::string source = config.source_of(setting);
  return {(config.*field).value_or(""), source == "default" ? std::string(setting.env) : source};
}

}  // namespace

gcs::Credentials credentials_or_fatal(const Config& config, const EnvMap& env) {
  gcs::Credentials credentials;
  auto token = gcs::load_auth_token(env);
  if (!token) {
    throw Fatal(exit_code::usage, token.error());
  }
  credentials.auth = std::move(token).value();
  if (config.use_tls) {
    auto tls = gcs::load_tls_credentials({tls_file(config, &Config::tls_server_cert),
                                          tls_file(config, &Config::tls_server_key),
                                          tls_file(config, &Config::tls_ca_cert)});
    if (!tls) {
      throw Fatal(exit_code::usage, tls.error());
    }
    credentials.tls = std::move(tls).value();
  }
  return credentials;
}

std::string auth_hint(const gcs::Credentials& credentials) {
  if (const auto& token = credentials.token()) {
    return " (the token from " + token->source + " was refused: is it this cluster's token?)";
  }
  if (!credentials.auth.unusable.empty()) {
    return " (the GCS requires Ray's auth token, and " + credentials.auth.unusable + ")";
  }
  if (credentials.auth.mode == gcs::AuthMode::disabled) {
    return " (the GCS requires Ray's auth token, and RAY_AUTH_MODE turns it off here: set RAY_AUTH_MODE=token)";
  }
  return " (the GCS requires Ray's auth token: set RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token)";
}

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
