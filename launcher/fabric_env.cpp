#include "fabric_env.hpp"

#include <functional>

namespace launcher {

namespace {

class EnvBuilder {
 public:
  explicit EnvBuilder(const EnvMap& user_env) : m_user(user_env) {}

  // Proposes `name=value`; a value the user already set wins and is reported as theirs.
  void propose(const std::string& name, const std::string& value, const std::string& reason) {
    if (auto it = m_user.find(name); it != m_user.end()) {
      m_vars.push_back({name, it->second, Origin::user, "set by the user, kept (raylaunch would set " + value +
                                                            ": " + reason + ")"});
      return;
    }
    m_vars.push_back({name, value, Origin::raylaunch, reason});
  }

  // raylaunch's own variables describe the plan itself, so they are always what the plan says.
  void own(const std::string& name, const std::string& value, const std::string& reason) {
    m_vars.push_back({name, value, Origin::raylaunch, reason});
  }

  std::vector<EnvVar> take() { return std::move(m_vars); }

 private:
  const EnvMap& m_user;
  std::vector<EnvVar> m_vars;
};

struct HarmfulRule {
  const char* name;
  std::function<bool(const std::string& value, const NodeFacts& node)> applies;
  const char* why;
  const char* fix;
};

// User values the reference lists as harmful or obsolete (§3, §9). Warned about, never changed.
const std::vector<HarmfulRule>& harmful_rules() {
  static const std::vector<HarmfulRule> rules = {
      {"NCCL_NET_GDR_LEVEL", [](const std::string& v, const NodeFacts&) { return v == "LOC"; },
       "LOC disables GPUDirect RDMA: every transfer bounces through host memory (awsome-distributed-ai#1106)",
       "unset NCCL_NET_GDR_LEVEL"},
      {"FI_EFA_USE_DEVICE_RDMA", [](const std::string&, const NodeFacts&) { return true; },
       "obsolete since libfabric 1.18/aws-ofi-nccl 1.7; =1 aborts on EFA devices without RDMA read (g5, g6)",
       "unset FI_EFA_USE_DEVICE_RDMA (RDMA is used when available)"},
      {"FI_PROVIDER", [](const std::string& v, const NodeFacts& n) { return v == "efa" && n.efa() == 0; },
       "forces the efa provider on a pod without EFA devices; every libfabric user fails to initialise",
       "unset FI_PROVIDER, or request vpc.amazonaws.com/efa"},
      {"RDMAV_FORK_SAFE", [](const std::string&, const NodeFacts&) { return true; },
       "never needed with aws-ofi-nccl, which sets FI_EFA_FORK_SAFE itself; on old stacks it disables huge pages",
       "unset RDMAV_FORK_SAFE"},
      {"FI_EFA_ENABLE_SHM_TRANSFER", [](const std::string&, const NodeFacts&) { return true; },
       "the EFA cheatsheet says never to set it", "unset FI_EFA_ENABLE_SHM_TRANSFER"},
      {"NCCL_PROTO", [](const std::string&, const NodeFacts&) { return true; },
       "overrides the protocol aws-ofi-nccl and its tuner choose per instance (RELEASENOTES v1.17.0, v1.20.0)",
       "unset NCCL_PROTO unless a benchmark shows it helps"},
      {"NCCL_ALGO", [](const std::string&, const NodeFacts&) { return true; },
       "overrides the algorithm the aws-ofi-nccl tuner chooses per message size", "unset NCCL_ALGO"},
      {"NCCL_TUNER_PLUGIN", [](const std::string& v, const NodeFacts&) { return v.find('/') != std::string::npos; },
       "a path to the tuner .so goes stale with plugin upgrades (-10% alltoall, awsome-distributed-ai#1077)",
       "unset NCCL_TUNER_PLUGIN (the plugin configures it) or set it to ofi"},
      {"OFI_NCCL_DISABLE_GDR_REQUIRED_CHECK", [](const std::string&, const NodeFacts&) { return true; },
       "hides 'GDR disabled on GDR-supported instance type' instead of fixing GPUDirect",
       "unset it and load efa_nv_peermem or use dma-buf"},
      {"FI_EFA_USE_HUGE_PAGE",
       [](const std::string& v, const NodeFacts& n) {
         return v != "0" && n.efa() > 0 && n.hugetlb_known && n.hugetlb_2mb_limit == std::optional<std::uint64_t>(0);
       },
       "huge pages are on but the pod's 2MB huge-page limit is 0: libfabric's bounce buffers SIGBUS (libvma#1024)",
       "request hugepages-2Mi: 5120Mi, or set FI_EFA_USE_HUGE_PAGE=0"},
      {"RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE", [](const std::string&, const NodeFacts&) { return true; },
       "lets Ray put the object store on /tmp silently ('This will harm performance!')",
       "unset it and give /dev/shm enough room"},
      {"CUDA_VISIBLE_DEVICES",
       [](const std::string& v, const NodeFacts&) {
         return v.find("GPU-") != std::string::npos || v.find("MIG-") != std::string::npos;
       },
       "RLinf parses CUDA_VISIBLE_DEVICES as integers and raises on UUIDs (nvidia_gpu.py)",
       "unset CUDA_VISIBLE_DEVICES; the container sees only its allocated GPUs"},
  };
  return rules;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) {
    out += (out.empty() ? "" : sep) + s;
  }
  return out;
}

}  // namespace

