#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "util/process_limits.hpp"

namespace launcher {

// Raise a soft resource limit before anything is spawned (children inherit it).
struct RaiseLimit {
  util::LimitResource resource = util::LimitResource::nofile;
  std::optional<std::uint64_t> soft;  // nullopt: unlimited
};

// A process-level change `run` makes before `ray start`, decided by the planner: `plan`
// prints it (describe()), `run` executes it (supervisor/apply_actions), never a second path.
using Action = std::variant<RaiseLimit>;

// "raise RLIMIT_NOFILE soft limit to 65536"
std::string describe(const Action& action);

}  // namespace launcher
