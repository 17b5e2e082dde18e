#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/fabric_facts.hpp"
#include "plan/node_facts_devices.hpp"
#include "plan/ray_install.hpp"
#include "util/env_map.hpp"
#include "util/process_limits.hpp"

namespace launcher {

struct ShmFacts {
  std::uint64_t total = 0;      // f_blocks * f_frsize
  std::uint64_t available = 0;  // f_bavail * f_bsize, as Ray's get_shared_memory_bytes()
  bool is_tmpfs = false;        // statfs f_type == TMPFS_MAGIC
};

// What this node offers, read from files under the host root. No judgement here.
struct NodeFacts {
  std::string instance_type;              // DMI product_name; "" when unknown
  std::vector<std::string> efa_devices;   // ibdev names of uverbs devices bound to the efa driver
  std::vector<std::string> other_uverbs;  // uverbs devices bound to anything else (e.g. mlx5)
  int gpu_dev_nodes = 0;                  // /dev/nvidiaN
  int gpu_proc_entries = 0;               // /proc/driver/nvidia/gpus/*
  std::string gpu_model;                  // "Model:" line of the first GPU, if any
  std::optional<ShmFacts> shm;            // nullopt: no /dev/shm
  bool hugetlb_known = false;             // a hugetlb cgroup file was found
  std::optional<std::uint64_t> hugetlb_2mb_limit;  // nullopt with hugetlb_known: "max"
  std::optional<std::uint64_t> memory_bytes;       // min(MemTotal, cgroup memory.max)
  std::vector<std::string> efa_lib_dirs;           // EFA/ofi-nccl library dirs that exist
  std::vector<std::string> net_interfaces;         // /sys/class/net, sorted (the pod's network namespace)
  std::string default_route_interface;             // /proc/net/route's default route; "" none
  DeviceFacts devices;                             // PCI GPUs, RDMA ports, PCIe links
  // Reads the image's NCCL, net plugin and libfabric, and the GDR facts, for an environment
  // (fabric_facts.hpp). Set by gather_node_facts; make_plan calls it only with EFA devices and
  // checks on. Unset in facts built by hand: the fabric library checks are left out.
  FabricProbe probe_fabric;

  int gpus() const { return gpu_dev_nodes > 0 ? gpu_dev_nodes : gpu_proc_entries; }
  int efa() const { return static_cast<int>(efa_devices.size()); }
  // The pod may use no 2MB huge pages at all (a pod that requests none gets a hugetlb limit
  // of 0, libvma#1024): libfabric's huge-page bounce buffers would SIGBUS.
  // EKS Pod Identity's link-local interface (pod-id-link0, 169.254.170.x): no route to other nodes.
  bool has_pod_identity_link() const {
    return std::any_of(net_interfaces.begin(), net_interfaces.end(),
                       [](const std::string& n) { return n.starts_with("pod-id-link"); });
  }
  bool hugetlb_2mb_zero() const { return hugetlb_known && hugetlb_2mb_limit == std::optional<std::uint64_t>(0); }
};

// Everything the planner needs to know about this pod. Gathering does I/O; planning does not.
struct PodFacts {
  EnvMap env;
  std::string hostname;         // from the hostname setting (--hostname or HOSTNAME), else gethostname()
  std::string hostname_source;  // "--hostname", "HOSTNAME" or "gethostname()"
  std::string etc_hosts;        // contents of /etc/hosts ("" if absent)
  std::string resolv_conf;      // contents of /etc/resolv.conf ("" if absent)
  NodeFacts node;
  util::ProcessLimits limits;   // this process's own limits (getrlimit), never a fake tree's
  bool venv_has_bin = false;    // <venv>/bin is a directory (only looked at with a venv)
  // The installed Ray's version, looked up only where a plan depends on it (REDIS_USERNAME: `ray
  // start --redis-username` exists from Ray 2.41); nullopt when not looked up or not found.
  std::optional<RayInstall> ray_install;
};

// Only what resolve_identity() reads: env, hostname, /etc/hosts and /etc/resolv.conf under
// `etc_root`. Probes and the GCS commands pass "/": c-ares, which resolves their names,
// reads the real /etc, so they must too. Costs microseconds: no node scan.
PodFacts gather_identity_facts(const Config& config, const EnvMap& env, const std::string& etc_root);

// Everything, for `plan` and `run`: identity facts and node facts under `config.host_root`,
// and `limits` (this process's, unless a test hands in others). Throws Fatal(64) when the
// host root is not a readable directory; anything missing below it is reported as absent.
PodFacts gather_pod_facts(const Config& config, const EnvMap& env,
                          const util::ProcessLimits& limits = util::read_process_limits());

// The node half of the above. Gathered even with checks off: planning needs EFA presence
// (env policy), GPUs (--num-gpus) and /dev/shm (--object-store-memory).
NodeFacts gather_node_facts(const std::string& host_root);

}  // namespace launcher
