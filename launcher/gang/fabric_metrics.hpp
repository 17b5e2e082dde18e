#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "gang/fabric_round.hpp"
#include "gang/fabric_verdict.hpp"

namespace launcher::gang {

// The head's check in Prometheus text format, for /metrics: per link (client, server pod
// names as labels) its bandwidth, latency and whether it is up (measured and at or above the
// floor); the check's floor, duration and outcome. Rendered once, when the check ends.
std::string render_fabric_metrics(const std::vector<LinkReport>& reports, const VerdictInputs& in,
                                  const FabricVerdict& verdict, std::chrono::milliseconds took);

}  // namespace launcher::gang
