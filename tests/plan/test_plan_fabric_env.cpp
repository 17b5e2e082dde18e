#include <catch2/catch.hpp>

#include "plan/fabric_env.hpp"
#include "fixtures.hpp"

using namespace launcher;

namespace {

PodIdentity worker(int nodes = 4) {
  PodIdentity id;
  id.role = Role::worker;
  id.ordinal = 2;
  id.nodes = nodes;
  id.hostname = "training-2";
  id.head_host = "training-0.svc.ml.svc.cluster.local";
  return id;
}

NodeFacts with_efa(int n) {
  NodeFacts f;
  for (int i = 0; i < n; ++i) {
    f.efa_devices.push_back("rdmap" + std::to_string(i) + "s0");
  }
  f.efa_lib_dirs = {"/opt/amazon/efa/lib", "/opt/amazon/ofi-nccl/lib"};
  f.hugetlb_known = true;
  f.hugetlb_2mb_limit = 0;
  return f;
}

const EnvVar* find(const FabricEnv& env, const std::string& name) { return fixtures::env_var(env.vars, name); }

}  // namespace

TEST_CASE("EFA variables appear only when EFA devices are present", "[env]") {
  const FabricEnv none = fabric_env(worker(), NodeFacts{}, {}, ChecksPolicy::strict);
  for (const char* name : {"LD_LIBRARY_PATH", "FI_EFA_USE_HUGE_PAGE", "NCCL_NET", "FI_PROVIDER"}) {
    INFO(name);
    CHECK(find(none, name) == nullptr);
  }
  const FabricEnv efa = fabric_env(worker(), with_efa(4), {}, ChecksPolicy::strict);
  CHECK(find(efa, "LD_LIBRARY_PATH")->value == "/opt/amazon/efa/lib:/opt/amazon/ofi-nccl/lib");
  CHECK(find(efa, "FI_EFA_USE_HUGE_PAGE")->value == "0");
  CHECK(find(efa, "NCCL_NET")->value == "Libfabric");
  CHECK(find(fabric_env(worker(), with_efa(4), {}, ChecksPolicy::warn), "NCCL_NET") == nullptr);
  CHECK(find(fabric_env(worker(1), with_efa(4), {}, ChecksPolicy::strict), "NCCL_NET") == nullptr);
}

TEST_CASE("harmful settings are never set by raylaunch", "[env]") {
  const FabricEnv efa = fabric_env(worker(), with_efa(32), {}, ChecksPolicy::strict);
  for (const char* name : {"FI_EFA_USE_DEVICE_RDMA", "NCCL_PROTO", "NCCL_ALGO", "NCCL_NET_GDR_LEVEL", "RDMAV_FORK_SAFE",
                           "NCCL_TUNER_PLUGIN", "FI_EFA_ENABLE_SHM_TRANSFER", "CUDA_VISIBLE_DEVICES",
                           "PYTORCH_CUDA_ALLOC_CONF", "NCCL_BUFFSIZE"}) {
    INFO(name);
    CHECK(find(efa, name) == nullptr);
  }
}

TEST_CASE("a value the user set is never overridden and is reported as theirs", "[env]") {
  const FabricEnv env = fabric_env(worker(), with_efa(4),
                                   {{"NCCL_DEBUG", "INFO"}, {"FI_EFA_USE_HUGE_PAGE", "1"}, {"RAY_ADDRESS", "x:1"}},
                                   ChecksPolicy::strict);
  const EnvVar* debug = find(env, "NCCL_DEBUG");
  CHECK(debug->value == "INFO");
  CHECK(debug->origin == Origin::user);
  CHECK(debug->reason.starts_with("set by the user, kept (raylaunch would set WARN: "));
  CHECK(find(env, "FI_EFA_USE_HUGE_PAGE")->value == "1");
  // …and a kept value that will break is warned about.
  REQUIRE(env.warnings.size() == 1);
  CHECK(env.warnings[0].name == "env:FI_EFA_USE_HUGE_PAGE");
  CHECK(find(env, "RAY_ADDRESS")->value == "x:1");
}

TEST_CASE("raylaunch's own variables and the ranks are exported", "[env]") {
  const FabricEnv env = fabric_env(worker(), NodeFacts{}, {{"RAYLAUNCH_NODES", "99"}}, ChecksPolicy::strict);
  CHECK(find(env, "RAYLAUNCH_ROLE")->value == "worker");
  CHECK(find(env, "RAYLAUNCH_RANK")->value == "2");
  CHECK(find(env, "RAYLAUNCH_NODES")->value == "4");  // the plan's value, not a stale copy
  CHECK(find(env, "RAYLAUNCH_HEAD_ADDRESS")->value == "training-0.svc.ml.svc.cluster.local:6379");
  CHECK(find(env, "RAY_ADDRESS")->value == "training-0.svc.ml.svc.cluster.local:6379");
  CHECK(find(env, "RLINF_NODE_RANK")->value == "2");
  CHECK(find(env, "NCCL_SOCKET_IFNAME")->value == "^lo,docker,veth,pod-id-link");
  PodIdentity head = worker();
  head.role = Role::head;
  CHECK(find(fabric_env(head, NodeFacts{}, {}, ChecksPolicy::strict), "RAY_ADDRESS")->value == "127.0.0.1:6379");
}

TEST_CASE("every variable carries its reason", "[env]") {
  for (const EnvVar& v : fabric_env(worker(), with_efa(4), {}, ChecksPolicy::strict).vars) {
    INFO(v.name);
    CHECK_FALSE(v.reason.empty());
  }
}

