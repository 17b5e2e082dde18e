#include "gang/fabric_verdict.hpp"

#include <fmt/format.h>

#include <map>

namespace launcher::gang {

namespace {

std::string name_of(const VerdictInputs& in, int ordinal) { return pod_name(in.pods, ordinal); }

std::string with_device(const std::string& pod, const std::string& device) {
  return device.empty() ? pod : pod + " (" + device + ")";
}

std::string arrow(const VerdictInputs& in, const Link& link) {
  return name_of(in, link.client) + " → " + name_of(in, link.server);
}

// The fix for a link that did not measure, by what failed.
std::string failure_line(const VerdictInputs& in, const LinkReport& r) {
  const std::string client = with_device(name_of(in, r.link.client), r.client_device);
  const std::string server = with_device(name_of(in, r.link.server), r.server_device);
  switch (r.failure) {
    case LinkFailure::client_setup:
      return "fabric link " + arrow(in, r.link) + ": " + client + " cannot run the test: " + r.problem +
             " (fix: put fi_pingpong in the image, as the EFA installer does in /opt/amazon/efa/bin, or set "
             "--fabric-pingpong)";
    case LinkFailure::server_setup:
      return "fabric link " + arrow(in, r.link) + ": " + server + " could not serve the test: " + r.problem +
             " (fix: put fi_pingpong in the image or set --fabric-pingpong; free the port)";
    case LinkFailure::provider:
      return "fabric link " + arrow(in, r.link) + ": provider " + in.provider + " is not available: " + r.problem +
             " (fix: request vpc.amazonaws.com/efa for the pod, or set --fabric-provider to one fi_info lists)";
    case LinkFailure::silent:
      return "fabric link " + arrow(in, r.link) + ": " + r.problem +
             " (fix: set --fabric-check on in every pod of the gang; a pod stuck before it, or its node, needs a look)";
    case LinkFailure::link:
      return "fabric link " + arrow(in, r.link) + " failed: " + r.problem +
             " (fix: the security group needs its self rule, all traffic to and from itself; the pods' EFA "
             "devices must share a subnet and AZ)";
    case LinkFailure::none:
      break;
  }
  return {};
}

}  // namespace

std::string format_rate(double bytes_per_s) {
  if (bytes_per_s >= 1e9) {
    return fmt::format("{:.2f} GB/s", bytes_per_s / 1e9);
  }
  if (bytes_per_s >= 1e6) {
    return fmt::format("{:.0f} MB/s", bytes_per_s / 1e6);
  }
  return fmt::format("{:.0f} kB/s", bytes_per_s / 1e3);
}

FabricVerdict judge_fabric(const std::vector<LinkReport>& reports, const VerdictInputs& in) {
  FabricVerdict v;
  std::map<int, int> slow_links_of;  // ordinal → slow links it is in
  std::map<int, std::string> devices_of;
  std::vector<const LinkReport*> slow;
  for (const LinkReport& r : reports) {
    std::string state;
    if (r.failure != LinkFailure::none) {
      state = "FAILED (" + std::string(to_string(r.failure)) + ")";
      v.failed = true;
      v.problems.push_back(failure_line(in, r));
    } else if (in.floor > 0 && r.measure.bandwidth < in.floor) {
      state = "BELOW FLOOR";
      v.failed = true;
      slow.push_back(&r);
      ++slow_links_of[r.link.client];
      ++slow_links_of[r.link.server];
      if (!r.client_device.empty()) {
        devices_of[r.link.client] = r.client_device;
      }
      if (!r.server_device.empty()) {
        devices_of[r.link.server] = r.server_device;
      }
    } else {
      state = "ok";
    }
    const bool measured = r.failure == LinkFailure::none;
    v.table.push_back(fmt::format("  {:<40} {:>12} {:>12}  {}", arrow(in, r.link),
                                  measured ? fmt::format("{:.1f} us", r.measure.latency_us) : "-",
                                  measured ? format_rate(r.measure.bandwidth) : "-", state));
  }
  // A pod in both of its slow links first: the one line that names the node to cordon.
  for (const auto& [ordinal, count] : slow_links_of) {
    if (count >= 2) {
      const std::string device = devices_of.count(ordinal) != 0 ? devices_of[ordinal] : "";
      v.problems.push_back(with_device(name_of(in, ordinal), device) +
                           " is in both of its fabric links below the floor of " + format_rate(in.floor) + " (" +
                           in.floor_source + "): its node is the likely cause (fix: kubectl cordon that node and "
                           "start the job again)");
    }
  }
  for (const LinkReport* r : slow) {
    v.problems.push_back(
        "fabric link " + with_device(name_of(in, r->link.client), r->client_device) + " → " +
        with_device(name_of(in, r->link.server), r->server_device) + " carries " + format_rate(r->measure.bandwidth) +
        ", below the floor of " + format_rate(in.floor) + " (" + in.floor_source +
        ") (fix: one of these nodes has a downtrained link or a bad cable: cordon it, kubectl cordon NODE, and start "
        "the job again; every link slow: the pods' EFA devices are in different subnets or AZs)");
  }
  return v;
}

}  // namespace launcher::gang
