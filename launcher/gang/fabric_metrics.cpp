#include "gang/fabric_metrics.hpp"

#include <fmt/format.h>

namespace launcher::gang {

namespace {

void family(std::string& out, const char* name, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
}

std::string labels(const VerdictInputs& in, const Link& link) {
  // Pod names are DNS labels: nothing to escape.
  return fmt::format("{{client=\"{}\",server=\"{}\"}}", pod_name(in.pods, link.client), pod_name(in.pods, link.server));
}

}  // namespace

std::string render_fabric_metrics(const std::vector<LinkReport>& reports, const VerdictInputs& in,
                                  const FabricVerdict& verdict, std::chrono::milliseconds took) {
  std::string out;
  family(out, "raylaunch_fabric_link_up", "1 when the gang fabric check measured this link at or above the floor");
  for (const LinkReport& r : reports) {
    const bool up = r.failure == LinkFailure::none && (in.floor <= 0 || r.measure.bandwidth >= in.floor);
    out += fmt::format("raylaunch_fabric_link_up{} {}\n", labels(in, r.link), up ? 1 : 0);
  }
  family(out, "raylaunch_fabric_link_bandwidth_bytes", "bytes/s fi_pingpong measured on this link (largest message)");
  for (const LinkReport& r : reports) {
    if (r.failure == LinkFailure::none) {
      out += fmt::format("raylaunch_fabric_link_bandwidth_bytes{} {:.0f}\n", labels(in, r.link), r.measure.bandwidth);
    }
  }
  family(out, "raylaunch_fabric_link_latency_seconds", "one-way latency fi_pingpong measured (smallest message)");
  for (const LinkReport& r : reports) {
    if (r.failure == LinkFailure::none) {
      out += fmt::format("raylaunch_fabric_link_latency_seconds{} {:.9f}\n", labels(in, r.link),
                         r.measure.latency_us / 1e6);
    }
  }
  family(out, "raylaunch_fabric_check_floor_bytes", "the bandwidth floor the links were judged against (0: none)");
  out += fmt::format("raylaunch_fabric_check_floor_bytes {:.0f}\n", in.floor);
  family(out, "raylaunch_fabric_check_seconds", "how long the head's gang fabric check took");
  out += fmt::format("raylaunch_fabric_check_seconds {:.3f}\n", static_cast<double>(took.count()) / 1000.0);
  family(out, "raylaunch_fabric_check_passed", "1 when every link of the gang passed");
  out += fmt::format("raylaunch_fabric_check_passed {}\n", verdict.failed ? 0 : 1);
  return out;
}

}  // namespace launcher::gang
