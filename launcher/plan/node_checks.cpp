#include "plan/node_checks.hpp"

#include <array>

#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

constexpr std::uint64_t k_gib = 1ULL << 30;
constexpr std::uint64_t k_nofile_wanted = 65536;  // KubeRay's `ulimit -n 65536` (RAY_START_ULIMIT_OPEN_FILES)

// The fix names the size the check wants, so --shm-min and the fix never disagree.
std::string shm_fix(const Expectations& e) {
  return "mount an emptyDir {medium: Memory, sizeLimit: " + util::format_size(std::max(e.shm_min, k_gib)) +
         "} at /dev/shm (the container default is 64Mi)";
}

std::string limit_text(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : "unlimited"; }

Check check_instance(const NodeFacts& node) {
  if (node.instance_type.empty()) {
    return {"instance", CheckStatus::pass, "no DMI product_name: not an EC2 instance, no expectations from it", ""};
  }
  if (const auto shape = instance_shape(node.instance_type)) {
    return {"instance", CheckStatus::pass,
            node.instance_type + ": " + std::to_string(shape->gpus) + " GPUs, " + std::to_string(shape->efa) +
                " EFA devices per full instance",
            ""};
  }
  return {"instance", CheckStatus::pass, node.instance_type + ": not in raylaunch's table, no expectations from it",
          ""};
}

Check check_shm(const NodeFacts& node, const Expectations& e) {
  Check c{"shm", CheckStatus::pass, "", ""};
  if (!node.shm) {
    return {"shm", CheckStatus::fail, "/dev/shm is missing", shm_fix(e)};
  }
  const ShmFacts& shm = *node.shm;
  c.detail = std::string(shm.is_tmpfs ? "tmpfs " : "not tmpfs, ") + util::format_size(shm.total) + ", " +
             util::format_size(shm.available) + " free; minimum " + util::format_size(e.shm_min) + " (" +
             e.shm_min_source + ")";
  if (e.object_store > 0 && e.object_store < shm.total) {
    c.detail += "; Ray object store " + util::format_size(e.object_store) + " leaves " +
                util::format_size(shm.total - e.object_store) + " for NCCL and DataLoader";
  }
  if (shm.total < e.shm_min) {
    c.status = CheckStatus::fail;
    c.fix = shm_fix(e);  // NCCL: "failed to extend /dev/shm/nccl-…"; DataLoader: "Bus error"
  } else if (!shm.is_tmpfs) {
    c.status = CheckStatus::warn;
    c.fix = "mount a memory-backed emptyDir at /dev/shm; a disk-backed one makes Ray's object store slow";
  }
  return c;
}

Check check_count(const char* name, const char* what, int found, int expected, const std::string& source,
                  const std::string& extra, const std::string& fix_missing) {
  Check c{name, CheckStatus::pass, std::to_string(found) + " " + what + " found" + extra, ""};
  if (expected < 0) {
    c.detail += "; no expectation";
  } else if (found < expected) {
    c.status = CheckStatus::fail;
    c.detail += ", " + std::to_string(expected) + " expected (" + source + ")";
    c.fix = fix_missing;
  } else if (found > expected) {
    c.status = CheckStatus::warn;
    c.detail += ", only " + std::to_string(expected) + " expected (" + source + ")";
    c.fix = "set " + std::string(name == std::string("gpus") ? "RAYLAUNCH_GPUS" : "RAYLAUNCH_EFA") +
            " to what the pod requests, or request all of them";
  } else {
    c.detail += ", as expected (" + source + ")";
  }
  return c;
}

Check check_gpus(const NodeFacts& node, const Expectations& e) {
  std::string extra = node.gpu_model.empty() ? "" : " (" + node.gpu_model + ")";
  Check c = check_count("gpus", "GPUs", node.gpus(), e.gpus, e.gpus_source, extra,
                        "request nvidia.com/gpu: " + std::to_string(e.gpus) +
                            " and run on a node with the NVIDIA device plugin");
  if (node.gpu_dev_nodes > 0 && node.gpu_proc_entries > 0 && node.gpu_dev_nodes != node.gpu_proc_entries &&
      c.status == CheckStatus::pass) {
    c.status = CheckStatus::warn;
    c.detail += "; /dev has " + std::to_string(node.gpu_dev_nodes) + " but /proc/driver/nvidia/gpus has " +
                std::to_string(node.gpu_proc_entries);
    c.fix = "check the NVIDIA device plugin's device list strategy";
  }
  return c;
}

