#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/pod_facts.hpp"
#include "plan/pod_identity.hpp"

namespace launcher {

struct ObjectStoreSize {
  std::uint64_t bytes = 0;  // 0: leave it to Ray
  std::string reason;
};

// An explicit --object-store-memory that leaves /dev/shm room for NCCL and DataLoader:
// Ray's default, min(30% RAM, 200 GB, max(10 GB, 0.95 × shm)), takes 95% of a 64Gi shm.
ObjectStoreSize plan_object_store(const Config& config, const NodeFacts& node);

// The `ray start` argv (no shell). Head: --head --port; worker: --address=<head>:<port>.
// Both --block (raylaunch supervises it), --node-name=<hostname> (the GCS node table is deduped
// by it across pod restarts), a pinned --node-manager-port (the worker liveness probe) and
// --metrics-export-port (KubeRay's 8080, which the manifests declare and scrape).
// `config.ray_args` are appended; an option the user gives replaces ours of the same name
// (the ones raylaunch owns, such as --node-name, are refused when the settings are parsed).
std::vector<std::string> ray_start_argv(const Config& config, const PodIdentity& id, int num_gpus,
                                        const ObjectStoreSize& store);

}  // namespace launcher
