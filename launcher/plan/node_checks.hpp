#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/action.hpp"
#include "plan/check.hpp"
#include "plan/pod_facts.hpp"

namespace launcher {

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

}  // namespace launcher