Check check_efa(const NodeFacts& node, const Expectations& e) {
  Check c = check_count("efa", "EFA devices", node.efa(), e.efa, e.efa_source, "",
                        "request vpc.amazonaws.com/efa: " + std::to_string(e.efa) +
                            " (Karpenter attaches EFA only when a pod requests it)");
  if (const auto shortfall = efa_shortfall(node, e); shortfall && c.status == CheckStatus::fail) {
    c.detail += "; " + shortfall->why;
    c.fix = shortfall->fix;
  } else if (const auto on_node = node.devices.node_efa.size(); on_node > node.efa_devices.size()) {
    c.detail += "; the node has " + std::to_string(on_node);
  }
  if (!node.other_uverbs.empty() && c.status == CheckStatus::pass) {
    c.status = CheckStatus::warn;
    c.detail += "; non-EFA uverbs devices visible: " + util::join(node.other_uverbs, ", ");
    c.fix = "remove the /dev/infiniband hostPath mount; let the EFA device plugin inject devices (aws-do-eks#63)";
  }
  return c;
}

Check check_memlock(const NodeFacts& node, const util::ProcessLimits& limits) {
  if (node.efa() == 0) {
    return {"memlock", CheckStatus::pass, "no EFA devices: locked memory not needed", ""};
  }
  if (!limits.memlock) {
    return {"memlock", CheckStatus::warn, "cannot read RLIMIT_MEMLOCK", "run with memlock unlimited"};
  }
  const util::Limit& l = *limits.memlock;
  if (!l.soft) {
    return {"memlock", CheckStatus::pass, "unlimited", ""};
  }
  if (memlock_raise(node, limits)) {
    return {"memlock", CheckStatus::pass, "soft " + limit_text(l.soft) + ", hard unlimited: raising soft to unlimited",
            ""};
  }
  if (limits.cap_ipc_lock) {
    // The kernel lets a CAP_IPC_LOCK holder pin memory past RLIMIT_MEMLOCK, for mlock() and for
    // RDMA registrations alike (ib_umem_get checks capable(CAP_IPC_LOCK); inference from the
    // kernel source): EFA registrations succeed. The manifests grant IPC_LOCK to EFA pods.
    return {"memlock", CheckStatus::pass,
            "limited to " + limit_text(l.soft) + "/" + limit_text(l.hard) +
                " bytes, but CAP_IPC_LOCK is effective: EFA may pin memory beyond it",
            ""};
  }
  // Libfabric "(-12) … (4112) Failure to post internal receive buffers" (awsome-distributed-ai#647).
  return {"memlock", CheckStatus::warn,
          "limited to " + limit_text(l.soft) + "/" + limit_text(l.hard) +
              " bytes; EFA fails with 'Failure to post internal receive buffers'",
          "run the container with memlock unlimited (containerd LimitMEMLOCK=infinity, as EKS GPU AMIs set)"};
}

Check check_nofile(const util::ProcessLimits& limits) {
  if (!limits.nofile) {
    return {"nofile", CheckStatus::warn, "cannot read RLIMIT_NOFILE", "check ulimit -n"};
  }
  const auto raise = nofile_raise(limits);
  const util::Limit& l = *limits.nofile;
  if (!raise) {
    return {"nofile", CheckStatus::pass, "soft " + limit_text(l.soft) + ", hard " + limit_text(l.hard), ""};
  }
  Check c{"nofile", CheckStatus::pass,
          "soft " + limit_text(l.soft) + ", hard " + limit_text(l.hard) + ": raising soft to " +
              std::to_string(*raise->soft),
          ""};
  if (*raise->soft < k_nofile_wanted) {
    c.status = CheckStatus::warn;
    c.fix = "raise the container runtime's open-file hard limit to at least 65536";
  }
  return c;
}

Check check_hugetlb(const NodeFacts& node) {
  if (node.efa() == 0) {
    return {"hugetlb", CheckStatus::pass, "no EFA devices: huge pages not needed", ""};
  }
  if (!node.hugetlb_known) {
    return {"hugetlb", CheckStatus::pass, "no hugetlb cgroup file: no huge-page limit", ""};
  }
  if (node.hugetlb_2mb_zero()) {
    // libfabric falls back to normal pages only when the first huge-page mmap fails (util_buf.c).
    return {"hugetlb", CheckStatus::warn,
            "2MB huge-page limit is 0: EFA bounce buffers on huge pages would SIGBUS (FI_EFA_USE_HUGE_PAGE=0 avoids it)",
            "request hugepages-2Mi (the opt-in manifests/components/hugepages), or keep FI_EFA_USE_HUGE_PAGE=0"};
  }
  return {"hugetlb", CheckStatus::pass,
          "2MB huge-page limit " + (node.hugetlb_2mb_limit ? util::format_size(*node.hugetlb_2mb_limit) : "max"), ""};
}

}  // namespace

