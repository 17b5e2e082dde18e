#pragma once
#include <vector>

#include "plan/env_var.hpp"
#include "plan/pod_facts.hpp"
#include "plan/pod_identity.hpp"

namespace launcher {

// A worker drains its own node itself on SIGTERM (the run's Wait::drain, bounded by the term
// grace), so Ray's own drain in `ray start`'s SIGTERM handler is switched off there:
// RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S=0 (Ray 2.60's ray_constants.py: default 30 s; "0
// disables draining"). Left on, it would replace raylaunch's drain request (its message, its
// deadline) with a fresh 30 s one and wait past RAYLAUNCH_RAY_STOP_GRACE, and Ray would be
// SIGKILLed: the node recorded as crashed. A value the user set is kept. Nothing on the head,
// whose node is not drained (the cluster ends with it). Releases before 2.60 ignore it.
std::vector<EnvVar> drain_env(const PodIdentity& id, const EnvMap& user_env);

}  // namespace launcher
