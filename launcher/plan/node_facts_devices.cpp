// Gathers DeviceFacts from sysfs and procfs under the host root, without privileges: sysfs
// attributes are world-readable, and the first 64 bytes of a PCI device's config space are
// readable by anyone (drivers/pci/pci-sysfs.c pci_read_config: the rest needs CAP_SYS_ADMIN).
// A container sees the node's whole /sys/bus/pci (sysfs is not namespaced for PCI), but only
// its own GPUs under /proc/driver/nvidia/gpus: libnvidia-container mounts a tmpfs there and
// bind-mounts the allocated GPUs' directories (nvc_mount.c mount_procfs_gpu;
// ../shared/reference/fabric-and-node-checks.md §5).
#include "plan/node_facts_devices.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "util/fd.hpp"
#include "util/parse.hpp"

namespace launcher {

namespace {

constexpr std::size_t k_max_pci_devices = 4096;  // real servers have hundreds
constexpr std::size_t k_max_ports = 32;           // IB devices have 1 or 2

bool hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// "0000:10:00.0": domain (4 or more hex digits, more under Intel VMD), bus, device, function.
bool is_pci_address(std::string_view s) {
  const std::size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon < 4 || s.size() != colon + 8) {
    return false;
  }
  const std::string_view rest = s.substr(colon);  // ":bb:dd.f"
  return std::all_of(s.begin(), s.begin() + static_cast<long>(colon), hex) && rest[0] == ':' && hex(rest[1]) &&
         hex(rest[2]) && rest[3] == ':' && hex(rest[4]) && hex(rest[5]) && rest[6] == '.' && rest[7] >= '0' &&
         rest[7] <= '7';
}

std::string base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string parent_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos || slash == 0 ? "/" : std::string(path.substr(0, slash));
}