Expectations settle_expectations(const Config& config, const NodeFacts& node) {
  Expectations e;
  const auto shape = instance_shape(node.instance_type);
  if (config.gpus) {
    e.gpus = *config.gpus;
    e.gpus_source = config.source_of(&Config::gpus);
  } else if (shape) {
    e.gpus = shape->gpus;
    e.gpus_source = node.instance_type;
  }
  if (config.efa) {
    e.efa = *config.efa;
    e.efa_source = config.source_of(&Config::efa);
    e.efa_set = true;
  } else if (shape) {
    e.efa = shape->efa;
    e.efa_source = node.instance_type;
  }
  e.nodes = std::max(1, config.nodes);
  if (config.shm_min) {
    e.shm_min = *config.shm_min;
    e.shm_min_source = config.source_of(&Config::shm_min);
  } else if (e.gpus > 0) {
    e.shm_min = 64 * k_gib;  // sample Skill 09: "At least 64Gi for multi-GPU training"
    e.shm_min_source = "GPUs expected";
  } else {
    e.shm_min = 1 * k_gib;  // NCCL's own example: --shm-size=1g
    e.shm_min_source = "no GPUs expected";
  }
  return e;
}

std::vector<Check> node_checks(const NodeFacts& node, const util::ProcessLimits& limits, const Expectations& expect) {
  std::vector<Check> out{check_instance(node), check_shm(node, expect), check_gpus(node, expect)};
  for (const std::optional<Check>& c : {check_gpu_bus(node, expect), std::optional<Check>(check_efa(node, expect)),
                                        check_rdma_ports(node, expect), check_pcie_links(node)}) {
    if (c) {
      out.push_back(*c);
    }
  }
  out.insert(out.end(), {check_memlock(node, limits), check_nofile(limits), check_hugetlb(node)});
  return out;
}

std::optional<RaiseLimit> nofile_raise(const util::ProcessLimits& limits) {
  if (!limits.nofile || !limits.nofile->soft) {
    return std::nullopt;
  }
  const std::uint64_t hard = limits.nofile->hard.value_or(UINT64_MAX);
  const std::uint64_t target = std::min(hard, k_nofile_wanted);
  if (*limits.nofile->soft >= target) {
    return std::nullopt;
  }
  return RaiseLimit{util::LimitResource::nofile, target};
}

std::optional<RaiseLimit> memlock_raise(const NodeFacts& node, const util::ProcessLimits& limits) {
  if (node.efa() == 0 || !limits.memlock || !limits.memlock->soft || limits.memlock->hard) {
    return std::nullopt;
  }
  return RaiseLimit{util::LimitResource::memlock, std::nullopt};
}

namespace {

struct Row {
  std::string_view type;
  InstanceShape shape;
};

// GPU and EFA counts per full instance. Sources: ../shared/reference/fabric-and-node-checks.md
// §4.3 (meta-pytorch/torchx named_resources_aws.py; sample-rlinf-on-eks MPIJob comments;
// sagemaker-hyperpod-cli#282 for p6-b200) and the AWS EC2 accelerated-computing instance
// specifications (GPU counts; EFA on g5/g6 from 8xlarge up, one device each). The line rate
// per EFA device: the instance's network bandwidth over its EFA count, from the same AWS
// specifications (docs.aws.amazon.com/ec2/latest/instancetypes/ac.html, "Network
// specifications"): p4d/p4de 400 Gbps over 4, p5/p5e 3200 over 32, p5en 3200 over 16, p6-b200
// 3200 over 8; g5/g6 one device at the instance's rate (25, 40, 50, 100 Gbps).
constexpr std::array<Row, 22> k_table = {{
    {"p4d.24xlarge", {8, 4, 100}},
    {"p4de.24xlarge", {8, 4, 100}},
    {"p5.48xlarge", {8, 32, 100}},
    {"p5e.48xlarge", {8, 32, 100}},
    {"p5en.48xlarge", {8, 16, 200}},
    {"p6-b200.48xlarge", {8, 8, 400}},
    {"g5.xlarge", {1, 0, 0}},
    {"g5.2xlarge", {1, 0, 0}},
    {"g5.4xlarge", {1, 0, 0}},
    {"g5.8xlarge", {1, 1, 25}},
    {"g5.12xlarge", {4, 1, 40}},
    {"g5.16xlarge", {1, 1, 25}},
    {"g5.24xlarge", {4, 1, 50}},
    {"g5.48xlarge", {8, 1, 100}},
    {"g6.xlarge", {1, 0, 0}},
    {"g6.2xlarge", {1, 0, 0}},
    {"g6.4xlarge", {1, 0, 0}},
    {"g6.8xlarge", {1, 1, 25}},
    {"g6.12xlarge", {4, 1, 40}},
    {"g6.16xlarge", {1, 1, 25}},
    {"g6.24xlarge", {4, 1, 50}},
    {"g6.48xlarge", {8, 1, 100}},
}};

}  // namespace

std::optional<InstanceShape> instance_shape(std::string_view instance_type) {
  for (const Row& row : k_table) {
    if (row.type == instance_type) {
      return row.shape;
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> fabric_floor(std::string_view instance_type) {
  const auto shape = instance_shape(instance_type);
  if (!shape || shape->efa_gbps == 0) {
    return std::nullopt;
  }
  // Gbit/s → bytes/s, a quarter of it.
  return static_cast<std::uint64_t>(shape->efa_gbps) * 1'000'000'000ULL / 8 / 4;
}

}  // namespace launcher
