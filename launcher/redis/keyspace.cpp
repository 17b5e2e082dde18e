#include "redis/keyspace.hpp"

#include <stdexcept>

namespace launcher::redis {

namespace {

constexpr std::string_view k_prefix = "RAY";
constexpr std::string_view k_glob_special = "*?[]\\";

}  // namespace

std::string escape_glob(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (k_glob_special.find(c) != std::string_view::npos) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

std::size_t literal_prefix_length(std::string_view pattern) {
  std::size_t literal = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      ++i;  // Redis' stringmatchlen(): a backslash makes the next byte literal
    } else if (c == '*' || c == '?' || c == '[') {
      return literal;
    }
    ++literal;
  }
  return literal;
}

std::string table_key_pattern(std::string_view ns) {
  if (ns.empty()) {
    throw std::logic_error("table_key_pattern: empty storage namespace");
  }
  std::string pattern = std::string(k_prefix) + escape_glob(ns) + "@*";
  // Belt and braces over escape_glob: never a pattern that could reach past this namespace.
  if (literal_prefix_length(pattern) < k_prefix.size() + ns.size() + 1) {
    throw std::logic_error("table_key_pattern: pattern " + pattern + " is not literal up to its '@'");
  }
  return pattern;
}

bool is_table_key(std::string_view ns, std::string_view key) {
  if (ns.empty() || !key.starts_with(k_prefix)) {
    return false;
  }
  key.remove_prefix(k_prefix.size());
  if (!key.starts_with(ns) || key.size() <= ns.size() || key[ns.size()] != '@') {
    return false;
  }
  const std::string_view table = key.substr(ns.size() + 1);
  return !table.empty() && table.find('@') == std::string_view::npos;
}

bool is_legacy_field(std::string_view ns, std::string_view field) {
  return !ns.empty() && field.size() > ns.size() && field.starts_with(ns) && field[ns.size()] == '@';
}

}  // namespace launcher::redis