TEST_CASE("harmful user values are warned about with the fix", "[env]") {
  const FabricEnv env = fabric_env(worker(), NodeFacts{},
                                   {{"NCCL_NET_GDR_LEVEL", "LOC"},
                                    {"FI_EFA_USE_DEVICE_RDMA", "1"},
                                    {"FI_PROVIDER", "efa"},
                                    {"NCCL_TUNER_PLUGIN", "/opt/amazon/ofi-nccl/lib/libnccl-ofi-tuner.so"},
                                    {"CUDA_VISIBLE_DEVICES", "GPU-1234"},
                                    {"NCCL_NET_GDR_LEVEL_UNRELATED", "LOC"}},
                                   ChecksPolicy::strict);
  std::vector<std::string> names;
  for (const Check& c : env.warnings) {
    CHECK(c.status == CheckStatus::warn);
    CHECK_FALSE(c.fix.empty());
    names.push_back(c.name);
  }
  CHECK(names == std::vector<std::string>{"env:NCCL_NET_GDR_LEVEL", "env:FI_EFA_USE_DEVICE_RDMA", "env:FI_PROVIDER",
                                          "env:NCCL_TUNER_PLUGIN", "env:CUDA_VISIBLE_DEVICES"});
  CHECK(env.warnings[0].detail.starts_with("NCCL_NET_GDR_LEVEL=LOC (set by the user): LOC disables GPUDirect RDMA"));
  // Harmless values of the same variables raise nothing.
  CHECK(fabric_env(worker(), with_efa(4), {{"FI_PROVIDER", "efa"}, {"NCCL_NET_GDR_LEVEL", "PHB"}}, ChecksPolicy::strict)
            .warnings.empty());
}

TEST_CASE("a user LD_LIBRARY_PATH missing the plugin dirs is kept and warned about", "[env]") {
  const FabricEnv env = fabric_env(worker(), with_efa(4), {{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"}},
                                   ChecksPolicy::strict);
  CHECK(find(env, "LD_LIBRARY_PATH")->value == "/usr/local/cuda/lib64");
  CHECK(env.warnings.size() == 2);
}

TEST_CASE("EKS Pod Identity's pod-id-link0: out of NCCL's interfaces always, Gloo named where it is", "[env][pod-id]") {
  // NCCL's list excludes it by prefix on every node; Gloo takes names, not exclusions, so it
  // gets the default route's interface only where pod-id-link0 is there to be avoided.
  CHECK(find(fabric_env(worker(), with_efa(4), {}, ChecksPolicy::strict), "GLOO_SOCKET_IFNAME") == nullptr);
  NodeFacts node = with_efa(4);
  node.net_interfaces = {"eth0", "lo", "pod-id-link0"};
  node.default_route_interface = "eth0";
  const FabricEnv env = fabric_env(worker(), node, {}, ChecksPolicy::strict);
  CHECK(find(env, "NCCL_SOCKET_IFNAME")->value == "^lo,docker,veth,pod-id-link");
  const EnvVar* gloo = find(env, "GLOO_SOCKET_IFNAME");
  REQUIRE(gloo != nullptr);
  CHECK(gloo->value == "eth0");
  CHECK(gloo->origin == Origin::raylaunch);
  CHECK(gloo->reason.find("pod-id-link0") != std::string::npos);

  // No default route known: nothing to name.
  node.default_route_interface.clear();
  CHECK(find(fabric_env(worker(), node, {}, ChecksPolicy::strict), "GLOO_SOCKET_IFNAME") == nullptr);

  // The user's own values win, shown with what raylaunch would have set and why.
  node.default_route_interface = "eth0";
  const FabricEnv mine = fabric_env(worker(), node, {{"GLOO_SOCKET_IFNAME", "eth1"}, {"NCCL_SOCKET_IFNAME", "=eth1"}},
                                    ChecksPolicy::strict);
  const EnvVar* kept = find(mine, "GLOO_SOCKET_IFNAME");
  REQUIRE(kept != nullptr);
  CHECK(kept->value == "eth1");
  CHECK(kept->origin == Origin::user);
  CHECK(kept->reason.starts_with("set by the user, kept (raylaunch would set eth0: "));
  CHECK(find(mine, "NCCL_SOCKET_IFNAME")->value == "=eth1");
  CHECK(mine.warnings.empty());  // an inclusion list cannot pick pod-id-link0
}

TEST_CASE("a user's exclusion list without pod-id-link, or a Gloo interface naming it, is warned about",
          "[env][pod-id]") {
  const FabricEnv env = fabric_env(worker(), NodeFacts{},
                                   {{"NCCL_SOCKET_IFNAME", "^lo,docker"}, {"GLOO_SOCKET_IFNAME", "pod-id-link0"}},
                                   ChecksPolicy::strict);
  std::vector<std::string> names;
  for (const Check& c : env.warnings) {
    names.push_back(c.name);
  }
  CHECK(names == std::vector<std::string>{"env:NCCL_SOCKET_IFNAME", "env:GLOO_SOCKET_IFNAME"});
  CHECK(env.warnings[0].fix.starts_with("add pod-id-link to the list"));
  CHECK(fabric_env(worker(), NodeFacts{}, {{"NCCL_SOCKET_IFNAME", "^lo,docker,pod-id-link"}}, ChecksPolicy::strict)
            .warnings.empty());
}
