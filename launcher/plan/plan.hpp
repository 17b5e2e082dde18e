#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/action.hpp"
#include "plan/check.hpp"
#include "plan/env_var.hpp"
#include "plan/gcs_tls.hpp"
#include "plan/pod_facts.hpp"
#include "plan/pod_identity.hpp"
#include "plan/ray_start_args.hpp"

namespace launcher {

// Everything `run` will do, decided before anything starts. `plan` prints it; `run` executes it.
struct Plan {
  PodIdentity identity;
  ChecksPolicy checks_policy = ChecksPolicy::strict;
  std::vector<Check> checks;
  std::vector<EnvVar> env;              // in the order they are applied
  GcsTlsPlan tls;                       // Ray's TLS: on or off, and the paths of its files
  std::vector<Action> actions;          // process-level changes before ray start, in order
  ObjectStoreSize object_store;         // what --object-store-memory says, and why
  std::vector<std::string> ray_start;   // argv, no shell: {"ray", "start", …}
  std::vector<std::string> command;     // the launch command (argv), may be empty
  std::chrono::milliseconds join_timeout{0};
  // A quorum (--min-nodes below --nodes): the barrier is done once this many pods have been
  // ALIVE for quorum_grace. nullopt: exactly `identity.nodes`.
  std::optional<int> min_nodes;
  std::chrono::milliseconds quorum_grace{0};
  std::string instance_type;
  int expected_gpus = -1;               // -1: no expectation
  int expected_efa = -1;

  // 0, or 78 when a check failed under the strict policy: what `run` exits with before
  // starting anything.
  int exit_code() const;
  // `base` with this plan's variables applied (user values already in `base` are kept).
  EnvMap child_env(const EnvMap& base) const;
};

// Pure: pod facts and settings in, the plan out. Throws Fatal(64) for bad settings.
Plan make_plan(const Config& config, const PodFacts& facts, std::vector<std::string> command);

}  // namespace launcher
