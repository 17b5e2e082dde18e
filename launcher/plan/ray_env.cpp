#include "plan/ray_env.hpp"

#include "util/env_map.hpp"
#include "util/fatal.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// A setting given as a flag reaches Ray as its variable; one Ray already reads from the
// environment is shown as the user's.
void export_setting(const Config& config, const Setting& setting, const std::string& value, const EnvMap& user_env,
                    std::vector<EnvVar>& out) {
  const std::string name(setting.env);
  const std::string source = config.source_of(setting);
  const auto it = user_env.find(name);
  if (source == name || source == "default") {
    if (it != user_env.end() && !it->second.empty()) {
      out.push_back({name, it->second, Origin::user, "Ray's TLS: Ray reads it from its environment, as raylaunch did"});
    }
    return;
  }
  out.push_back({name, value, Origin::raylaunch,
                 "Ray's TLS: Ray reads only its environment, so " + source + " reaches ray start this way"});
}

}  // namespace

GcsTlsPlan plan_gcs_tls(const Config& config, const EnvMap& user_env) {
  GcsTlsPlan tls;
  tls.enabled = config.use_tls;
  tls.server_cert = config.tls_server_cert.value_or("");
  tls.server_key = config.tls_server_key.value_or("");
  tls.ca_cert = config.tls_ca_cert.value_or("");
  export_setting(config, setting_of(&Config::use_tls), config.use_tls ? "1" : "0", user_env, tls.env);
  if (tls.enabled) {
    export_setting(config, setting_of(&Config::tls_server_cert), tls.server_cert, user_env, tls.env);
    export_setting(config, setting_of(&Config::tls_server_key), tls.server_key, user_env, tls.env);
    export_setting(config, setting_of(&Config::tls_ca_cert), tls.ca_cert, user_env, tls.env);
  }
  return tls;
}

std::string describe(const GcsTlsPlan& tls) {
  if (!tls.enabled) {
    return "off (RAY_USE_TLS)";
  }
  auto file = [](const char* name, const std::string& path) {
    return std::string(name) + "=" + (path.empty() ? std::string("(not set)") : util::printable(path));
  };
  return "on, mutual: " + file("RAY_TLS_SERVER_CERT", tls.server_cert) + ", " +
         file("RAY_TLS_SERVER_KEY", tls.server_key) + ", " + file("RAY_TLS_CA_CERT", tls.ca_cert);
}

std::string child_path(const std::optional<std::string>& venv, const EnvMap& env) {
  // The PATH a container starts with when the image sets none (runc's default).
  const std::string user_path = util::env_value(env, "PATH");
  const std::string path = user_path.empty() ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" : user_path;
  return venv ? *venv + "/bin:" + path : path;
}

std::vector<EnvVar> venv_env(const Config& config, const PodFacts& facts) {
  if (!config.venv) {
    return {};
  }
  const std::string& venv = *config.venv;
  if (!facts.venv_has_bin) {
    throw Fatal(exit_code::usage, bad_setting(config.source_of(&Config::venv), venv,
                                              "a virtualenv directory with a bin/ directory; " + venv +
                                                  "/bin does not exist in this image"));
  }
  return {
      {"PATH", child_path(config.venv, facts.env), Origin::raylaunch,
       "the venv's bin first, as its activate script does: `ray` and `python3` are the venv's"},
      {"VIRTUAL_ENV", venv, Origin::raylaunch, "the active virtualenv, as its activate script sets it"},
  };
}

namespace {

constexpr const char* k_ray_drain_var = "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S";
constexpr const char* k_reason =
    "raylaunch drains this worker's node itself on SIGTERM (within RAYLAUNCH_TERM_GRACE); Ray's own drain in ray "
    "start (Ray 2.60+, 30 s by default) would replace that request and outlast RAYLAUNCH_RAY_STOP_GRACE";

}  // namespace

std::vector<EnvVar> drain_env(const PodIdentity& id, const EnvMap& user_env) {
  if (id.role != Role::worker) {
    return {};
  }
  if (auto it = user_env.find(k_ray_drain_var); it != user_env.end()) {
    return {{k_ray_drain_var, it->second, Origin::user,
             std::string("set by the user, kept (raylaunch would set 0: ") + k_reason + ")"}};
  }
  return {{k_ray_drain_var, "0", Origin::raylaunch, k_reason}};
}

}  // namespace launcher
