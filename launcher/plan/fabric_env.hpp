#pragma once
#include <optional>
#include <vector>

#include "config/config.hpp"
#include "plan/plan_items.hpp"
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

// NCCL_NET_PLUGIN=ofi when the image, read as NCCL would see it (`image`), has aws-ofi-nccl's
// libnccl-net-ofi.so on the linker's search path but no libnccl-net.so at all, the name NCCL
// loads when NCCL_NET_PLUGIN is unset (the link a multi-stage build or
// --disable-nccl-net-symlink leaves out). nullopt otherwise, and always when the user set
// NCCL_NET_PLUGIN: their value wins, and the nccl-net-plugin check judges it.
std::optional<EnvVar> ofi_plugin_name(const FabricFacts& image, const EnvMap& user_env);

// Where a late NCCL variable goes among fabric_env's `vars`: after the last NCCL_ one, before
// RLinf's and raylaunch's own.
std::size_t after_nccl(const std::vector<EnvVar>& vars);

}  // namespace launcher
