#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "plan/pod_facts.hpp"

using namespace launcher;
using fixtures::NodeTree;

TEST_CASE("p4de: 8 GPUs and 4 EFA devices found the robust way", "[facts]") {
  const NodeTree tree("p4de");
  const NodeFacts n = gather_node_facts(tree.path());
  CHECK(n.instance_type == "p4de.24xlarge");
  CHECK(n.efa() == 4);
  CHECK(n.efa_devices.front() == "rdmap0s0");
  CHECK(n.other_uverbs.empty());
  CHECK(n.gpu_dev_nodes == 8);
  CHECK(n.gpu_proc_entries == 8);
  CHECK(n.gpu_model == "NVIDIA A100-SXM4-80GB");
  CHECK(n.hugetlb_known);
  CHECK(n.hugetlb_2mb_limit == std::optional<std::uint64_t>(0));
  CHECK(n.efa_lib_dirs == std::vector<std::string>{"/opt/amazon/efa/lib", "/opt/amazon/ofi-nccl/lib"});
  CHECK(n.memory_bytes == std::optional<std::uint64_t>(1176460260ULL * 1024));
  CHECK(n.shm.has_value());
}

TEST_CASE("p5: 32 EFA devices and a 5Gi huge-page limit", "[facts]") {
  const NodeTree tree("p5");
  const NodeFacts n = gather_node_facts(tree.path());
  CHECK(n.instance_type == "p5.48xlarge");
  CHECK(n.efa() == 32);
  CHECK(n.hugetlb_2mb_limit == std::optional<std::uint64_t>(5368709120ULL));
  CHECK(n.efa_lib_dirs == std::vector<std::string>{"/opt/amazon/efa/lib", "/opt/amazon/ofi-nccl/lib",
                                                   "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu"});
}

TEST_CASE("uverbs devices bound to another driver are not EFA", "[facts]") {
  const NodeTree tree("p4de");
  // An mlx5 device exposed by a /dev/infiniband hostPath (aws-do-eks#63).
  const std::string cmd = "cd '" + tree.path() +
                          "' && : > dev/infiniband/uverbs9 && mkdir -p sys/class/infiniband_verbs/uverbs9 "
                          "sys/class/infiniband/mlx5_0/device && echo mlx5_0 > sys/class/infiniband_verbs/uverbs9/ibdev "
                          "&& ln -s ../../../../bus/pci/drivers/mlx5_core sys/class/infiniband/mlx5_0/device/driver";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const NodeFacts n = gather_node_facts(tree.path());
  CHECK(n.efa() == 4);
  CHECK(n.other_uverbs == std::vector<std::string>{"mlx5_0 (mlx5_core)"});
}

TEST_CASE("a node without EFA, and a workstation with nothing", "[facts]") {
  const NodeTree g5("g5-noefa");
  const NodeFacts n = gather_node_facts(g5.path());
  CHECK(n.instance_type == "g5.12xlarge");
  CHECK(n.efa() == 0);
  CHECK(n.gpus() == 4);
  CHECK_FALSE(n.hugetlb_2mb_limit.has_value());  // "max"

  const NodeTree ws("workstation", "laptop");
  const NodeFacts w = gather_node_facts(ws.path());
  CHECK(w.instance_type.empty());
  CHECK(w.gpus() == 0);
  CHECK(w.efa() == 0);
  CHECK_FALSE(w.hugetlb_known);
}

TEST_CASE("an unreadable host root is a bad setting", "[facts][bad-input]") {
  int code = 0;
  const auto lines = fixtures::fatal_lines(
      [] { gather_pod_facts(fixtures::config({{"host_root", "/nonexistent/root"}}), {}); }, &code);
  CHECK(code == 64);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "--host-root: \"/nonexistent/root\" is not valid (expected a readable directory; No such file or "
                    "directory)");
}

