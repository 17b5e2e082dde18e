#pragma once
// The node checks that judge devices one by one (node_checks_gpu_bus.cpp, node_checks_pcie.cpp,
// node_checks_rdma.cpp); node_checks() puts them in order. Each returns nullopt where there
// is nothing of its kind to judge, so a node without GPUs or RDMA devices shows no line.
#include <optional>
#include <string>

#include "plan/check.hpp"
#include "plan/node_checks.hpp"
#include "plan/pod_facts.hpp"

namespace launcher {

// gpu-bus: NVIDIA GPUs present on PCI but lost to the driver: not answering on the bus (fell
// off, NVIDIA Xid 79), bound to no driver or another one, or in the driver but gone from PCI.
// Fails for a GPU this pod was given, warns for another of the node's.
std::optional<Check> check_gpu_bus(const NodeFacts& node, const Expectations& expect);

// pcie-links: the pod's GPUs and EFA devices against the width and speed both ends of their
// link allow. Warns, never fails (why: node_checks_pcie.cpp).
std::optional<Check> check_pcie_links(const NodeFacts& node);

// rdma-ports: every port of the pod's EFA and InfiniBand devices ACTIVE.
std::optional<Check> check_rdma_ports(const NodeFacts& node, const Expectations& expect);

// Why a pod has fewer EFA devices than expected, and the fix: what limits it, the device
// plugin, the node or the pod's request. nullopt when the facts cannot tell (facts built by
// hand, without the node's devices).
struct EfaShortfall {
  std::string why;
  std::string fix;
};
std::optional<EfaShortfall> efa_shortfall(const NodeFacts& node, const Expectations& expect);

}  // namespace launcher
