// Gathers NodeFacts from /sys, /dev and /proc under the host root. Every path and rule here
// comes from ../shared/reference/fabric-and-node-checks.md (§2, §4, §5, §6).
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <charconv>
#include <sstream>

#include "plan/pod_facts.hpp"
#include "util/host_fs.hpp"
#include "util/parse.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

constexpr unsigned long k_tmpfs_magic = 0x01021994;  // linux/magic.h TMPFS_MAGIC

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// EFA the robust way (rdma-core libibverbs/init.c): /dev/infiniband/uverbsN →
// /sys/class/infiniband_verbs/uverbsN/ibdev → /sys/class/infiniband/<ibdev>/device/driver = efa.
// Counting /dev/infiniband alone also counts mlx5 devices exposed by a hostPath (aws-do-eks#63).
void gather_efa(const util::HostFs& fs, NodeFacts& facts) {
  for (const std::string& name : fs.list("/dev/infiniband")) {
    if (!name.starts_with("uverbs") || !all_digits(std::string_view(name).substr(6))) {
      continue;
    }
    const auto ibdev = fs.read_line("/sys/class/infiniband_verbs/" + name + "/ibdev");
    const auto driver = ibdev ? rdma_driver(fs, *ibdev) : std::nullopt;
    const bool efa = driver == std::optional<std::string>("efa");
    if (efa) {
      facts.efa_devices.push_back(*ibdev);  // a valid device name (rdma_driver checked it), used in paths
    } else {
      facts.other_uverbs.push_back((ibdev ? util::printable(*ibdev) : name) +
                                   (driver ? " (" + util::printable(*driver) + ")" : ""));
    }
    if (ibdev) {
      gather_rdma_device(fs, *ibdev, efa, facts.devices);
    }
  }
}

// GPUs without nvidia-smi: the NVIDIA runtime injects /dev/nvidiaN only for allocated GPUs and
// bind-mounts only their /proc/driver/nvidia/gpus/<bus id> (libnvidia-container nvc_mount.c).
void gather_gpus(const util::HostFs& fs, NodeFacts& facts) {
  for (const std::string& name : fs.list("/dev")) {
    if (name.starts_with("nvidia") && all_digits(std::string_view(name).substr(6))) {
      ++facts.gpu_dev_nodes;
    }
  }
  const auto gpus = fs.list("/proc/driver/nvidia/gpus");
  facts.gpu_proc_entries = static_cast<int>(gpus.size());
  if (!gpus.empty()) {
    std::istringstream info(fs.read("/proc/driver/nvidia/gpus/" + gpus.front() + "/information").value_or(""));
    std::string line;
    while (std::getline(info, line)) {
      if (line.starts_with("Model:")) {
        facts.gpu_model = std::string(util::trim(std::string_view(line).substr(6)));
      }
    }
  }
}

// statvfs gives what Ray's get_shared_memory_bytes() sees; statfs tells tmpfs from a disk.
void gather_shm(const util::HostFs& fs, NodeFacts& facts) {
  struct statvfs vfs {};
  if (!fs.is_dir(platform::k_shm_dir) || statvfs(fs.path(platform::k_shm_dir).c_str(), &vfs) != 0) {
    return;
  }
  ShmFacts shm;
  shm.total = static_cast<std::uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  shm.available = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_bsize;
  struct statfs sfs {};
  shm.is_tmpfs = statfs(fs.path(platform::k_shm_dir).c_str(), &sfs) == 0 &&
                 static_cast<unsigned long>(sfs.f_type) == k_tmpfs_magic;
  facts.shm = shm;
}

std::optional<std::uint64_t> number(const std::string& word) {
  const auto v = util::parse_int(word, 0, INT64_MAX);
  return v ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*v)) : std::nullopt;
}