FabricEnv fabric_env(const PodIdentity& id, const NodeFacts& node, const EnvMap& user_env, ChecksPolicy policy) {
  EnvBuilder env(user_env);
  FabricEnv out;
  const bool efa = node.efa() > 0;
  const bool multi = id.nodes > 1;

  env.propose("NCCL_SOCKET_IFNAME", "^lo,docker,veth",
              "NCCL bootstrap and socket traffic on the pod network, never loopback or bridges "
              "(awsome-distributed-ai nccl-tests.Dockerfile)");
  env.propose("NCCL_DEBUG", "WARN", "NCCL warnings reach the pod log; INFO to diagnose (EFA cheatsheet)");
  if (efa) {
    if (!node.efa_lib_dirs.empty()) {
      env.propose("LD_LIBRARY_PATH", join(node.efa_lib_dirs, ":"),
                  "NCCL loads libnccl-net-ofi.so and libfabric from here; without them it falls back to "
                  "TCP sockets (awsome-distributed-ai#386, NeMo-RL#2585)");
    }
    if (auto it = user_env.find("LD_LIBRARY_PATH"); it != user_env.end()) {
      for (const std::string& dir : node.efa_lib_dirs) {
        if (it->second.find(dir) == std::string::npos) {
          out.warnings.push_back({"env:LD_LIBRARY_PATH", CheckStatus::warn,
                                  dir + " is not on the user's LD_LIBRARY_PATH; NCCL may fall back to TCP sockets",
                                  "add " + dir + " to LD_LIBRARY_PATH"});
        }
      }
    }
    if (node.hugetlb_known && node.hugetlb_2mb_limit && *node.hugetlb_2mb_limit == 0) {
      env.propose("FI_EFA_USE_HUGE_PAGE", "0",
                  "the pod's 2MB huge-page limit is 0: EFA bounce buffers on huge pages would SIGBUS "
                  "or fail fork() with ENOMEM (aws-ofi-nccl#69)");
    }
    if (multi && policy == ChecksPolicy::strict) {
      env.propose("NCCL_NET", "Libfabric",
                  "strict: NCCL fails at start-up instead of silently using TCP sockets (~3 GB/s on p5) when "
                  "the OFI plugin cannot load");
    }
  }
  if (multi) {
    env.propose("RLINF_COMM_NET_DEVICES", "eth0",
                "RLinf sets GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME for its workers from it (RLinf worker.py)");
  }
  env.propose("RLINF_NODE_RANK", std::to_string(id.ordinal),
              "RLinf's node rank: unique and contiguous, required with node_groups (RLinf multi_node.rst)");
  env.propose("RAY_ADDRESS", id.role == Role::head ? "127.0.0.1:" + std::to_string(id.ray_port) : id.head_address(),
              "ray.init() in the launch command finds this cluster's GCS");
  env.own("RAYLAUNCH_ROLE", to_string(id.role), "this pod's role");
  env.own("RAYLAUNCH_RANK", std::to_string(id.ordinal), "this pod's ordinal");
  env.own("RAYLAUNCH_NODES", std::to_string(id.nodes), "pods in the Ray cluster");
  env.own("RAYLAUNCH_HEAD_ADDRESS", id.head_address(), "the head's GCS address (host:port)");
  out.vars = env.take();

  for (const HarmfulRule& rule : harmful_rules()) {
    if (auto it = user_env.find(rule.name); it != user_env.end() && rule.applies(it->second, node)) {
      out.warnings.push_back({std::string("env:") + rule.name, CheckStatus::warn,
                              std::string(rule.name) + "=" + it->second + " (set by the user): " + rule.why, rule.fix});
    }
  }
  return out;
}

}  // namespace launcher
