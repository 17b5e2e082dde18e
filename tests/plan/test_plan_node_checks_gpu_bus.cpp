#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace launcher;
using fixtures::check_named;
using fixtures::node_checks_on;
using fixtures::NodeTree;

// Bus ids in make-node-tree's trees: the GPUs are 0000:10:00.0 … 0000:17:00.0.

TEST_CASE("gpu-bus: every GPU on PCI bound to nvidia and answering passes; NVSwitches are no GPUs",
          "[checks][gpu-bus]") {
  const NodeTree tree("p4de");  // 8 GPUs and 6 NVSwitches (vendor 0x10de, class 0x0680)
  const Check c = check_named(node_checks_on(tree), "gpu-bus");
  CHECK(c.status == CheckStatus::pass);
  CHECK(c.detail == "8 NVIDIA GPUs on PCI, each bound to nvidia and answering; 8 of them this pod's");
  CHECK(c.fix.empty());
}

TEST_CASE("gpu-bus: this pod's GPU that fell off the bus fails, naming it and the fix", "[checks][gpu-bus]") {
  const NodeTree tree("p4de");
  tree.inject("gpu-fell-off 0000:13:00.0");
  const auto checks = node_checks_on(tree);
  const Check c = check_named(checks, "gpu-bus");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail ==
        "GPU 0000:13:00.0 (this pod's) does not answer on PCI (its config space reads all ones): it fell off the bus");
  CHECK(c.fix ==
        "drain the node and reboot or replace the instance: a GPU that fell off the bus comes back only with a "
        "reset, never with a container restart");
  // Its count still looks right: /dev/nvidia3 and its /proc entry stay. Only gpu-bus sees it.
  CHECK(check_named(checks, "gpus").status == CheckStatus::pass);
}

TEST_CASE("gpu-bus: this pod's GPU removed from the bus fails", "[checks][gpu-bus]") {
  const NodeTree tree("p5");
  tree.inject("gpu-removed 0000:10:00.0");
  const Check c = check_named(node_checks_on(tree), "gpu-bus");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail ==
        "GPU 0000:10:00.0 (this pod's) is in /proc/driver/nvidia/gpus but gone from /sys/bus/pci: it was removed "
        "from the bus");
  CHECK(c.fix.starts_with("drain the node and reboot or replace the instance"));
}

TEST_CASE("gpu-bus: another GPU the driver did not take warns; the pod's count fails", "[checks][gpu-bus]") {
  const NodeTree tree("p4de");
  tree.inject("gpu-unbound 0000:17:00.0");  // its probe failed: no driver, no /proc entry, 7 /dev nodes
  const auto checks = node_checks_on(tree);
  const Check c = check_named(checks, "gpu-bus");
  CHECK(c.status == CheckStatus::warn);
  CHECK(c.detail ==
        "GPU 0000:17:00.0 is bound to no driver: the NVIDIA driver did not take it; not one of this pod's, but the "
        "node is unhealthy");
  CHECK(c.fix ==
        "look for NVRM errors in the node's kernel log, then reload the NVIDIA driver or reboot the node; cordon it "
        "meanwhile");
  CHECK(check_named(checks, "gpus").detail == "7 GPUs found (NVIDIA A100-SXM4-80GB), 8 expected (p4de.24xlarge)");
  // A pod that asks for 7 runs; the node's health is still worth a warning.
  const auto seven = node_checks_on(tree, {{"gpus", "7"}});
  CHECK(check_named(seven, "gpus").status == CheckStatus::pass);
  CHECK(check_named(seven, "gpu-bus").status == CheckStatus::warn);
}

TEST_CASE("gpu-bus: a GPU bound to another driver, and more than three lost, are named", "[checks][gpu-bus]") {
  const NodeTree tree("p4de");
  tree.inject("gpu-unbound 0000:16:00.0");
  tree.inject("gpu-unbound 0000:17:00.0");
  const std::string root = tree.path() + "/sys/devices/pci0000:00";
  REQUIRE(std::system(("mkdir -p '" + tree.path() + "/sys/bus/pci/drivers/vfio-pci' && ln -sfn " +
                       "../../../../bus/pci/drivers/vfio-pci '" + root + "/0000:00:06.0/0000:15:00.0/driver'")
                          .c_str()) == 0);
  tree.inject("gpu-fell-off 0000:10:00.0");
  tree.inject("gpu-fell-off 0000:11:00.0");
  const Check c = check_named(node_checks_on(tree), "gpu-bus");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail ==
        "GPU 0000:10:00.0 (this pod's) does not answer on PCI (its config space reads all ones): it fell off the "
        "bus; GPU 0000:11:00.0 (this pod's) does not answer on PCI (its config space reads all ones): it fell off "
        "the bus; GPU 0000:15:00.0 (this pod's) is bound to vfio-pci, not to nvidia; and 2 more");
}

TEST_CASE("gpu-bus: without /proc/driver/nvidia/gpus whose GPU it is stays unknown: a warning", "[checks][gpu-bus]") {
  const NodeTree tree("g5-noefa");
  REQUIRE(std::system(("rm -rf '" + tree.path() + "/proc/driver/nvidia/gpus'").c_str()) == 0);  // CDI, no procfs
  tree.inject("gpu-fell-off 0000:12:00.0");
  const Check c = check_named(node_checks_on(tree), "gpu-bus");
  CHECK(c.status == CheckStatus::warn);
  CHECK_THAT(c.detail, Catch::EndsWith("; whether it is this pod's is unknown (no /proc/driver/nvidia/gpus)"));
}

TEST_CASE("gpu-bus: nothing to say without NVIDIA GPUs, or for a pod that neither has nor wants one",
          "[checks][gpu-bus]") {
  const NodeTree ws("workstation", "laptop");  // an Intel NIC on PCI, no GPU
  CHECK_FALSE(fixtures::has_check(node_checks_on(ws), "gpu-bus"));
  const NodeTree cpu_pod("g5-noefa");  // the node's GPUs, none in this pod
  REQUIRE(std::system(("rm -f '" + cpu_pod.path() + "'/dev/nvidia[0-9]* && rm -rf '" + cpu_pod.path() +
                       "/proc/driver/nvidia/gpus'")
                          .c_str()) == 0);
  cpu_pod.inject("gpu-fell-off 0000:11:00.0");
  CHECK_FALSE(fixtures::has_check(node_checks_on(cpu_pod, {{"gpus", "0"}}), "gpu-bus"));
}
