#pragma once
// What the node's PCI devices and RDMA ports look like, read without privileges from sysfs and
// procfs (node_facts_devices.cpp). No judgement here: node_checks_devices.cpp judges.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/host_fs.hpp"

namespace launcher {

// One PCIe link as sysfs shows it (Linux drivers/pci/pci-sysfs.c): current_link_speed and
// current_link_width come from the Link Status register, max_link_speed and max_link_width
// from Link Capabilities; the port upstream (the parent directory in /sys/devices) has its
// own maximum, and the link can train no faster than the slower end of it.
struct PcieLink {
  std::optional<double> speed;      // GT/s; nullopt: absent, unreadable or "Unknown"
  std::optional<double> max_speed;
  std::optional<int> width;         // lanes
  std::optional<int> max_width;
  std::string port;                 // the upstream port's PCI address; "" when none
  std::optional<double> port_max_speed;  // read only when the link is below the device's maximum
  std::optional<int> port_max_width;

  bool known() const { return speed.has_value() || width.has_value(); }
};

// An NVIDIA GPU on PCI: vendor 0x10de, base class 0x03 (display: VGA 0x0300 or 3D 0x0302).
// NVSwitches are vendor 0x10de too, but class 0x0680 (bridge): not GPUs.
struct PciGpu {
  std::string address;           // "0000:10:00.0", as /sys/bus/pci/devices names it
  std::string driver;            // the bound driver's name ("nvidia"); "" when none is bound
  std::optional<bool> answers;   // config space's vendor id read live: false when all ones
  bool in_driver = false;        // /proc/driver/nvidia/gpus/<address> is visible to this pod
  PcieLink link;
};

// One port of an RDMA device the pod was given (/sys/class/infiniband/<dev>/ports/<n>),
// as the kernel prints it (drivers/infiniband/core/sysfs.c): state "4: ACTIVE",
// phys_state "5: LinkUp".
struct RdmaPort {
  std::string device;      // ibdev, e.g. rdmap16s27 or mlx5_0
  bool efa = false;        // bound to the efa driver
  std::string port;        // "1"
  std::string state;       // as read, trimmed; "" when unreadable
  std::string phys_state;  // read only for a port that is not ACTIVE

  bool active() const;     // state 4 (IB_PORT_ACTIVE)
};

// One EFA device the pod was given, and its PCIe link.
struct EfaLink {
  std::string device;   // ibdev
  std::string address;  // its PCI address; "" when /sys/class/infiniband/<dev>/device is no PCI device
  PcieLink link;
};

struct DeviceFacts {
  bool pci_visible = false;               // /sys/bus/pci/devices lists anything
  std::vector<PciGpu> gpus;               // every NVIDIA GPU on the node's PCI bus
  std::vector<std::string> driver_gpus;   // /proc/driver/nvidia/gpus/*: the pod's GPUs
  std::vector<std::string> node_efa;      // every /sys/class/infiniband device bound to efa
  std::vector<RdmaPort> ports;            // the ports of the pod's verbs devices
  std::vector<EfaLink> efa_links;         // the pod's EFA devices
};

// "16.0 GT/s PCIe" (pci_speed_string), "8 GT/s" (older kernels), "Unknown": GT/s or nullopt.
std::optional<double> parse_link_speed(std::string_view text);

// The node-wide half: NVIDIA GPUs on PCI, the GPUs the NVIDIA driver shows this pod, every EFA
// device in /sys/class/infiniband.
void gather_node_devices(const util::HostFs& fs, DeviceFacts& out);

// The driver bound to RDMA device `ibdev` ("efa", "mlx5_core"): the basename of
// /sys/class/infiniband/<ibdev>/device/driver, the device link followed under the root.
// nullopt when there is none, or when `ibdev` is no single path component.
std::optional<std::string> rdma_driver(const util::HostFs& fs, const std::string& ibdev);

// One verbs device the pod was given (from its /dev/infiniband/uverbsN): its ports, and for
// an EFA device its PCIe link.
void gather_rdma_device(const util::HostFs& fs, const std::string& ibdev, bool efa, DeviceFacts& out);

}  // namespace launcher
