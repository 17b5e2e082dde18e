#pragma once
#include <map>
#include <string>

#include "supervisor/supervisor.hpp"

namespace launcher::health {

// The Prometheus text exposition (format 0.0.4: one # HELP and # TYPE per family, snake_case
// names with unit suffixes): the phase, nodes alive and expected, the join wait, Ray's exits,
// the command's exit status, and the probe requests answered (`counts`: "livez ok" → n).
// Nothing secret is ever in it.
std::string render_metrics(const supervisor::RunState& state, const std::map<std::string, long>& counts,
                           const std::string& version);

inline constexpr const char* k_metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace launcher::health
