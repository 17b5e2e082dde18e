#include "app/gcs_target.hpp"

#include "plan/pod_facts.hpp"
#include "plan/pod_name.hpp"
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

std::optional<gcs::AuthToken> auth_token_or_fatal(const EnvMap& env) {
  auto token = gcs::load_auth_token(env);
  if (!token) {
    throw Fatal(exit_code::usage, token.error());
  }
  return token.value();
}

std::string auth_hint(const std::optional<gcs::AuthToken>& token) {
  if (token) {
    return " (the token from " + token->source + " was refused: is it this cluster's token?)";
  }
  return " (the GCS requires Ray's auth token: set RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH)";
}

}  // namespace launcher
