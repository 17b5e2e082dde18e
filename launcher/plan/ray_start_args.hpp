#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/object_store.hpp"
#include "plan/pod_identity.hpp"

namespace launcher {

// The `ray start` argv (no shell). Head: --head --port; worker: --address=<head>:<port>.
// Both --block (raylaunch supervises it), --node-name=<hostname> (the GCS node table is deduped
// by it across pod restarts), a pinned --node-manager-port (the worker liveness probe) and
// --metrics-export-port (KubeRay's 8080, which the manifests declare and scrape).
// `config.ray_args` are appended; an option the user gives replaces ours of the same name
// (the ones raylaunch owns, such as --node-name, are refused when the settings are parsed).
std::vector<std::string> ray_start_argv(const Config& config, const PodIdentity& id, int num_gpus,
                                        const ObjectStoreSize& store);

}  // namespace launcher
