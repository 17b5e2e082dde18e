#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace launcher;
using fixtures::check_named;
using fixtures::node_checks_on;
using fixtures::NodeTree;

// make-node-tree: GPUs 0000:10:00.0 … behind root ports 0000:00:01.0 …; EFA devices rdmapNs0
// at 0000:90+N:00.0 behind 0000:80:NN.0. p4de's GPUs idle at 2.5 of 16.0 GT/s, p5's run at
// their full 32.0 GT/s.

TEST_CASE("pcie-links: idle GPUs below top speed pass, saying why", "[checks][pcie]") {
  const NodeTree tree("p4de");
  const Check c = check_named(node_checks_on(tree), "pcie-links");
  CHECK(c.status == CheckStatus::pass);
  CHECK(c.detail ==
        "8 GPU links at full width, 8 below top speed: idle GPUs lower it (nvidia-smi: \"may be reduced when the GPU "
        "is not in use\"); 4 EFA links at full width and speed");
}

TEST_CASE("pcie-links: every link at full width and speed passes", "[checks][pcie]") {
  const NodeTree tree("p5");
  const Check c = check_named(node_checks_on(tree), "pcie-links");
  CHECK(c.status == CheckStatus::pass);
  CHECK(c.detail == "8 GPU links at full width and speed; 32 EFA links at full width and speed");
}

TEST_CASE("pcie-links: a GPU link narrower than both ends allow warns, never fails", "[checks][pcie]") {
  const NodeTree tree("p5");
  tree.inject("link 0000:13:00.0 8 32.0");
  const Check c = check_named(node_checks_on(tree), "pcie-links");
  CHECK(c.status == CheckStatus::warn);
  CHECK(c.detail ==
        "GPU 0000:13:00.0 runs x8 of the x16 both ends allow (1 of 40 links); a degraded link slows every "
        "collective to its pace");
  CHECK(c.fix ==
        "check it under load (nvidia-smi -q, GPU Link Info); if it stays degraded, cordon the node and reboot or "
        "replace the instance");
}

TEST_CASE("pcie-links: an EFA link slower than both ends allow warns", "[checks][pcie]") {
  const NodeTree tree("p4de");
  tree.inject("link 0000:91:00.0 16 8.0");  // rdmap1s0
  const Check c = check_named(node_checks_on(tree), "pcie-links");
  CHECK(c.status == CheckStatus::warn);
  CHECK(c.detail ==
        "EFA rdmap1s0 (0000:91:00.0) runs at 8.0 GT/s of the 16.0 GT/s both ends allow (1 of 12 links); a degraded "
        "link slows every collective to its pace");
  CHECK(c.fix == "cordon the node and replace the instance (a stop and start moves it to other hardware)");
}

TEST_CASE("pcie-links: a slot slower than the device is no degradation", "[checks][pcie]") {
  const NodeTree tree("p5");
  // The GPU (32.0 GT/s x16) in a port that allows 16.0 GT/s x8: it trains to 16.0 GT/s x8.
  const std::string port = tree.path() + "/sys/devices/pci0000:00/0000:00:01.0";
  REQUIRE(std::system(("echo '16.0 GT/s PCIe' > '" + port + "/max_link_speed' && echo 8 > '" + port +
                       "/max_link_width'")
                          .c_str()) == 0);
  tree.inject("link 0000:10:00.0 8 16.0");
  CHECK(check_named(node_checks_on(tree), "pcie-links").status == CheckStatus::pass);
  tree.inject("link 0000:10:00.0 4 16.0");
  CHECK_THAT(check_named(node_checks_on(tree), "pcie-links").detail,
             Catch::StartsWith("GPU 0000:10:00.0 runs x4 of the x8 both ends allow"));
}

TEST_CASE("pcie-links: a link that is down or unreadable warns; gpu-bus owns the failure", "[checks][pcie]") {
  const NodeTree tree("p5");
  tree.inject("link 0000:11:00.0 0 2.5");
  tree.inject("gpu-fell-off 0000:12:00.0");  // Link Status reads all ones: x63, Unknown
  const auto checks = node_checks_on(tree);
  const Check c = check_named(checks, "pcie-links");
  CHECK(c.status == CheckStatus::warn);
  CHECK_THAT(c.detail, Catch::StartsWith("GPU 0000:11:00.0 link down (x0 of x16); GPU 0000:12:00.0 link status "
                                         "unreadable (x63; see gpu-bus) (2 of 40 links)"));
  CHECK(check_named(checks, "gpu-bus").status == CheckStatus::fail);
}

TEST_CASE("pcie-links: only this pod's GPUs count, and no line without PCIe devices", "[checks][pcie]") {
  const NodeTree tree("p4de");
  REQUIRE(std::system(("rm -rf '" + tree.path() + "/proc/driver/nvidia/gpus/0000:13:00.0'").c_str()) == 0);
  tree.inject("link 0000:13:00.0 4 16.0");  // another pod's GPU
  const Check c = check_named(node_checks_on(tree), "pcie-links");
  CHECK(c.status == CheckStatus::pass);
  CHECK_THAT(c.detail, Catch::StartsWith("7 GPU links at full width"));
  const NodeTree ws("workstation", "laptop");  // an Intel NIC at 5.0 GT/s x1: not the pod's GPU or EFA device
  CHECK_FALSE(fixtures::has_check(node_checks_on(ws), "pcie-links"));
}

TEST_CASE("PCIe speeds as each kernel prints them", "[facts][pcie]") {
  CHECK(parse_link_speed("16.0 GT/s PCIe") == std::optional<double>(16.0));
  CHECK(parse_link_speed("2.5 GT/s PCIe") == std::optional<double>(2.5));
  CHECK(parse_link_speed("8 GT/s") == std::optional<double>(8.0));  // before pci_speed_string()
  CHECK_FALSE(parse_link_speed("Unknown").has_value());
  CHECK_FALSE(parse_link_speed("Unknown speed").has_value());
  CHECK_FALSE(parse_link_speed("").has_value());
  CHECK_FALSE(parse_link_speed("16.0 Gb/s").has_value());
  CHECK_FALSE(parse_link_speed("-8 GT/s").has_value());
  CHECK_FALSE(parse_link_speed("1e308 GT/s").has_value());
}
