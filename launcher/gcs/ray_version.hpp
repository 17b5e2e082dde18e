#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace launcher::gcs {

// The version a GCS reports in CheckAliveReply.ray_version ("2.40.0", master's "3.0.0.dev0").
struct RayVersion {
  int major = 0;
  int minor = 0;
  bool at_least(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
};

// nullopt unless `text` starts with "<major>.<minor>" (digits; anything may follow).
std::optional<RayVersion> parse_ray_version(std::string_view text);

// Which GetAllNodeInfoRequest layout the GCS filters on by node name (ray-gcs-wire.md §2.3):
enum class NodeFilter {
  none,            // <= 2.35, or a version we cannot read: the request is ignored, every row returns
  filters_v236,    // 2.36-2.48: `optional Filters filters = 4`, Filters.node_name = 3
  node_selectors,  // >= 2.49: `repeated NodeSelector node_selectors = 2`, NodeSelector.node_name = 2
};

// The layout to send to a GCS of `version` (nullopt: unknown, hence `none`: the one request that
// is right everywhere, at the price of the whole table).
NodeFilter node_filter_for(const std::optional<RayVersion>& version);

// "node_selectors (Ray >= 2.49)", for logs and benchmarks.
const char* describe(NodeFilter filter);

}  // namespace launcher::gcs
