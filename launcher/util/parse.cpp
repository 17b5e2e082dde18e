#include "util/parse.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <limits>

namespace launcher::util {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Parses leading digits of `s` into `out`; returns how many characters were consumed (0: none).
std::size_t leading_uint(std::string_view s, std::uint64_t& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc()) {
    return 0;
  }
  return static_cast<std::size_t>(ptr - s.data());
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> words;
  std::string current;
  for (char c : s) {
    if (is_space(c)) {
      if (!current.empty()) {
        words.push_back(std::move(current));
        current.clear();
      }
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) {
    words.push_back(std::move(current));
  }
  return words;
}

Result<std::int64_t> parse_int(std::string_view text, std::int64_t min, std::int64_t max) {
  const std::string expected = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < min || value > max) {
    return Result<std::int64_t>::failure(expected);
  }
  return value;
}

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  using Ms = std::chrono::milliseconds;
  const std::string expected = "a positive duration such as 300, 300s, 5m, 1h, 1m30s or 1500ms, at most " +
                               format_duration(k_max_duration);
  if (text.empty()) {
    return Result<Ms>::failure(expected);
  }
  std::uint64_t total_ms = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::uint64_t n = 0;
    const std::size_t used = leading_uint(rest, n);
    if (used == 0) {
      return Result<Ms>::failure(expected);
    }
    rest.remove_prefix(used);
    std::uint64_t unit_ms = 1000;  // a bare number is seconds, as in the issue and in `sleep`
    if (rest.starts_with("ms")) {
      unit_ms = 1;
      rest.remove_prefix(2);
    } else if (rest.starts_with("s")) {
      rest.remove_prefix(1);
    } else if (rest.starts_with("m")) {
      unit_ms = 60'000;
      rest.remove_prefix(1);
    } else if (rest.starts_with("h")) {
      unit_ms = 3'600'000;
      rest.remove_prefix(1);
    } else if (!rest.empty() || used != text.size()) {
      return Result<Ms>::failure(expected);  // junk, or a unit-less number after a unit
    }
    // Each group and the sum stay far below the limits of the types: no wrap-around.
    if (n > static_cast<std::uint64_t>(k_max_duration.count()) || n * unit_ms > static_cast<std::uint64_t>(k_max_duration.count())) {
      return Result<Ms>::failure(expected);
    }
    total_ms += n * unit_ms;
    if (total_ms > static_cast<std::uint64_t>(k_max_duration.count())) {
      return Result<Ms>::failure(expected);
    }
  }
  if (total_ms == 0) {
    return Result<Ms>::failure(expected);
  }
  return Ms(static_cast<Ms::rep>(total_ms));
}

Result<std::uint64_t> parse_size(std::string_view text) {
  const std::string expected = "a size in bytes or with a suffix such as 64Gi, 512Mi, 60G";
  std::uint64_t n = 0;
  const std::size_t used = leading_uint(text, n);
  if (used == 0) {
    return Result<std::uint64_t>::failure(expected);
  }
  const std::string_view suffix = text.substr(used);
  struct Unit {
    std::string_view name;
    std::uint64_t factor;
  };
  static constexpr std::array<Unit, 11> units = {{{"", 1},
                                                  {"Ki", 1ULL << 10},
                                                  {"Mi", 1ULL << 20},
                                                  {"Gi", 1ULL << 30},
                                                  {"Ti", 1ULL << 40},
                                                  {"k", 1000ULL},
                                                  {"K", 1000ULL},
                                                  {"M", 1000ULL * 1000},
                                                  {"G", 1000ULL * 1000 * 1000},
                                                  {"T", 1000ULL * 1000 * 1000 * 1000},
                                                  {"B", 1}}};
  for (const Unit& unit : units) {
    if (suffix == unit.name) {
      if (n > std::numeric_limits<std::uint64_t>::max() / unit.factor) {
        return Result<std::uint64_t>::failure(expected);
      }
      return n * unit.factor;
    }
  }
  return Result<std::uint64_t>::failure(expected);
}

std::string format_size(std::uint64_t bytes) {
  // The largest binary unit that fits; exact when it divides evenly, else one decimal.
  static constexpr std::array<std::pair<std::uint64_t, const char*>, 4> units = {
      {{1ULL << 40, "Ti"}, {1ULL << 30, "Gi"}, {1ULL << 20, "Mi"}, {1ULL << 10, "Ki"}}};
  for (const auto& [factor, name] : units) {
    if (bytes >= factor) {
      if (bytes % factor == 0) {
        return std::to_string(bytes / factor) + name;
      }
      std::array<char, 32> buf{};
      std::snprintf(buf.data(), buf.size(), "%.1f%s", static_cast<double>(bytes) / static_cast<double>(factor), name);
      return buf.data();
    }
  }
  return std::to_string(bytes);
}

std::string format_duration(std::chrono::milliseconds d) {
  const auto ms = d.count();
  if (ms % 3'600'000 == 0) {
    return std::to_string(ms / 3'600'000) + "h";
  }
  if (ms % 60'000 == 0) {
    return std::to_string(ms / 60'000) + "m";
  }
  if (ms % 1000 == 0) {
    return std::to_string(ms / 1000) + "s";
  }
  return std::to_string(ms) + "ms";
}

std::string format_elapsed(std::chrono::milliseconds d) {
  const auto ms = d.count() < 0 ? 0 : d.count();
  std::array<char, 48> buf{};
  if (ms < 1000) {
    std::snprintf(buf.data(), buf.size(), "%lldms", static_cast<long long>(ms));
  } else if (ms < 60'000) {
    std::snprintf(buf.data(), buf.size(), "%.1fs", static_cast<double>(ms) / 1000.0);
  } else if (ms < 3'600'000) {
    std::snprintf(buf.data(), buf.size(), "%lldm%02llds", static_cast<long long>(ms / 60'000),
                  static_cast<long long>(ms / 1000 % 60));
  } else {
    std::snprintf(buf.data(), buf.size(), "%lldh%02lldm", static_cast<long long>(ms / 3'600'000),
                  static_cast<long long>(ms / 60'000 % 60));
  }
  return buf.data();
}

std::vector<std::string> split_list(std::string_view s, std::string_view separators) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find_first_of(separators, start);
    items.emplace_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) {
      return items;
    }
    start = end + 1;
  }
}

}  // namespace launcher::util