TEST_CASE("hostname comes from the flag, then HOSTNAME, then gethostname(), each named truly", "[facts]") {
  const NodeTree tree("workstation", "laptop");
  // Config and facts see the same environment, as in the program: HOSTNAME is the hostname
  // setting's environment twin, so it reaches the facts through Config, with its own name.
  const EnvMap env = {{"HOSTNAME", "y-2"}};
  const PodFacts a = gather_pod_facts(fixtures::config({{"host_root", tree.path()}, {"hostname", "x-1"}}, env), env);
  CHECK(a.hostname == "x-1");
  CHECK(a.hostname_source == "--hostname");
  const PodFacts b = gather_pod_facts(fixtures::config({{"host_root", tree.path()}}, env), env);
  CHECK(b.hostname == "y-2");
  CHECK(b.hostname_source == "HOSTNAME");
  const PodFacts c = gather_pod_facts(fixtures::config({{"host_root", tree.path()}}), {});
  CHECK(c.hostname_source == "gethostname()");
  CHECK_FALSE(c.hostname.empty());
}

TEST_CASE("a host root that is a file is refused, naming why", "[facts][bad-input]") {
  const NodeTree tree("workstation", "laptop");
  const std::string file = tree.path() + "/a-file";
  REQUIRE(std::system(("touch '" + file + "'").c_str()) == 0);
  int code = 0;
  const auto lines = fixtures::fatal_lines([&] { gather_pod_facts(fixtures::config({{"host_root", file}}), {}); }, &code);
  CHECK(code == 64);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "--host-root: \"" + file + "\" is not valid (expected a readable directory; not a directory)");
}

TEST_CASE("limits are this process's own, never a fake tree's", "[facts]") {
  const NodeTree tree("p5");  // its /proc/self/limits says memlock 65536: it must not count
  const PodFacts f = gather_pod_facts(fixtures::config({{"host_root", tree.path()}}), {});
  const util::ProcessLimits real = util::read_process_limits();
  REQUIRE(f.limits.nofile.has_value());
  CHECK(f.limits.nofile->soft == real.nofile->soft);
  CHECK(f.limits.memlock->soft == real.memlock->soft);
}

TEST_CASE("planted files that would block or grow without bound read as absent", "[facts][bad-input]") {
  const NodeTree tree("p4de");
  const std::string dmi = tree.path() + "/sys/devices/virtual/dmi/id/product_name";
  const std::string hosts = tree.path() + "/etc/hosts";
  // product_name as /dev/zero (endless), /etc/hosts as a FIFO (a read would wait for a writer).
  const std::string cmd = "rm -f '" + dmi + "' '" + hosts + "' && ln -s /dev/zero '" + dmi + "' && mkfifo '" + hosts + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const PodFacts f = gather_pod_facts(fixtures::config({{"host_root", tree.path()}, {"hostname", "training-1"}}), {});
  CHECK(f.node.instance_type.empty());
  CHECK(f.etc_hosts.empty());
}

TEST_CASE("the pod's interfaces and its default route's, as /sys/class/net and /proc/net/route show them",
          "[facts][net]") {
  const NodeTree tree("p4de");
  // An EKS pod with Pod Identity: eth0 (the default route), lo, and the agent's link-local
  // pod-id-link0 with its 169.254.170.0/24 route (proc(5) route format, little-endian hex).
  const std::string root = tree.path();
  const int rc = std::system(("mkdir -p '" + root + "/sys/class/net/eth0' '" + root + "/sys/class/net/lo' '" + root +
                              "/sys/class/net/pod-id-link0' '" + root + "/proc/net' && printf '"
                              "Iface\\tDestination\\tGateway \\tFlags\\tRefCnt\\tUse\\tMetric\\tMask\\t\\tMTU\\tWindow\\tIRTT\\n"
                              "pod-id-link0\\t00AAFEA9\\t00000000\\t0001\\t0\\t0\\t0\\t00FFFFFF\\t0\\t0\\t0\\n"
                              "eth0\\t00000000\\t0101A8C0\\t0003\\t0\\t0\\t0\\t00000000\\t0\\t0\\t0\\n' > '" +
                              root + "/proc/net/route'")
                                 .c_str());
  REQUIRE(rc == 0);
  const NodeFacts n = gather_node_facts(root);
  CHECK(n.net_interfaces == std::vector<std::string>{"eth0", "lo", "pod-id-link0"});
  CHECK(n.default_route_interface == "eth0");
  CHECK(n.has_pod_identity_link());

  const NodeFacts bare = gather_node_facts(NodeTree("workstation").path());
  CHECK_FALSE(bare.has_pod_identity_link());
  CHECK(bare.default_route_interface.empty());
}
