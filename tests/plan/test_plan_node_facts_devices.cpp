#include <catch2/catch.hpp>

#include <fstream>

#include "fixtures.hpp"

using namespace launcher;
using fixtures::NodeTree;

namespace {

void sh(const NodeTree& tree, const std::string& script) {
  REQUIRE(std::system(("cd '" + tree.path() + "' && " + script).c_str()) == 0);
}

}  // namespace

TEST_CASE("p5: GPUs from /sys/bus/pci with their driver, config space and link; NVSwitches left out",
          "[facts][devices]") {
  const NodeTree tree("p5");
  const DeviceFacts d = gather_node_facts(tree.path()).devices;
  CHECK(d.pci_visible);
  REQUIRE(d.gpus.size() == 8);  // 4 NVSwitches are vendor 0x10de too, class 0x068000
  const PciGpu& g = d.gpus.front();
  CHECK(g.address == "0000:10:00.0");
  CHECK(g.driver == "nvidia");
  CHECK(g.answers == std::optional<bool>(true));
  CHECK(g.in_driver);
  CHECK(g.link.speed == std::optional<double>(32.0));
  CHECK(g.link.max_width == std::optional<int>(16));
  CHECK(g.link.port == "0000:00:01.0");
  CHECK_FALSE(g.link.port_max_speed.has_value());  // read only for a link below the device's maximum
  CHECK(d.driver_gpus.size() == 8);
  CHECK(d.node_efa.size() == 32);
  REQUIRE(d.ports.size() == 32);
  CHECK(d.ports.front().device == "rdmap0s0");
  CHECK(d.ports.front().efa);
  CHECK(d.ports.front().state == "4: ACTIVE");
  CHECK(d.ports.front().phys_state.empty());  // read only for a port that is not ACTIVE
  CHECK(d.ports.front().active());
  REQUIRE(d.efa_links.size() == 32);
  CHECK(d.efa_links.front().address == "0000:90:00.0");
  CHECK(d.efa_links.front().link.width == std::optional<int>(16));
  CHECK(d.efa_links.front().link.port == "0000:80:00.0");
}

TEST_CASE("a workstation: a PCI bus without GPUs or RDMA devices", "[facts][devices]") {
  const NodeTree tree("workstation", "laptop");
  const DeviceFacts d = gather_node_facts(tree.path()).devices;
  CHECK(d.pci_visible);
  CHECK(d.gpus.empty());
  CHECK(d.driver_gpus.empty());
  CHECK(d.node_efa.empty());
  CHECK(d.ports.empty());
  CHECK(d.efa_links.empty());
}

TEST_CASE("faults as the kernel shows them: all-ones config space, no driver, gone from PCI", "[facts][devices]") {
  const NodeTree tree("p4de");
  tree.inject("gpu-fell-off 0000:10:00.0");
  tree.inject("gpu-unbound 0000:11:00.0");
  tree.inject("gpu-removed 0000:12:00.0");
  const DeviceFacts d = gather_node_facts(tree.path()).devices;
  REQUIRE(d.gpus.size() == 7);
  CHECK(d.gpus[0].answers == std::optional<bool>(false));
  CHECK(d.gpus[0].link.width == std::optional<int>(63));
  CHECK(d.gpus[3].link.port_max_speed == std::optional<double>(16.0));  // idle at 2.5 GT/s: its port is read
  CHECK_FALSE(d.gpus[0].link.speed.has_value());  // "Unknown"
  CHECK(d.gpus[1].driver.empty());
  CHECK_FALSE(d.gpus[1].in_driver);
  CHECK(d.gpus[2].address == "0000:13:00.0");
  CHECK(std::count(d.driver_gpus.begin(), d.driver_gpus.end(), "0000:12:00.0") == 1);  // still in /proc
}

TEST_CASE("planted device files read as unknown, never block, never leave the root", "[facts][devices][bad-input]") {
  const NodeTree tree("p4de");
  const std::string gpu = "sys/devices/pci0000:00/0000:00:01.0/0000:10:00.0";
  // config as /dev/zero (endless, not a regular file), widths beyond a 6-bit field, a speed that
  // is no number, a FIFO where a state file should be.
  sh(tree, "rm " + gpu + "/config && ln -s /dev/zero " + gpu + "/config && echo 999999999999 > " + gpu +
               "/current_link_width && echo 'fast GT/s' > " + gpu +
               "/current_link_speed && rm sys/class/infiniband/rdmap0s0/ports/1/state && mkfifo "
               "sys/class/infiniband/rdmap0s0/ports/1/state");
  // A GPU's class file of 2 MiB: one short read, still the first line.
  sh(tree, "{ echo 0x030200; head -c 2097152 /dev/zero; } > sys/devices/pci0000:00/0000:00:02.0/0000:11:00.0/class");
  // An ibdev name that climbs out of /sys/class/infiniband, and a device link that is absolute.
  sh(tree, "echo ../../../../etc > sys/class/infiniband_verbs/uverbs1/ibdev && ln -sfn "
           "/sys/devices/pci0000:80/0000:80:02.0/0000:92:00.0 sys/class/infiniband/rdmap2s0/device");
  const NodeFacts n = gather_node_facts(tree.path());
  const PciGpu& g = n.devices.gpus.front();
  CHECK_FALSE(g.answers.has_value());
  CHECK_FALSE(g.link.width.has_value());
  CHECK_FALSE(g.link.speed.has_value());
  CHECK(g.link.max_speed == std::optional<double>(16.0));
  CHECK(n.devices.ports.front().state.empty());
  CHECK(n.devices.gpus.size() == 8);
  for (const RdmaPort& p : n.devices.ports) {
    CHECK(p.device.find('/') == std::string::npos);
  }
  // The absolute link is read under the root: the fake tree's device, not the host's.
  const auto rdmap2 = std::find_if(n.devices.efa_links.begin(), n.devices.efa_links.end(),
                                   [](const EfaLink& l) { return l.device == "rdmap2s0"; });
  REQUIRE(rdmap2 != n.devices.efa_links.end());
  CHECK(rdmap2->address == "0000:92:00.0");
  CHECK(rdmap2->link.width == std::optional<int>(16));
}
