#include "plan/gcs_tls.hpp"

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

}  // namespace launcher
