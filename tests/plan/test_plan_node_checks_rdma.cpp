#include <catch2/catch.hpp>
#include <fstream>

#include "fixtures.hpp"

using namespace launcher;
using fixtures::check_named;
using fixtures::node_checks_on;
using fixtures::NodeTree;

namespace {

const std::map<std::string, std::string> k_four_nodes = {{"nodes", "4"}};

}  // namespace

TEST_CASE("rdma-ports: every port of the pod's devices ACTIVE passes", "[checks][rdma]") {
  const NodeTree tree("p5");
  const Check c = check_named(node_checks_on(tree, k_four_nodes), "rdma-ports");
  CHECK(c.status == CheckStatus::pass);
  CHECK(c.detail == "all 32 ports of this pod's RDMA devices ACTIVE");
}

TEST_CASE("rdma-ports: one EFA port not ACTIVE warns, naming its states and the fix", "[checks][rdma]") {
  const NodeTree tree("p4de");
  tree.inject("port rdmap1s0 '1: DOWN' '3: Disabled'");
  const Check c = check_named(node_checks_on(tree, k_four_nodes), "rdma-ports");
  CHECK(c.status == CheckStatus::warn);
  CHECK(c.detail ==
        "rdmap1s0 port 1 is 1: DOWN (phys_state 3: Disabled); 1 of 4 ports not ACTIVE: NCCL uses only ACTIVE ports, "
        "so this pod has fewer NICs");
  CHECK(c.fix ==
        "the EFA driver reports a working device ACTIVE: cordon the node and replace the instance (a stop and start "
        "moves it to other hardware)");
}

TEST_CASE("rdma-ports: no port ACTIVE fails a multi-node cluster, warns a single node", "[checks][rdma]") {
  const NodeTree tree("p4de");
  for (int i = 0; i < 4; ++i) {
    tree.inject("port rdmap" + std::to_string(i) + "s0 '1: DOWN' '2: Polling'");
  }
  const Check multi = check_named(node_checks_on(tree, k_four_nodes), "rdma-ports");
  CHECK(multi.status == CheckStatus::fail);
  CHECK_THAT(multi.detail,
             Catch::EndsWith("and 1 more; 4 of 4 ports not ACTIVE: no RDMA network is left, NCCL falls back to TCP "
                             "sockets or stops"));
  const Check single = check_named(node_checks_on(tree), "rdma-ports");
  CHECK(single.status == CheckStatus::warn);
  CHECK_THAT(single.detail,
             Catch::EndsWith(" (one node: NCCL needs no network between its GPUs, so only a warning)"));
}

TEST_CASE("rdma-ports: an InfiniBand port's fix follows its state", "[checks][rdma]") {
  const NodeTree tree("p4de");
  tree.inject("efa-mlx5 1");  // uverbs3 reaches mlx5_103
  tree.inject("port mlx5_103 '2: INIT' '5: LinkUp'");
  const Check init = check_named(node_checks_on(tree, k_four_nodes), "rdma-ports");
  CHECK(init.status == CheckStatus::warn);
  CHECK_THAT(init.detail, Catch::StartsWith("mlx5_103 port 1 is 2: INIT (phys_state 5: LinkUp); 1 of 4 ports"));
  CHECK(init.fix ==
        "the link is up but not activated (INIT or ARMED): the InfiniBand subnet manager (opensm, UFM) has not "
        "configured the port");
  tree.inject("port mlx5_103 '1: DOWN' '2: Polling'");
  CHECK(check_named(node_checks_on(tree, k_four_nodes), "rdma-ports").fix ==
        "the link is down: check the cable and the switch port of each device named");
}

TEST_CASE("rdma-ports: hostile state files are shown escaped and count as not ACTIVE", "[checks][rdma][bad-input]") {
  const NodeTree tree("p4de");
  const std::string port = tree.path() + "/sys/class/infiniband/rdmap0s0/ports/1/";
  std::ofstream(port + "state") << "4\033[31m: ACTIVE\n";
  std::ofstream(port + "phys_state") << "";
  const Check c = check_named(node_checks_on(tree, k_four_nodes), "rdma-ports");
  CHECK(c.status == CheckStatus::warn);
  CHECK_THAT(c.detail, Catch::StartsWith("rdmap0s0 port 1 is 4\\e[31m: ACTIVE; 1 of 4"));
}

TEST_CASE("rdma-ports: no line without RDMA devices", "[checks][rdma]") {
  const NodeTree g5("g5-noefa");
  CHECK_FALSE(fixtures::has_check(node_checks_on(g5), "rdma-ports"));
  const NodeTree ws("workstation", "laptop");
  CHECK_FALSE(fixtures::has_check(node_checks_on(ws), "rdma-ports"));
}

TEST_CASE("efa: the node limits the pod when it has fewer EFA devices attached", "[checks][efa]") {
  const NodeTree tree("p4de-2efa");
  const Check c = check_named(node_checks_on(tree), "efa");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail == "2 EFA devices found, 4 expected (p4de.24xlarge); limited by the node: it has only 2 "
                    "(/sys/class/infiniband)");
  CHECK(c.fix ==
        "request vpc.amazonaws.com/efa: 4 so that Karpenter launches the node with its EFA interfaces (it attaches "
        "them only for pods that request them), or list them in the node group's launch template");
}

TEST_CASE("efa: the pod's request limits it when the node has them all", "[checks][efa]") {
  const NodeTree tree("p5");
  tree.inject("efa-pod 16");
  const Check c = check_named(node_checks_on(tree), "efa");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail ==
        "16 EFA devices found, 32 expected (p5.48xlarge); limited by the pod's request: the node has 32 EFA devices "
        "and the device plugin gives a pod what it requests");
  CHECK(c.fix == "request vpc.amazonaws.com/efa: 32, or set RAYLAUNCH_EFA=16 if 16 is meant");
  // Asked for 16 on purpose: a pass that still says what the node has.
  const Check meant = check_named(node_checks_on(tree, {{"efa", "16"}}), "efa");
  CHECK(meant.status == CheckStatus::pass);
  CHECK(meant.detail == "16 EFA devices found, as expected (--efa); the node has 32");
  // The setting says 32 (the manifests keep it equal to the request): the fix names it.
  CHECK(check_named(node_checks_on(tree, {{"efa", "32"}}), "efa").fix ==
        "request vpc.amazonaws.com/efa: 32, as --efa says");
}

TEST_CASE("efa: none reached the pod although the node has them", "[checks][efa]") {
  const NodeTree tree("p4de");
  tree.inject("efa-pod 0");
  const Check c = check_named(node_checks_on(tree), "efa");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail == "0 EFA devices found, 4 expected (p4de.24xlarge); limited by the pod: the node has 4 EFA devices, "
                    "none in this pod's /dev/infiniband");
  CHECK(c.fix ==
        "request vpc.amazonaws.com/efa: 4 and run the EFA device plugin on the node (or claim them with the EFA DRA "
        "driver)");
}

TEST_CASE("efa: the device plugin limits the pod when it hands out mlx5 devices", "[checks][efa]") {
  const NodeTree tree("p4de");
  tree.inject("efa-mlx5 2");
  const Check c = check_named(node_checks_on(tree), "efa");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail ==
        "2 EFA devices found, 4 expected (p4de.24xlarge); limited by the device plugin: it gave this pod non-EFA "
        "verbs devices (mlx5_102 (mlx5_core), mlx5_103 (mlx5_core)) while the node has 4 EFA devices");
  CHECK(c.fix ==
        "upgrade the EFA device plugin to 0.5.10 or later, which hands out only EFA devices "
        "(sagemaker-hyperpod-cli#282)");
}
