#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "settings.hpp"

namespace launcher {

// A resource limit as /proc/self/limits shows it; nullopt means "unlimited".
struct Limit {
  std::optional<std::uint64_t> soft;
  std::optional<std::uint64_t> hard;
};

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
  std::optional<Limit> memlock;           // nullopt: /proc/self/limits unreadable
  std::optional<Limit> nofile;
  bool hugetlb_known = false;             // a hugetlb cgroup file was found
  std::optional<std::uint64_t> hugetlb_2mb_limit;  // nullopt with hugetlb_known: "max"
  std::optional<std::uint64_t> memory_bytes;       // min(MemTotal, cgroup memory.max)
  std::vector<std::string> efa_lib_dirs;           // EFA/ofi-nccl library dirs that exist

  int gpus() const { return gpu_dev_nodes > 0 ? gpu_dev_nodes : gpu_proc_entries; }
  int efa() const { return static_cast<int>(efa_devices.size()); }
};

// Everything the planner needs to know about this pod. Gathering does I/O; planning does not.
struct PodFacts {
  EnvMap env;
  std::string hostname;         // from --hostname, else HOSTNAME, else gethostname()
  std::string hostname_source;  // "--hostname", "HOSTNAME" or "gethostname()"
  std::string etc_hosts;        // contents of /etc/hosts ("" if absent)
  std::string resolv_conf;      // contents of /etc/resolv.conf ("" if absent)
  NodeFacts node;
};

// Reads /sys, /dev, /proc and /etc under `config.host_root`. Throws Fatal(64) when the root
// itself cannot be read; anything missing below it is reported as absent, not as an error.
PodFacts gather_pod_facts(const Config& config, const EnvMap& env);

// Only what resolve_identity() reads (env, hostname, /etc/hosts, /etc/resolv.conf), without the
// node scan: probes run every few seconds and must cost milliseconds. `node` stays empty.
PodFacts gather_identity_facts(const Config& config, const EnvMap& env);

// The node half of the above. Gathered even with checks off: planning needs EFA presence
// (env policy), GPUs (--num-gpus) and /dev/shm (--object-store-memory).
NodeFacts gather_node_facts(const std::string& host_root);

}  // namespace launcher
