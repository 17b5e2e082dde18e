#pragma once
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/settings.hpp"
#include "net/host_port.hpp"
#include "util/parse.hpp"

namespace launcher::setting_parsers {

// The value parsers of the settings table. Each is a callable `(text, field&) → ""` or an
// "expected …" phrase that bad_setting() turns into one error line; into<> binds one to the
// Config field it fills.

template <auto Member>
const void* address_of(const Config& c) {
  return &(c.*Member);
}
template <auto Outer, auto Inner>
const void* address_of_nested(const Config& c) {
  return &((c.*Outer).*Inner);
}

// A setting that fills exactly `Member` with `parse(text, c.*Member)`.
template <auto Member, typename Parse>
SettingField into(Parse parse) {
  return {[parse](const std::string& text, Config& c) { return parse(text, c.*Member); }, &address_of<Member>};
}
// A setting that fills a field of a nested struct: `c.*Outer.*Inner`.
template <auto Outer, auto Inner, typename Parse>
SettingField into(Parse parse) {
  return {[parse](const std::string& text, Config& c) { return parse(text, (c.*Outer).*Inner); },
          &address_of_nested<Outer, Inner>};
}
// A setting that fills `Member` and fields derived from it: `fill(text, c)`.
template <auto Member, typename Fill>
SettingField custom(Fill fill) {
  return {[fill](const std::string& text, Config& c) { return fill(text, c); }, &address_of<Member>};
}

// A whole number in [min, max], into an int or an optional<int>.
inline auto int_in(std::int64_t min, std::int64_t max) {
  return [min, max](const std::string& text, auto& out) {
    const auto v = util::parse_int(text, min, max);
    if (!v) {
      return v.error();
    }
    out = static_cast<int>(*v);
    return std::string();
  };
}

// A size in bytes ("56Gi", "60G") in [min, max].
std::string size_in(std::uint64_t min, std::uint64_t max, const std::string& text, std::optional<std::uint64_t>& out);
inline auto size_in(std::uint64_t min, std::uint64_t max) {
  return [min, max](const std::string& text, std::optional<std::uint64_t>& out) {
    return size_in(min, max, text, out);
  };
}

// A duration ("300", "5m", "1m30s").
std::string duration(const std::string& text, std::chrono::milliseconds& out);
inline auto duration() {
  return [](const std::string& text, std::chrono::milliseconds& out) { return duration(text, out); };
}

// A duration, or 0 ("0", "off"): a feature switched off, or no wait at all. `min`: the shortest
// non-zero value.
std::string duration_or_zero(std::chrono::milliseconds min, const std::string& text, std::chrono::milliseconds& out);
inline auto duration_or_zero(std::chrono::milliseconds min) {
  return [min](const std::string& text, std::chrono::milliseconds& out) { return duration_or_zero(min, text, out); };
}

// A Kubernetes name: `check` is net::is_dns_label or net::is_dns_subdomain.
inline auto dns_name(bool (*check)(std::string_view), const char* what) {
  return [check, what](const std::string& text, std::optional<std::string>& out) {
    if (!check(text)) {
      return std::string(what);
    }
    out = text;
    return std::string();
  };
}

// One of a few names, into an enum (or a bool: "true|false").
template <typename Enum>
auto one_of(std::initializer_list<std::pair<const char*, Enum>> list) {
  return [choices = std::vector<std::pair<const char*, Enum>>(list)](const std::string& text, Enum& out) {
    std::string names;
    for (const auto& [name, value] : choices) {
      if (text == name) {
        out = value;
        return std::string();
      }
      names += names.empty() ? "" : "|";
      names += name;
    }
    return "one of " + names;
  };
}
inline auto boolean() { return one_of<bool>({{"true", true}, {"false", false}}); }

// Any text accepted by `check` (a function returning "" or an "expected …" phrase), stored as is;
// the field keeps the text even when refused, as the error line shows it anyway.
template <typename Check>
auto text_checked(Check check) {
  return [check](const std::string& text, auto& out) {
    out = text;
    return std::string(check(text));
  };
}

// An absolute path of printable bytes; `what` says what it names ("an absolute file path").
std::string check_absolute_path(std::string_view text, const char* what);

// A program to run (`ray`, `fi_pingpong`): a name looked up on PATH, or an absolute path (a
// relative one would depend on the directory the pod starts in). `example` is such a path.
std::string check_program(std::string_view text, const char* example);

// `ray start` arguments (RAYLAUNCH_RAY_ARGS): split into words; options raylaunch owns refused;
// a --redis-password among them registered as a secret first, so it is never echoed.
std::string ray_args(const std::string& text, std::vector<std::string>& out);

// NCCL's RAS address as NCCL_RAS_ADDR writes it (host:port; the port alone is not enough): an IP
// literal or "localhost" (127.0.0.1, NCCL's default), since the watch dials without DNS.
std::string nccl_ras_address(const std::string& text, std::optional<net::HostPort>& out);

// RAY_USE_TLS, read as Ray reads it.
std::string ray_bool(const std::string& text, bool& out);

}  // namespace launcher::setting_parsers
