#include "net/dns_name.hpp"

namespace launcher::net {

namespace {

bool is_label(std::string_view s, bool allow_upper) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') {
    return false;
  }
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                    (allow_upper && c >= 'A' && c <= 'Z');
    if (!ok) {
      return false;
    }
  }
  return true;
}

bool is_subdomain(std::string_view s, bool allow_upper) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  while (true) {
    const auto dot = s.find('.');
    if (!is_label(s.substr(0, dot), allow_upper)) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    s.remove_prefix(dot + 1);
  }
}

}  // namespace

bool is_dns_label(std::string_view name) { return is_label(name, false); }

bool is_dns_subdomain(std::string_view name) { return is_subdomain(name, false); }

bool is_host_name(std::string_view name) {
  if (!name.empty() && name.back() == '.') {
    name.remove_suffix(1);
  }
  return is_subdomain(name, true);
}

}  // namespace launcher::net