// Where the sysfs symlink at `abs` points, as a path under the same root. sysfs links are
// relative ("../../../devices/pci0000:00/0000:00:01.0/0000:10:00.0"); nullopt when `abs` is no
// link. Resolved by hand: following it with the real file system could leave the root.
std::optional<std::string> resolve_link(const util::HostFs& fs, const std::string& abs) {
  const auto target = fs.link_target(abs);
  if (!target || target->empty()) {
    return std::nullopt;
  }
  std::vector<std::string> parts;
  const std::string joined = target->front() == '/' ? *target : parent_of(abs) + "/" + *target;
  for (const std::string& part : util::split_list(joined, "/")) {
    if (part.empty() || part == ".") {
      continue;
    }
    if (part == "..") {
      if (!parts.empty()) {
        parts.pop_back();
      }
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (const std::string& part : parts) {
    out += "/" + part;
  }
  return out.empty() ? "/" : out;
}

// The first `n` bytes of a file, never blocking (O_NONBLOCK, regular files only), never more:
// a PCI config space read as root would otherwise read all 4096 bytes.
std::optional<std::string> read_prefix(const std::string& path, std::size_t n) {
  const util::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  std::string out(n, '\0');
  const ssize_t got = ::pread(fd.get(), out.data(), n, 0);
  if (got < 0) {
    return std::nullopt;
  }
  out.resize(static_cast<std::size_t>(got));
  return out;
}

// A sysfs attribute's first line, from its first 64 bytes: every attribute read here is
// shorter ("16.0 GT/s PCIe", "4: ACTIVE"), and a planted large file costs one small read, not
// a megabyte (HostFs's cap) for each of hundreds of PCI devices.
std::optional<std::string> attribute(const util::HostFs& fs, const std::string& abs) {
  auto text = read_prefix(fs.path(abs), 64);
  if (!text) {
    return std::nullopt;
  }
  return std::string(util::trim(std::string_view(*text).substr(0, text->find('\n'))));
}

std::optional<int> read_width(const util::HostFs& fs, const std::string& file) {
  const auto text = attribute(fs, file);
  if (!text) {
    return std::nullopt;
  }
  std::string_view v(*text);
  if (!v.empty() && v.front() == 'x') {
    v.remove_prefix(1);
  }
  const auto n = util::parse_int(v, 0, 63);  // 6-bit fields (Negotiated/Maximum Link Width)
  return n ? std::optional<int>(static_cast<int>(*n)) : std::nullopt;
}

std::optional<double> read_speed(const util::HostFs& fs, const std::string& file) {
  const auto text = attribute(fs, file);
  return text ? parse_link_speed(*text) : std::nullopt;
}

// The link of the PCI device at `dir` (its real directory under /sys/devices), and the maximum
// of the port above it when the parent directory is a PCI device too. The port's maximum can
// only lower what the link should reach, so it is read only for a link below the device's own.
PcieLink read_link(const util::HostFs& fs, const std::string& dir) {
  PcieLink link;
  link.speed = read_speed(fs, dir + "/current_link_speed");
  link.max_speed = read_speed(fs, dir + "/max_link_speed");
  link.width = read_width(fs, dir + "/current_link_width");
  link.max_width = read_width(fs, dir + "/max_link_width");
  const std::string parent = parent_of(dir);
  if (is_pci_address(base_name(parent))) {
    link.port = base_name(parent);
    const bool below = (link.width && link.max_width && *link.width < *link.max_width) ||
                       (link.speed && link.max_speed && *link.speed < *link.max_speed);
    if (below) {
      link.port_max_speed = read_speed(fs, parent + "/max_link_speed");
      link.port_max_width = read_width(fs, parent + "/max_link_width");
    }
  }
  return link;
}

std::string driver_of(const util::HostFs& fs, const std::string& dir) {
  const auto target = fs.link_target(dir + "/driver");
  return target ? base_name(*target) : "";
}

// One path component from a file (infiniband_verbs/uverbsN/ibdev), or not a device name.
bool is_device_name(const std::string& name) {
  return !name.empty() && name.front() != '.' && name.find('/') == std::string::npos;
}

void gather_pci_gpus(const util::HostFs& fs, DeviceFacts& out) {
  const std::vector<std::string> names = fs.list("/sys/bus/pci/devices");
  out.pci_visible = !names.empty();
  for (std::size_t i = 0; i < names.size() && i < k_max_pci_devices; ++i) {
    const std::string& address = names[i];
    const std::string link = "/sys/bus/pci/devices/" + address;
    // Through the link (one read per device on a bus of hundreds); resolved for NVIDIA's only.
    if (!is_pci_address(address) || attribute(fs, link + "/vendor") != std::optional<std::string>("0x10de")) {
      continue;
    }
    const std::string dir = resolve_link(fs, link).value_or(link);
    const auto cls = attribute(fs, dir + "/class");  // "0x030200": base class, subclass, interface
    if (!cls || !cls->starts_with("0x03")) {
      continue;
    }
    PciGpu gpu;
    gpu.address = address;
    gpu.driver = driver_of(fs, dir);
    // The vendor id read live from config space. A device that no longer answers on the bus
    // reads as all ones (the kernel's PCI_ERROR_RESPONSE; pci_device_is_present() tests the
    // same); the sysfs `vendor` file is the value cached at enumeration and would not show it.
    if (const auto config = read_prefix(fs.path(dir + "/config"), 2); config && config->size() == 2) {
      const unsigned vendor = static_cast<unsigned char>((*config)[0]) |
                              (static_cast<unsigned>(static_cast<unsigned char>((*config)[1])) << 8);
      gpu.answers = vendor != 0xffff;
    }
    gpu.in_driver = fs.is_dir("/proc/driver/nvidia/gpus/" + address);
    gpu.link = read_link(fs, dir);
    out.gpus.push_back(std::move(gpu));
  }
}

}  // namespace

bool RdmaPort::active() const {
  // "4: ACTIVE": IB_PORT_ACTIVE; ACTIVE_DEFER (5) is not ACTIVE to NCCL (IBV_PORT_ACTIVE = 4).
  return state.starts_with("4:");
}

std::optional<double> parse_link_speed(std::string_view text) {
  text = util::trim(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || value <= 0 || value > 1000) {
    return std::nullopt;
  }
  const std::string_view rest = util::trim(std::string_view(end, static_cast<std::size_t>(text.data() + text.size() - end)));
  if (!rest.starts_with("GT/s")) {
    return std::nullopt;
  }
  return value;
}

void gather_node_devices(const util::HostFs& fs, DeviceFacts& out) {
  gather_pci_gpus(fs, out);
  out.driver_gpus = fs.list("/proc/driver/nvidia/gpus");
  // Every EFA device in /sys/class/infiniband. In RDMA's default shared network-namespace mode
  // every device is listed in every namespace (rdma-system(8)), so this is the node's count
  // while /dev/infiniband holds the pod's (fabric-and-node-checks.md §4.1, an inference).
  for (const std::string& dev : fs.list("/sys/class/infiniband")) {
    if (rdma_driver(fs, dev) == "efa") {
      out.node_efa.push_back(dev);
    }
  }
}

std::optional<std::string> rdma_driver(const util::HostFs& fs, const std::string& ibdev) {
  if (!is_device_name(ibdev)) {
    return std::nullopt;
  }
  const std::string link = "/sys/class/infiniband/" + ibdev + "/device";
  const auto target = fs.link_target(resolve_link(fs, link).value_or(link) + "/driver");
  return target ? std::optional<std::string>(base_name(*target)) : std::nullopt;
}

void gather_rdma_device(const util::HostFs& fs, const std::string& ibdev, bool efa, DeviceFacts& out) {
  if (!is_device_name(ibdev)) {
    return;
  }
  const std::string dir = "/sys/class/infiniband/" + ibdev;
  const std::vector<std::string> ports = fs.list(dir + "/ports");
  for (std::size_t i = 0; i < ports.size() && i < k_max_ports; ++i) {
    if (!util::parse_int(ports[i], 1, 255)) {
      continue;
    }
    const std::string port = dir + "/ports/" + ports[i];
    RdmaPort p{ibdev, efa, ports[i], attribute(fs, port + "/state").value_or(""), ""};
    if (!p.active()) {
      p.phys_state = attribute(fs, port + "/phys_state").value_or("");  // only said of a port not ACTIVE
    }
    out.ports.push_back(std::move(p));
  }
  if (efa) {
    EfaLink link{ibdev, "", {}};
    if (const auto device = resolve_link(fs, dir + "/device"); device && is_pci_address(base_name(*device))) {
      link.address = base_name(*device);
      link.link = read_link(fs, *device);
    }
    out.efa_links.push_back(std::move(link));
  }
}

}  // namespace launcher
