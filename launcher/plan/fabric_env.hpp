#pragma once
#include <vector>

#include "config/config.hpp"
#include "plan/check.hpp"
#include "plan/env_var.hpp"
#include "plan/pod_facts.hpp"
#include "plan/pod_identity.hpp"

namespace launcher {

struct FabricEnv {
  std::vector<EnvVar> vars;      // what `ray start` and the command inherit, with reasons
  std::vector<Check> warnings;   // user-set values env_rules.json lists as harmful
};

// The environment policy of ../shared/reference/fabric-and-node-checks.md §2–§3, as a pure
// function: set only what helps, only when it applies (EFA variables only with EFA devices),
// never a harmful value, and never override a value already in `user_env`: such a variable is
// reported with origin "user". RAYLAUNCH_* describe the plan and are always set.
FabricEnv fabric_env(const PodIdentity& id, const NodeFacts& node, const EnvMap& user_env, ChecksPolicy policy);

}  // namespace launcher
