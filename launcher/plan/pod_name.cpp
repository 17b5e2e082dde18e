#include "plan/pod_name.hpp"

#include "util/parse.hpp"

namespace launcher {

std::optional<int> ordinal_suffix(std::string_view hostname) {
  const auto dash = hostname.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == hostname.size()) {
    return std::nullopt;
  }
  const std::string_view digits = hostname.substr(dash + 1);
  if (digits.size() > 1 && digits.front() == '0') {
    return std::nullopt;
  }
  const auto n = util::parse_int(digits, 0, 99'999);
  if (!n) {
    return std::nullopt;
  }
  return static_cast<int>(*n);
}

std::string base_name(const std::string& hostname) {
  return ordinal_suffix(hostname) ? hostname.substr(0, hostname.rfind('-')) : hostname;
}

std::vector<std::string> pod_names(const std::string& base, int nodes) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(nodes > 0 ? nodes : 0));
  for (int i = 0; i < nodes; ++i) {
    names.push_back(base + "-" + std::to_string(i));
  }
  return names;
}

}  // namespace launcher
