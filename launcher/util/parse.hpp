#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace launcher::util {

// Each returns the value or a short "expected …" phrase for the caller's one-line error.

// A decimal integer in [`min`, `max`]; no sign other than a leading '-', no spaces, no suffix.
Result<std::int64_t> parse_int(std::string_view text, std::int64_t min, std::int64_t max);

// The longest duration any setting accepts: a week. Longer values are typos (4294967295m), and
// deadlines built from them must not overflow a steady_clock time point.
inline constexpr std::chrono::milliseconds k_max_duration{168LL * 3'600'000};

// "300", "300s", "5m", "1h", "1500ms", "1m30s": a positive duration, at most k_max_duration.
// One or more <digits><unit> groups (units ms, s, m, h); a bare number alone is seconds.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

// Bytes: "1073741824", Kubernetes quantities "64Gi", "512Mi", "1Ti", SI "60G", "500M", "1k".
Result<std::uint64_t> parse_size(std::string_view text);

// "64Gi"-style text for a byte count, exact when it divides evenly, else one decimal (GiB).
std::string format_size(std::uint64_t bytes);

// "300s", "5m", "1500ms": the shortest exact text for a duration.
std::string format_duration(std::chrono::milliseconds d);

// "850ms", "4.2s", "3m05s", "3h12m": how long something took, for people (log lines,
// termination messages); not parseable back.
std::string format_elapsed(std::chrono::milliseconds d);

// Trims ASCII whitespace at both ends.
std::string_view trim(std::string_view s);

// Splits on runs of ASCII whitespace; no quoting (there is no shell here).
std::vector<std::string> split_words(std::string_view s);

// Splits at every one of `separators`, keeping empty items: "a::b" is {"a", "", "b"}, "" is
// {""}. For search lists (PATH, LD_LIBRARY_PATH, RPATH), where an empty item means something.
std::vector<std::string> split_list(std::string_view s, std::string_view separators);

}  // namespace launcher::util
