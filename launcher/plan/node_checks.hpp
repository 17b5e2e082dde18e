#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "plan/plan_items.hpp"
#include "plan/pod_facts.hpp"

namespace launcher {

// What a full instance of a type brings to a pod that requests all of it.
struct InstanceShape {
  int gpus = 0;
  int efa = 0;          // vpc.amazonaws.com/efa devices
  int efa_gbps = 0;     // the line rate of one of them, Gbit/s (0: no EFA)
};

// The gang fabric check's default floor for a type: a quarter of one EFA device's line rate,
// bytes/s (fi_pingpong runs one stream over one device; a healthy one carries well over that
// with 1 MiB messages, a downtrained or misrouted one far less). nullopt without EFA.
std::optional<std::uint64_t> fabric_floor(std::string_view instance_type);

// Looks up an EC2 instance type ("p4de.24xlarge", as DMI product_name reports it).
// nullopt for types not in the table (a workstation, an unknown family).
std::optional<InstanceShape> instance_shape(std::string_view instance_type);

// What the checks compare against, settled from settings and the instance table.
struct Expectations {
  int gpus = -1;  // -1: no expectation
  std::string gpus_source;
  int efa = -1;
  std::string efa_source;
  bool efa_set = false;  // the efa setting gave it (the manifests keep it equal to the pod's request)
  std::uint64_t shm_min = 0;
  std::string shm_min_source;
  std::uint64_t object_store = 0;  // planned Ray object store; 0 if none
  int nodes = 1;                   // the cluster's size: one node needs no network between GPUs
};

Expectations settle_expectations(const Config& config, const NodeFacts& node);

// Pure: one Check per rule (instance, shm, gpus, gpu-bus, efa, rdma-ports, pcie-links, memlock,
// nofile, hugetlb). gpu-bus, rdma-ports and pcie-links appear only where there is something to
// judge (GPUs, RDMA devices, PCIe links: node_checks_devices.hpp), so a workstation without
// them shows none. Each non-pass check names the fix in one line. `limits` are this process's
// own.
std::vector<Check> node_checks(const NodeFacts& node, const util::ProcessLimits& limits, const Expectations& expect);

// The RLIMIT_NOFILE soft limit `run` will set: min(hard, 65536) when the soft limit is lower
// (KubeRay's `ulimit -n 65536`); nullopt when nothing changes.
std::optional<RaiseLimit> nofile_raise(const util::ProcessLimits& limits);

// RLIMIT_MEMLOCK to unlimited, when EFA devices are present, the soft limit is limited and the
// hard limit allows it (libfabric pins its buffers); nullopt otherwise. The memlock check and
// the plan's action both come from this one rule.
std::optional<RaiseLimit> memlock_raise(const NodeFacts& node, const util::ProcessLimits& limits);

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
