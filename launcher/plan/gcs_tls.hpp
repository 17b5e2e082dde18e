#pragma once
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/env_var.hpp"

namespace launcher {

// Ray's TLS as this pod's plan has it. Ray reads RAY_USE_TLS and RAY_TLS_* from its environment
// (RayConfig), raylaunch from a flag or the same variables: a value given as a flag is exported
// for `ray start`, so that Ray serves what raylaunch speaks. Paths only: the plan never reads or
// shows the files' contents (`run` reads and checks them before starting anything). Pure.
struct GcsTlsPlan {
  bool enabled = false;
  std::string server_cert;  // paths as given; empty when not set
  std::string server_key;
  std::string ca_cert;
  std::vector<EnvVar> env;  // RAY_USE_TLS and RAY_TLS_* where a flag set them
};

GcsTlsPlan plan_gcs_tls(const Config& config, const EnvMap& user_env);

// "on: RAY_TLS_SERVER_CERT=/etc/ray/tls/tls.crt, RAY_TLS_SERVER_KEY=…, RAY_TLS_CA_CERT=…" or "off".
std::string describe(const GcsTlsPlan& tls);

}  // namespace launcher
