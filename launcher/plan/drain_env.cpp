#include "plan/drain_env.hpp"

namespace launcher {

namespace {

constexpr const char* k_ray_drain_var = "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S";
constexpr const char* k_reason =
    "raylaunch drains this worker's node itself on SIGTERM (within RAYLAUNCH_TERM_GRACE); Ray's own drain in ray "
    "start (Ray 2.60+, 30 s by default) would replace that request and outlast RAYLAUNCH_RAY_STOP_GRACE";

}  // namespace

std::vector<EnvVar> drain_env(const PodIdentity& id, const EnvMap& user_env) {
  if (id.role != Role::worker) {
    return {};
  }
  if (auto it = user_env.find(k_ray_drain_var); it != user_env.end()) {
    return {{k_ray_drain_var, it->second, Origin::user,
             std::string("set by the user, kept (raylaunch would set 0: ") + k_reason + ")"}};
  }
  return {{k_ray_drain_var, "0", Origin::raylaunch, k_reason}};
}

}  // namespace launcher