// A pod that requests no hugepages gets a hugetlb limit of 0 (libvma#1024); libfabric then
// hits SIGBUS/ENOMEM on its huge-page bounce buffers. cgroup v2 first, then v1.
void gather_hugetlb(const util::HostFs& fs, NodeFacts& facts) {
  for (const char* file : {"/sys/fs/cgroup/hugetlb.2MB.max", "/sys/fs/cgroup/hugetlb/hugetlb.2MB.limit_in_bytes"}) {
    if (const auto value = fs.read_line(file)) {
      facts.hugetlb_known = true;
      facts.hugetlb_2mb_limit = *value == "max" ? std::nullopt : number(*value);
      // v1 writes a huge number for "no limit"
      if (facts.hugetlb_2mb_limit && *facts.hugetlb_2mb_limit >= (1ULL << 62)) {
        facts.hugetlb_2mb_limit.reset();
      }
      return;
    }
  }
}

void gather_memory(const util::HostFs& fs, NodeFacts& facts) {
  std::istringstream meminfo(fs.read("/proc/meminfo").value_or(""));
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.starts_with("MemTotal:")) {
      const auto words = util::split_words(line.substr(9));
      if (!words.empty()) {
        // A MemTotal near 2^64 (a planted file) must not wrap into a small number.
        if (auto kib = number(words[0]); kib && *kib <= UINT64_MAX / 1024) {
          facts.memory_bytes = *kib * 1024;
        }
      }
    }
  }
  if (const auto max = fs.read_line("/sys/fs/cgroup/memory.max")) {
    if (auto limit = number(*max); limit && (!facts.memory_bytes || *limit < *facts.memory_bytes)) {
      facts.memory_bytes = limit;
    }
  }
}

// Library dirs of the EFA installer and aws-ofi-nccl (awsome nccl-tests.Dockerfile; NeMo-RL#2585).
void gather_efa_libs(const util::HostFs& fs, NodeFacts& facts) {
  for (const char* dir : {"/opt/amazon/efa/lib", "/opt/amazon/efa/lib64", "/opt/amazon/ofi-nccl/lib",
                          "/opt/amazon/ofi-nccl/lib64", "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu",
                          "/opt/amazon/ofi-nccl/lib/aarch64-linux-gnu"}) {
    if (fs.is_dir(dir)) {
      facts.efa_lib_dirs.emplace_back(dir);
    }
  }
}

// The pod's interfaces and the one its default route leaves by. /proc/net/route (proc(5)):
// a header, then "Iface Destination Gateway Flags …" per route, addresses in hex; the default
// route has Destination 00000000 and Mask 00000000, and RTF_UP (0x1) in Flags.
void gather_net(const util::HostFs& fs, NodeFacts& facts) {
  for (const std::string& name : fs.list("/sys/class/net")) {
    facts.net_interfaces.push_back(name);
  }
  std::istringstream routes(fs.read("/proc/net/route").value_or(""));
  std::string line;
  std::getline(routes, line);  // the header
  while (std::getline(routes, line)) {
    const std::vector<std::string> f = util::split_words(line);
    if (f.size() >= 8 && f[1] == "00000000" && f[7] == "00000000") {
      unsigned flags = 0;
      const std::from_chars_result r = std::from_chars(f[3].data(), f[3].data() + f[3].size(), flags, 16);
      if (r.ec == std::errc() && (flags & 0x1U) != 0) {
        facts.default_route_interface = f[0];
        return;
      }
    }
  }
}

}  // namespace

NodeFacts gather_node_facts(const std::string& host_root) {
  const util::HostFs fs(host_root);
  NodeFacts facts;
  gather_shm(fs, facts);
  gather_memory(fs, facts);
  facts.instance_type = fs.read_line("/sys/devices/virtual/dmi/id/product_name").value_or("");
  gather_efa(fs, facts);
  gather_gpus(fs, facts);
  gather_node_devices(fs, facts.devices);
  gather_hugetlb(fs, facts);
  gather_efa_libs(fs, facts);
  gather_net(fs, facts);
  facts.probe_fabric = [host_root, devices = facts.efa_devices](const EnvMap& env) {
    return gather_fabric_facts(host_root, env, devices);
  };
  return facts;
}

}  // namespace launcher
