// pcie-links: do the pod's GPUs and EFA devices run their PCIe links as wide and as fast as
// both ends allow? The link trains to the lower of the device's and its upstream port's
// maximum (each end's Link Capabilities: max_link_width/max_link_speed in sysfs), so a device
// faster than its slot is not degraded; anything below that is (a lost lane, a bad retimer).
//
// What warns and what would fail, and why:
//   - A GPU below its top *speed* passes. NVIDIA GPUs lower their link when idle as part of
//     their power management: nvidia-smi(1), GPU ATTRIBUTES, GPU Link Info, "The current link
//     generation and width. These may be reduced when the GPU is not in use"; the answer on
//     NVIDIA's developer forum ("Prevent PCIe From Reducing Gen?"): "Downgrading the PCIe link
//     when not in use is an important integral part of the GPU's power management, and to my
//     knowledge there are no user-accessible knobs". raylaunch runs before training, on idle GPUs.
//   - A GPU below its *width* warns. The same sentence allows a narrower link at idle, so it
//     cannot be judged for sure before load; but published nvidia-smi -q output shows idle GPUs
//     at Gen1 keeping their width ("PCIe Generation Max 3, Current 1; Link Width Max 16x,
//     Current 16x"), so a narrow link is worth a look under load.
//   - An EFA device below its width or speed warns. AWS documents no idle link power saving for
//     EFA (inference: none found), and a slower link caps that device's share of the bandwidth.
//   - Nothing here fails: a slow link slows the job, it does not stop it, and a failed check
//     only restarts the container on the same node (the pod keeps its node), where the link
//     stays as it is. A device that stopped answering is gpu-bus's failure.
// Files: Linux drivers/pci/pci-sysfs.c (current_link_speed/width from Link Status,
// max_link_speed/width from Link Capabilities).
#include <algorithm>
#include <cstdio>

#include "plan/node_checks.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

constexpr std::size_t k_shown = 3;
constexpr double k_epsilon = 0.01;  // GT/s values are 2.5, 5.0, 8.0, 16.0, 32.0, 64.0

std::string speed_text(double gts) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GT/s", gts);
  return buf;
}

template <typename T>
std::optional<T> lower(const std::optional<T>& a, const std::optional<T>& b) {
  const bool use_a = a && *a > 0;
  const bool use_b = b && *b > 0;
  if (use_a && use_b) {
    return std::min(*a, *b);
  }
  return use_a ? a : (use_b ? b : std::nullopt);
}

struct Tally {
  int gpus = 0;
  int gpus_idle = 0;  // GPUs below their top speed
  int efa = 0;
  bool gpu_problem = false;
  std::vector<std::string> problems;
};

void judge(const std::string& who, bool gpu, const PcieLink& link, Tally& t) {
  if (!link.known()) {
    return;
  }
  (gpu ? t.gpus : t.efa) += 1;
  const std::optional<int> width = lower(link.max_width, link.port_max_width);
  const std::optional<double> speed = lower(link.max_speed, link.port_max_speed);
  std::string problem;
  if (link.width && link.max_width && *link.width > *link.max_width) {
    // Link Status read as all ones (x63): the device does not answer (gpu-bus says more).
    problem = "link status unreadable (x" + std::to_string(*link.width) + "; see gpu-bus)";
  } else if (link.width && width && *link.width == 0) {
    problem = "link down (x0 of x" + std::to_string(*width) + ")";
  } else if (link.width && width && *link.width < *width) {
    problem = "runs x" + std::to_string(*link.width) + " of the x" + std::to_string(*width) + " both ends allow";
  } else if (link.speed && speed && *link.speed < *speed - k_epsilon) {
    if (gpu) {
      ++t.gpus_idle;
    } else {
      problem = "runs at " + speed_text(*link.speed) + " of the " + speed_text(*speed) + " both ends allow";
    }
  }
  if (!problem.empty()) {
    t.gpu_problem = t.gpu_problem || gpu;
    t.problems.push_back(who + " " + problem);
  }
}

}  // namespace

std::optional<Check> check_pcie_links(const NodeFacts& node) {
  const DeviceFacts& d = node.devices;
  Tally t;
  // The pod's GPUs: those the driver shows it; without /proc/driver/nvidia/gpus, every GPU on
  // the node when the pod has any (it cannot tell which are its own).
  const bool all_gpus = d.driver_gpus.empty() && node.gpus() > 0;
  for (const PciGpu& g : d.gpus) {
    if (g.in_driver || all_gpus) {
      judge("GPU " + util::printable(g.address), true, g.link, t);
    }
  }
  for (const EfaLink& e : d.efa_links) {
    judge("EFA " + util::printable(e.device) + " (" + util::printable(e.address) + ")", false, e.link, t);
  }
  if (t.gpus + t.efa == 0) {
    return std::nullopt;  // no PCIe link attributes to judge (no devices, or not PCIe)
  }
  Check c{"pcie-links", CheckStatus::pass, "", ""};
  if (t.problems.empty()) {
    std::vector<std::string> parts;
    if (t.gpus > 0) {
      parts.push_back(util::plural(t.gpus, "GPU link") + " at full width" +
                      (t.gpus_idle == 0 ? " and speed"
                                        : ", " + std::to_string(t.gpus_idle) +
                                              " below top speed: idle GPUs lower it (nvidia-smi: \"may be reduced "
                                              "when the GPU is not in use\")"));
    }
    if (t.efa > 0) {
      parts.push_back(util::plural(t.efa, "EFA link") + " at full width and speed");
    }
    c.detail = util::join(parts, "; ");
    return c;
  }
  c.status = CheckStatus::warn;
  std::vector<std::string> shown(t.problems.begin(),
                                 t.problems.begin() + static_cast<long>(std::min(t.problems.size(), k_shown)));
  if (t.problems.size() > k_shown) {
    shown.push_back("and " + std::to_string(t.problems.size() - k_shown) + " more");
  }
  c.detail = util::join(shown, "; ") + " (" + std::to_string(t.problems.size()) + " of " +
             util::plural(t.gpus + t.efa, "link") + "); a degraded link slows every collective to its pace";
  c.fix = t.gpu_problem
              ? "check it under load (nvidia-smi -q, GPU Link Info); if it stays degraded, cordon the node and reboot "
                "or replace the instance"
              : "cordon the node and replace the instance (a stop and start moves it to other hardware)";
  return c;
}

}  // namespace launcher
