#pragma once
#include <optional>
#include <vector>

#include "config/config.hpp"
#include "plan/plan_items.hpp"
#include "plan/pod_identity.hpp"
#include "plan/ray_install.hpp"

namespace launcher {

// What GCS fault tolerance (an external Redis, RAY_REDIS_ADDRESS) changes in a pod's plan;
// nothing when no Redis address is set. Pure.
struct GcsFtPlan {
  std::vector<EnvVar> env;             // head: where Ray finds Redis; workers: how long they outlive a head restart
  std::optional<WaitForRedis> preflight;  // head only
  std::vector<Check> checks;           // head: a storage namespace left at Ray's default
};

// Head: RAY_REDIS_ADDRESS and RAY_external_storage_namespace for `ray start` (Ray reads them
// from its environment; a value given as a flag must reach it too), and the Redis preflight.
// Workers: RAY_gcs_rpc_server_reconnect_timeout_s=600 unless the user set it.
// `ray` is the installed Ray (PodFacts::ray_install): a head given REDIS_USERNAME with a Ray
// older than 2.41, whose `ray start` has no --redis-username, is refused (Fatal 64) before
// anything starts; an unknown version is a warning.
GcsFtPlan plan_gcs_ft(const Config& config, const PodIdentity& id, const EnvMap& user_env,
                      const std::optional<RayInstall>& ray = std::nullopt);

// `setting`'s variable with `value`, for Ray to read from its environment: origin user when the
// user exported exactly that, else raylaunch's, the reason naming the flag it came from.
EnvVar from_setting(const Config& config, const Setting& setting, const std::string& value, const EnvMap& user_env,
                    const std::string& reason);

// A worker of a fault-tolerant cluster: RAY_gcs_rpc_server_reconnect_timeout_s=600 (the user's
// value kept), so that its raylet outlives the head's restart; `reload` says how the head's GCS
// comes back ("GCS reload from Redis").
EnvVar outlive_head_restart(const EnvMap& user_env, const std::string& reload);

// The `ray start` options that carry the credentials to the head's GCS (Ray reads no
// environment variable for them): --redis-username=…, --redis-password=…. The password is
// the real one; every rendering shows *** (plan_render.hpp: redacted_argv).
std::vector<std::string> redis_credential_args(const Config& config, const PodIdentity& id);

}  // namespace launcher
