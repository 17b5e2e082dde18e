#pragma once
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/plan_items.hpp"
#include "plan/pod_facts.hpp"
#include "plan/pod_identity.hpp"

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

// A virtualenv made active the way `source <venv>/bin/activate` would, without a shell:
// PATH gets <venv>/bin first and VIRTUAL_ENV names the venv, so `ray` and `python3` in the
// launch command are the venv's (RLinf images activate theirs only in ~/.bashrc, which an
// exec'd argv never reads). Empty without --venv. Throws Fatal(64) when <venv>/bin is missing.
std::vector<EnvVar> venv_env(const Config& config, const PodFacts& facts);

// The PATH `ray start` and the command run with: <venv>/bin first when there is a venv, then the
// pod's PATH, or the one a container starts with when the image sets none (runc's default).
std::string child_path(const std::optional<std::string>& venv, const EnvMap& env);

// A worker drains its own node itself on SIGTERM (the run's Wait::drain, bounded by the term
// grace), so Ray's own drain in `ray start`'s SIGTERM handler is switched off there:
// RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S=0 (Ray 2.60's ray_constants.py: default 30 s; "0
// disables draining"). Left on, it would replace raylaunch's drain request (its message, its
// deadline) with a fresh 30 s one and wait past RAYLAUNCH_RAY_STOP_GRACE, and Ray would be
// SIGKILLed: the node recorded as crashed. A value the user set is kept. Nothing on the head,
// whose node is not drained (the cluster ends with it). Releases before 2.60 ignore it.
std::vector<EnvVar> drain_env(const PodIdentity& id, const EnvMap& user_env);

}  // namespace launcher
