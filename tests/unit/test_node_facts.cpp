#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "pod_facts.hpp"

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
  REQUIRE(n.memlock.has_value());
  CHECK_FALSE(n.memlock->soft.has_value());  // unlimited
  CHECK(n.hugetlb_known);
  CHECK(n.hugetlb_2mb_limit == std::optional<std::uint64_t>(0));
  CHECK(n.efa_lib_dirs == std::vector<std::string>{"/opt/amazon/efa/lib", "/opt/amazon/ofi-nccl/lib"});
  CHECK(n.memory_bytes == std::optional<std::uint64_t>(1176460260ULL * 1024));
  CHECK(n.shm.has_value());
}

TEST_CASE("p5: 32 EFA devices, limited memlock and nofile", "[facts]") {
  const NodeTree tree("p5");
  const NodeFacts n = gather_node_facts(tree.path());
  CHECK(n.instance_type == "p5.48xlarge");
  CHECK(n.efa() == 32);
  CHECK(n.memlock->soft == std::optional<std::uint64_t>(65536));
  CHECK_FALSE(n.memlock->hard.has_value());
  CHECK(n.nofile->soft == std::optional<std::uint64_t>(1024));
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

TEST_CASE("hostname comes from the flag, then HOSTNAME, then gethostname()", "[facts]") {
  const NodeTree tree("workstation", "laptop");
  const PodFacts a = gather_pod_facts(fixtures::config({{"host_root", tree.path()}, {"hostname", "x-1"}}),
                                      {{"HOSTNAME", "y-2"}});
  CHECK(a.hostname == "x-1");
  const PodFacts b = gather_pod_facts(fixtures::config({{"host_root", tree.path()}}), {{"HOSTNAME", "y-2"}});
  CHECK(b.hostname == "y-2");
  CHECK(b.hostname_source == "HOSTNAME");
  const PodFacts c = gather_pod_facts(fixtures::config({{"host_root", tree.path()}}), {});
  CHECK(c.hostname_source == "gethostname()");
  CHECK_FALSE(c.hostname.empty());
}
