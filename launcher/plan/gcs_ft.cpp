#include "plan/gcs_ft.hpp"

#include <tuple>

#include "util/fatal.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// Ray's default gcs_rpc_server_reconnect_timeout_s is 60: a raylet whose GCS stays
// unreachable that long exits. KubeRay sets 600 on the workers of an FT cluster (PR #1036;
// anchors.md A4): the rule is worker timeout > head's own timeout + head restart + GCS ready.
constexpr const char* k_reconnect_var = "RAY_gcs_rpc_server_reconnect_timeout_s";
constexpr const char* k_reconnect_value = "600";

// `ray start --redis-username` arrived in Ray 2.41 (ray-project/ray#48225); 2.40's click parser
// rejects it ("No such option"), after the Redis preflight, in a pod that then restarts forever.
constexpr int k_username_major = 2;
constexpr int k_username_minor = 41;

void check_redis_username(const Config& config, const std::optional<RayInstall>& ray, GcsFtPlan& out) {
  const std::string setting = config.source_of(&Config::redis_username);
  if (!ray) {
    out.checks.push_back({"gcs-ft:redis-username", CheckStatus::warn,
                          setting + " is set, and the installed Ray's version could not be read (no "
                                    "ray-*.dist-info/METADATA beside the ray script): `ray start --redis-username` "
                                    "exists from Ray 2.41",
                          "use Ray 2.41 or later, or leave " + setting + " unset (Redis' default user)"});
    return;
  }
  if (!ray->at_least(k_username_major, k_username_minor)) {
    throw Fatal(exit_code::usage,
                setting + "=" + util::printable(*config.redis_username) + ": the installed Ray " +
                    util::printable(ray->version) + " (" + util::printable(ray->metadata) +
                    ") has no `ray start --redis-username` (added in Ray 2.41): use Ray 2.41 or later, or unset " +
                    setting + " and give Redis' default user the password");
  }
}

}  // namespace

EnvVar from_setting(const Config& config, const Setting& setting, const std::string& value, const EnvMap& user_env,
                    const std::string& reason) {
  const std::string name(setting.env);
  if (auto it = user_env.find(name); it != user_env.end() && it->second == value) {
    return {name, value, Origin::user, reason};
  }
  const std::string source = config.source_of(setting);
  return {name, value, Origin::raylaunch, reason + (source == "default" ? "" : " (from " + source + ")")};
}

EnvVar outlive_head_restart(const EnvMap& user_env, const std::string& reload) {
  const std::string reason =
      "GCS fault tolerance: a worker's raylet exits when its GCS is unreachable for this long (Ray's default 60 s); "
      "a head restart (pod restart, " + reload + ") takes longer, so workers outlive it (KubeRay #1036)";
  if (auto it = user_env.find(k_reconnect_var); it != user_env.end()) {
    return {k_reconnect_var, it->second, Origin::user,
            "set by the user, kept (raylaunch would set " + std::string(k_reconnect_value) + ": " + reason + ")"};
  }
  return {k_reconnect_var, k_reconnect_value, Origin::raylaunch, reason};
}

GcsFtPlan plan_gcs_ft(const Config& config, const PodIdentity& id, const EnvMap& user_env,
                      const std::optional<RayInstall>& ray) {
  GcsFtPlan out;
  if (!config.redis_address) {
    return out;
  }
  if (id.role == Role::worker) {
    out.env.push_back(outlive_head_restart(user_env, "GCS reload from Redis"));
    return out;
  }
  out.env.push_back(from_setting(config, setting_of(&Config::redis_address), config.redis_address_text, user_env,
                                 "GCS fault tolerance: the head's GCS keeps its tables in this Redis"));
  out.env.push_back(from_setting(config, setting_of(&Config::storage_namespace),
                                 config.storage_namespace, user_env,
                                 "this cluster's keys in Redis are RAY" + config.storage_namespace + "@<table>"));
  if (config.redis_username && config.redis_password) {
    check_redis_username(config, ray, out);
  }
  out.preflight = WaitForRedis{*config.redis_address, config.redis_username, config.redis_password.has_value(),
                               config.storage_namespace, config.join_timeout, std::nullopt};
  if (config.redis_tls.enabled) {
    const RedisTlsSettings& tls = config.redis_tls;
    out.preflight->tls_server_name = tls.server_name.empty() ? config.redis_address->host : tls.server_name;
    // Ray's GCS reads these itself (RayConfig, RAY_-prefixed): settings given as flags reach it
    // through the environment, like RAY_REDIS_ADDRESS.
    using R = RedisTlsSettings;
    for (auto field : {&R::ca_cert, &R::ca_path, &R::client_cert, &R::client_key, &R::server_name}) {
      if (const std::string& value = tls.*field; !value.empty()) {
        out.env.push_back(from_setting(config, setting_of(&Config::redis_tls, field), value, user_env,
                                       "Redis over TLS, for Ray's GCS"));
      }
    }
  }
  if (config.source_of(&Config::storage_namespace) == "default") {
    out.checks.push_back({"gcs-ft:namespace", CheckStatus::warn,
                          "RAY_external_storage_namespace is not set: Ray's default \"" + config.storage_namespace +
                              "\" is shared by every cluster that leaves it unset, and they overwrite each other's "
                              "tables in Redis",
                          "set RAY_external_storage_namespace to a name unique to this cluster"});
  }
  return out;
}

std::vector<std::string> redis_credential_args(const Config& config, const PodIdentity& id) {
  std::vector<std::string> args;
  if (!config.redis_address || id.role != Role::head || !config.redis_password) {
    return args;
  }
  if (config.redis_username) {
    args.push_back("--redis-username=" + *config.redis_username);
  }
  args.push_back("--redis-password=" + *config.redis_password);
  return args;
}

}  // namespace launcher
