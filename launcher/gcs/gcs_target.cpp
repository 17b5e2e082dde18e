#include "gcs/gcs_target.hpp"

#include "error.hpp"
#include "pod_facts.hpp"

namespace launcher::gcs {

namespace {

// "training-0" with nodes=3 → training-0, training-1, training-2; nothing without a -N suffix.
// The fallback for a pod whose identity does not fully resolve (no namespace or Service given,
// which only the head's DNS name needs).
std::vector<std::string> names_from_hostname(const std::string& hostname, int nodes) {
  const auto dash = hostname.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == hostname.size() ||
      hostname.find_first_not_of("0123456789", dash + 1) != std::string::npos) {
    return {};
  }
  std::vector<std::string> names;
  for (int i = 0; i < nodes; ++i) {
    names.push_back(hostname.substr(0, dash + 1) + std::to_string(i));
  }
  return names;
}

}  // namespace

GcsTarget resolve_gcs_target(const Config& config, const EnvMap& env) {
  GcsTarget target;
  if (!config.address) {
    target.identity = resolve_identity(config, gather_identity_facts(config, env));
    target.address = target.identity->head_address();
  } else {
    target.address = *config.address;
    try {
      const PodFacts facts = gather_identity_facts(config, env);
      try {
        target.identity = resolve_identity(config, facts);
      } catch (const Fatal&) {
        target.expected_names = names_from_hostname(facts.hostname, config.nodes);
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

std::optional<AuthToken> auth_token_or_fatal(const EnvMap& env) {
  auto token = load_auth_token(env);
  if (!token) {
    throw Fatal(exit_code::usage, token.error());
  }
  return token.value();
}

std::string auth_hint(const std::optional<AuthToken>& token) {
  if (token) {
    return " (the token from " + token->source + " was refused: is it this cluster's token?)";
  }
  return " (the GCS requires Ray's auth token: set RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH)";
}

}  // namespace launcher::gcs
