#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "plan/plan_items.hpp"
#include "plan/fabric_facts.hpp"
#include "plan/pod_facts.hpp"

namespace launcher {

// Pure: the fabric checks, only with EFA devices present (none at all without them):
//   efa-provider     non-EFA verbs devices beside EFA ones break libfabric's EFA provider
//   nccl-net-plugin  the plugin NCCL would dlopen, and everything it needs
//   libfabric        libfabric.so.1 as the plugin needs it
//   nccl             the libnccl.so.2 that would load, its version against the plugin's minimum
//   aws-ofi-nccl     the plugin's version against settings tied to version ranges
//   gdr              GPUDirect RDMA where aws-ofi-nccl requires it
//   nccl-ray-gpu-isolation  NVSwitch hosts whose NCCL misbehaves under Ray's per-actor
//                    CUDA_VISIBLE_DEVICES (nccl_ray_gpu_check.cpp): warns, sets nothing
// `image` uninspected (facts built by hand): the library checks are left out. `env` is what
// ray start gets; `nodes` the cluster's size (one node needs no network: warn, not fail).
std::vector<Check> fabric_checks(const NodeFacts& node, const FabricFacts& image, const EnvMap& env, int nodes);

// Whether aws-ofi-nccl refuses to run EFA without GPUDirect RDMA on `instance_type`: its
// platform table's gdr_required (src/platform-aws.cpp @ v1.21.1): p4d.24xlarge, p4de.24xlarge,
// p5/p5e/p5en and later p-series, but not p5.4xlarge.
bool gdr_required(std::string_view instance_type);

// The nccl-ray-gpu-isolation check alone; nullopt where it does not apply (not an NVSwitch
// host, or no NCCL version known).
std::optional<Check> check_nccl_ray_gpu_isolation(const NodeFacts& node, const FabricFacts& image, const EnvMap& env);

// The gdr check alone (gdr_check.cpp).
Check check_gdr(const NodeFacts& node, const FabricFacts& image, const EnvMap& env);

}  // namespace launcher
