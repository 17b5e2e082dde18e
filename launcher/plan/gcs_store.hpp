#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/plan_items.hpp"
#include "plan/pod_identity.hpp"
#include "plan/ray_install.hpp"

namespace launcher {

// What the embedded GCS store (RAY_gcs_storage=rocksdb, Ray 2.60) changes in a pod's plan;
// nothing with the other stores. Pure.
struct GcsStorePlan {
  std::vector<EnvVar> env;                   // head: the store for Ray's GCS; workers: outlive a head restart
  std::optional<PrepareGcsStore> preflight;  // head only: the volume's checks, claim and lock
  std::vector<Check> checks;                 // head: the installed Ray's version, when unreadable
  // Head: how long its own GCS may take to answer after `ray start` with the store on (Ray's
  // budget: RAY_gcs_server_port_wait_time_s, else 120 s); 0 without the store.
  std::chrono::milliseconds local_gcs_budget{0};
};

// Head: RAY_gcs_storage and RAY_gcs_storage_path for Ray (a value given as a flag must reach it
// through the environment too), the volume preflight for `owner_of(id)`, Ray's start-up budget.
// Workers: RAY_gcs_rpc_server_reconnect_timeout_s=600 unless the user set it. `ray` is the
// installed Ray: one older than 2.60 has no store, and the head is refused (Fatal 64) before
// anything starts; an unknown version is a warning.
GcsStorePlan plan_gcs_store(const Config& config, const PodIdentity& id, const EnvMap& user_env,
                            const std::optional<RayInstall>& ray = std::nullopt);

// The cluster a head's volume belongs to: "<namespace>/<name>" (the StatefulSet's or Job's name,
// the hostname without its ordinal), the same in every container and pod the head ever has, and
// different for every other cluster in the Kubernetes cluster. Without a namespace, the name.
std::string owner_of(const PodIdentity& id);

}  // namespace launcher
