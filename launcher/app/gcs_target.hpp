#pragma once
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "gcs/auth_token.hpp"
#include "gcs/probe.hpp"
#include "plan/pod_identity.hpp"

namespace launcher {

// Which GCS a command talks to, and which pods it expects to find there.
struct GcsTarget {
  std::string address;                      // HOST:PORT
  std::vector<std::string> expected_names;  // base-0 … base-(N-1), when this pod's identity is known
  std::optional<PodIdentity> identity;
};

// `--address` when given, else this pod's head address (same rules as `plan`, with /etc read
// where c-ares reads it; Fatal(64) when it cannot be derived). Expected names come from this
// pod's identity when it resolves; with an explicit address an unresolvable identity only
// means "cannot name the missing pods".
GcsTarget resolve_gcs_target(const Config& config, const EnvMap& env);

// What `raylaunch probe` and the health endpoint ask about this pod.
gcs::ProbeTarget probe_target(const PodIdentity& id, const Config& config);

// load_auth_token(), with a bad token setting turned into Fatal(64).
std::optional<gcs::AuthToken> auth_token_or_fatal(const EnvMap& env);

// What to do after UNAUTHENTICATED, depending on whether a token was sent.
std::string auth_hint(const std::optional<gcs::AuthToken>& token);

}  // namespace launcher
