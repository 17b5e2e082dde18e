#include "plan/fabric_env.hpp"

#include "fabric/image_root.hpp"
#include "plan/env_rules.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

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

}  // namespace

FabricEnv fabric_env(const PodIdentity& id, const NodeFacts& node, const EnvMap& user_env, ChecksPolicy policy) {
  EnvBuilder env(user_env);
  FabricEnv out;
  const bool efa = node.efa() > 0;
  const bool multi = id.nodes > 1;

  // '^' makes the list an exclusion of interfaces whose names start with any of its prefixes
  // (NCCL docs, Environment Variables, NCCL_SOCKET_IFNAME): pod-id-link covers pod-id-link0,
  // EKS Pod Identity's link-local 169.254.170.x interface, which reaches no other node.
  env.propose("NCCL_SOCKET_IFNAME", "^lo,docker,veth,pod-id-link",
              "NCCL bootstrap and socket traffic on the pod network, never loopback, bridges "
              "(awsome-distributed-ai nccl-tests.Dockerfile) or EKS Pod Identity's link-local pod-id-link0, "
              "where a job whose EFA failed hangs across nodes");
  // Gloo takes exact interface names, a comma list it uses round-robin, with no prefixes and
  // no exclusion (PyTorch docs, torch.distributed "Common environment variables"): so it is
  // named only where pod-id-link0 is there to be avoided, as the default route's interface.
  if (node.has_pod_identity_link() && !node.default_route_interface.empty()) {
    env.propose("GLOO_SOCKET_IFNAME", node.default_route_interface,
                "the default route's interface: Gloo would otherwise pick EKS Pod Identity's link-local "
                "pod-id-link0 (169.254.170.x), which reaches no other node");
  }
  env.propose("NCCL_DEBUG", "WARN", "NCCL warnings reach the pod log; INFO to diagnose (EFA cheatsheet)");
  if (efa) {
    if (!node.efa_lib_dirs.empty()) {
      env.propose("LD_LIBRARY_PATH", util::join(node.efa_lib_dirs, ":"),
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
    if (node.hugetlb_2mb_zero()) {
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
  env.propose("RAY_ADDRESS", id.role == Role::head ? std::string(platform::k_loopback) + ":" + std::to_string(id.ray_port)
                                                   : id.head_address(),
              "ray.init() in the launch command finds this cluster's GCS");
  env.own("RAYLAUNCH_ROLE", to_string(id.role), "this pod's role");
  env.own("RAYLAUNCH_RANK", std::to_string(id.ordinal), "this pod's ordinal");
  env.own("RAYLAUNCH_NODES", std::to_string(id.nodes), "pods in the Ray cluster");
  env.own("RAYLAUNCH_HEAD_ADDRESS", id.head_address(), "the head's GCS address (host:port)");
  out.vars = env.take();

  for (const EnvRule& rule : env_rules()) {
    if (auto it = user_env.find(rule.name); it != user_env.end() && rule.matches(it->second, node)) {
      out.warnings.push_back({"env:" + rule.name, CheckStatus::warn,
                              rule.name + "=" + util::printable(it->second) + " (set by the user): " + rule.why, rule.fix});
    }
  }
  return out;
}

// NCCL with NCCL_NET_PLUGIN unset dlopens "libnccl-net.so" only; set to "ofi" it tries "ofi",
// then "libnccl-net-ofi.so" (NVIDIA/nccl src/plugin/net.cc defaultNetPlugin,
// src/plugin/plugin_open.cc openPluginLib). aws-ofi-nccl names its plugin libnccl-net-ofi.so
// since 1.15.0, libnccl-net.so being a symlink that --disable-nccl-net-symlink skips, "This
// allows users to set NCCL_NET_PLUGIN=ofi" (RELEASENOTES.md, v1.15.0). Set only when
// libnccl-net.so is missing everywhere: a libnccl-net.so that is there but broken is the
// nccl-net-plugin check's to report, not to route around.
std::optional<EnvVar> ofi_plugin_name(const FabricFacts& image, const EnvMap& user_env) {
  if (!image.inspected || user_env.count("NCCL_NET_PLUGIN") != 0 || !image.plugin_setting.empty() ||
      image.found_plugin() != nullptr) {
    return std::nullopt;
  }
  for (const LibraryLoad& attempt : image.plugin_attempts) {
    for (const LibraryProblem& p : attempt.problems) {
      if (p.kind == LibraryProblem::Kind::unusable) {
        return std::nullopt;
      }
    }
  }
  for (const PluginHint& hint : image.plugin_hints) {
    if (hint.on_search_path && fabric::base_name(hint.path) == "libnccl-net-ofi.so") {
      return EnvVar{"NCCL_NET_PLUGIN", "ofi", Origin::raylaunch,
                    "only " + hint.path + " is on the linker's search path, no libnccl-net.so link (a multi-stage "
                    "build or --disable-nccl-net-symlink leaves it out): NCCL loads libnccl-net-ofi.so by this "
                    "name (NCCL plugin_open.cc; aws-ofi-nccl RELEASENOTES v1.15.0)"};
    }
  }
  return std::nullopt;
}

std::size_t after_nccl(const std::vector<EnvVar>& vars) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (vars[i].name.starts_with("NCCL_")) {
      at = i + 1;
    }
  }
  return at;
}

}  // namespace launcher
