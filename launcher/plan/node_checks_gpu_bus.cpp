// gpu-bus: is every NVIDIA GPU on the PCI bus still the NVIDIA driver's? A GPU that "fell off
// the bus" (NVIDIA Xid 79) stops answering PCI config reads, which then return all ones (the
// kernel's PCI_ERROR_RESPONSE); one the driver could not initialise is bound to no driver; one
// removed from the bus (surprise removal) is gone from /sys/bus/pci while the driver's
// /proc/driver/nvidia/gpus/<bus id> may stay. Today such a GPU is found by a hung collective
// (issue 19). A GPU on PCI without a /proc/driver/nvidia/gpus entry is not lost: in a container
// that directory holds only the GPUs allocated to the pod (libnvidia-container bind-mounts
// their entries over a tmpfs, nvc_mount.c), so the entry tells whose a GPU is, and the driver
// binding (/sys/bus/pci/devices/<bus id>/driver) whether the driver has it. Facts:
// node_facts_devices.cpp; ../shared/reference/fabric-and-node-checks.md §5.
#include <algorithm>

#include "plan/node_checks.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

constexpr std::size_t k_shown = 3;

struct Lost {
  std::string address;
  std::string what;
  bool fell_off = false;  // needs a reset (fell off, removed); else a driver matter
  bool mine = false;      // one of this pod's GPUs
};

std::vector<Lost> lost_gpus(const DeviceFacts& d) {
  std::vector<Lost> out;
  for (const PciGpu& g : d.gpus) {
    const std::string address = util::printable(g.address);
    if (g.answers == std::optional<bool>(false)) {
      out.push_back({address, "does not answer on PCI (its config space reads all ones): it fell off the bus", true,
                     g.in_driver});
    } else if (g.driver.empty()) {
      out.push_back({address, "is bound to no driver: the NVIDIA driver did not take it", false, g.in_driver});
    } else if (g.driver != "nvidia") {
      out.push_back({address, "is bound to " + util::printable(g.driver) + ", not to nvidia", false, g.in_driver});
    }
  }
  for (const std::string& bus_id : d.driver_gpus) {
    const bool on_pci = std::any_of(d.gpus.begin(), d.gpus.end(), [&](const PciGpu& g) { return g.address == bus_id; });
    if (!on_pci) {
      out.push_back({util::printable(bus_id),
                     "is in /proc/driver/nvidia/gpus but gone from /sys/bus/pci: it was removed from the bus", true,
                     true});
    }
  }
  return out;
}

}  // namespace

std::optional<Check> check_gpu_bus(const NodeFacts& node, const Expectations& expect) {
  const DeviceFacts& d = node.devices;
  if ((d.gpus.empty() && d.driver_gpus.empty()) || (node.gpus() == 0 && expect.gpus <= 0)) {
    return std::nullopt;  // no NVIDIA GPU here, or none this pod has or wants
  }
  Check c{"gpu-bus", CheckStatus::pass, "", ""};
  if (!d.pci_visible) {
    c.detail = "/sys/bus/pci is not visible: not checked";
    return c;
  }
  const bool ownership_known = !d.driver_gpus.empty();
  const std::vector<Lost> lost = lost_gpus(d);
  if (lost.empty()) {
    c.detail = util::plural(static_cast<long>(d.gpus.size()), "NVIDIA GPU") + " on PCI, each bound to nvidia and " +
               "answering; " +
               (ownership_known ? std::to_string(d.driver_gpus.size()) + " of them this pod's"
                                : "no /proc/driver/nvidia/gpus: which are this pod's is unknown");
    return c;
  }
  std::vector<std::string> parts;
  bool mine = false;
  bool reset = false;
  for (std::size_t i = 0; i < lost.size(); ++i) {
    mine = mine || lost[i].mine;
    reset = reset || lost[i].fell_off;
    if (i < k_shown) {
      parts.push_back("GPU " + lost[i].address + (lost[i].mine ? " (this pod's) " : " ") + lost[i].what);
    }
  }
  if (lost.size() > k_shown) {
    parts.push_back("and " + std::to_string(lost.size() - k_shown) + " more");
  }
  c.status = mine ? CheckStatus::fail : CheckStatus::warn;
  c.detail = util::join(parts, "; ");
  if (!mine) {
    c.detail += ownership_known ? "; not one of this pod's, but the node is unhealthy"
                                : "; whether it is this pod's is unknown (no /proc/driver/nvidia/gpus)";
  }
  // A GPU off the bus comes back only with a reset of the GPU or the node; a container restart
  // (all a failed check causes) keeps the pod on the same node, so the fix names the node.
  c.fix = reset ? "drain the node and reboot or replace the instance: a GPU that fell off the bus comes back only "
                  "with a reset, never with a container restart"
                : "look for NVRM errors in the node's kernel log, then reload the NVIDIA driver or reboot the node; "
                  "cordon it meanwhile";
  return c;
}

}  // namespace launcher
