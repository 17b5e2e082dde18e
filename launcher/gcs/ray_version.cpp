#include "gcs/ray_version.hpp"

#include <charconv>

namespace launcher::gcs {

namespace {

// Reads digits at `text` into `out`; the rest of `text` after them.
std::optional<std::string_view> number(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end == text.data()) {
    return std::nullopt;
  }
  return text.substr(static_cast<std::size_t>(end - text.data()));
}

}  // namespace

std::optional<RayVersion> parse_ray_version(std::string_view text) {
  RayVersion v;
  const auto rest = number(text, v.major);
  if (!rest || rest->empty() || rest->front() != '.' || !number(rest->substr(1), v.minor)) {
    return std::nullopt;
  }
  return v;
}

NodeFilter node_filter_for(const std::optional<RayVersion>& version) {
  if (!version) {
    return NodeFilter::none;
  }
  if (version->at_least(2, 49)) {
    return NodeFilter::node_selectors;  // #55115; master reports 3.0.0.dev0
  }
  if (version->at_least(2, 36)) {
    return NodeFilter::filters_v236;  // #47213
  }
  return NodeFilter::none;
}

const char* describe(NodeFilter filter) {
  switch (filter) {
    case NodeFilter::none:
      return "no filter (Ray <= 2.35: the whole table)";
    case NodeFilter::filters_v236:
      return "filters.node_name (Ray 2.36-2.48)";
    case NodeFilter::node_selectors:
      return "node_selectors.node_name (Ray >= 2.49)";
  }
  return "?";
}

}  // namespace launcher::gcs
