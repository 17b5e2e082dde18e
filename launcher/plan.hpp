#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "config.hpp"
#include "pod_facts.hpp"
#include "pod_identity.hpp"

namespace launcher {

enum class Origin { raylaunch, user };
const char* to_string(Origin o);

// One variable of the environment `ray start` and the launch command inherit.
struct EnvVar {
  std::string name;
  std::string value;
  Origin origin = Origin::raylaunch;  // user: already set by the user, kept as it is
  std::string reason;
};

enum class CheckStatus { pass, warn, fail };
const char* to_string(CheckStatus s);

// One node check: what was found, and the fix in one line when it is not a pass.
struct Check {
  std::string name;
  CheckStatus status = CheckStatus::pass;
  std::string detail;
  std::string fix;
};

// Everything `run` will do, decided before anything starts. `plan` prints it; `run` executes it.
struct Plan {
  PodIdentity identity;
  ChecksPolicy checks_policy = ChecksPolicy::strict;
  std::vector<Check> checks;
  std::vector<EnvVar> env;              // in the order they are applied
  std::vector<std::string> ray_start;   // argv, no shell: {"ray", "start", …}
  std::vector<std::string> command;     // the launch command (argv), may be empty
  std::vector<std::string> actions;     // process-level changes, e.g. raising RLIMIT_NOFILE
  std::chrono::milliseconds join_timeout{0};
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
