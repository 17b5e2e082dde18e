#pragma once
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "gcs/auth_token.hpp"
#include "pod_identity.hpp"
#include "settings.hpp"

namespace launcher::gcs {

// Which GCS a command talks to, and which pods it expects to find there.
struct GcsTarget {
  std::string address;                      // HOST:PORT
  std::vector<std::string> expected_names;  // base-0 … base-(N-1), when this pod's identity is known
  std::optional<PodIdentity> identity;
};

// `--address` when given, else this pod's head address (same rules as `plan`; Fatal(64) when it
// cannot be derived). Expected names come from this pod's identity when it resolves; with an
// explicit address an unresolvable identity only means "cannot name the missing pods".
GcsTarget resolve_gcs_target(const Config& config, const EnvMap& env);

// load_auth_token(), with a bad token setting turned into Fatal(64).
std::optional<AuthToken> auth_token_or_fatal(const EnvMap& env);

// What to do after UNAUTHENTICATED, depending on whether a token was sent.
std::string auth_hint(const std::optional<AuthToken>& token);

}  // namespace launcher::gcs
