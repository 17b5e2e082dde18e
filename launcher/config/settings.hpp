#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/env_map.hpp"

namespace launcher {

using util::EnvMap;

struct Config;

// The subcommands that read settings. A setting names the commands that read it; a command
// parses (and so validates) only those: a typo in an unrelated variable must not fail a probe.
enum class Command : std::uint8_t { run = 1, plan = 2, wait = 4, status = 8, probe = 16, redis_cleanup = 32 };

class Commands {
 public:
  constexpr Commands() = default;
  constexpr Commands(Command c) : m_bits(static_cast<std::uint8_t>(c)) {}  // NOLINT: a set of one
  constexpr Commands operator|(Commands o) const { return from_bits(m_bits | o.m_bits); }
  constexpr bool has(Command c) const { return (m_bits & static_cast<std::uint8_t>(c)) != 0; }
  constexpr bool shares(Commands o) const { return (m_bits & o.m_bits) != 0; }
  constexpr bool empty() const { return m_bits == 0; }
  static constexpr Commands all() { return from_bits(0xff); }

 private:
  static constexpr Commands from_bits(unsigned bits) {
    Commands c;
    c.m_bits = static_cast<std::uint8_t>(bits);
    return c;
  }
  std::uint8_t m_bits = 0;
};
constexpr Commands operator|(Command a, Command b) { return Commands(a) | Commands(b); }

// How a setting's text becomes a Config field: `parse` fills the field (and any field derived
// from it) and returns "" or an "expected …" phrase; `address` locates the field in a Config,
// which is what makes `Config::source_of(&Config::gpus)` and `setting_of(&Config::gpus)` typed.
struct SettingField {
  std::function<std::string(const std::string& text, Config& out)> parse;
  const void* (*address)(const Config&) = nullptr;
};

enum class SettingKind : std::uint8_t {
  value,      // --flag VALUE
  bare_flag,  // a true|false setting whose flag alone means true (--dry-run); --dry-run=false parses as given
  secret,     // environment only (a command line is readable by every process of the pod in
              // /proc/<pid>/cmdline): no flag, never printed; --help names its variable instead
};

// One row per setting, and the only place a setting is described: the CLI, --help, parsing,
// source reporting and docs/run.md's settings table are all generated from the table. Adding a
// setting = one row in settings.cpp plus its Config field. The default lives here and only
// here: parse_config() parses `default_value` like any value a user gives.
struct Setting {
  std::string_view name;           // internal name, e.g. "nodes" (tests give flags by it)
  std::string_view flags;          // CLI11 names, e.g. "--join-timeout,--timeout" (first is canonical)
  std::string_view env;            // environment twin, e.g. "RAYLAUNCH_NODES"
  std::string_view default_value;  // parsed when the setting is not given; "" = no fixed default
  std::string_view default_note;   // what --help says when there is no fixed default
  std::string_view help;           // --help's line, and the docs table's
  Commands commands;               // the commands that read it
  SettingField field;
  SettingKind kind = SettingKind::value;
  std::string_view docs = "";      // markdown the docs table adds to `help` (links, ranges)

  bool secret() const { return kind == SettingKind::secret; }
  bool bare_flag() const { return kind == SettingKind::bare_flag; }
  std::string_view canonical_flag() const { return flags.substr(0, flags.find(',')); }
  std::string default_text() const { return std::string(default_value.empty() ? default_note : default_value); }
};

const std::vector<Setting>& settings();
std::vector<const Setting*> settings_of(Commands readers);  // those any of `readers` reads, in table order

// The setting that fills a Config field: `setting_of(&Config::gpus)`, or for a field of a
// nested struct `setting_of(&Config::redis_tls, &RedisTlsSettings::ca_cert)`. A field no
// setting fills is a programming error (std::logic_error).
const Config& reference_config();
const Setting& setting_at(const void* field_of_reference_config);
template <typename T>
const Setting& setting_of(T Config::*field) {
  return setting_at(&(reference_config().*field));
}
template <typename T, typename U>
const Setting& setting_of(T Config::*outer, U T::*inner) {
  return setting_at(&((reference_config().*outer).*inner));
}

// A setting's raw text and where it came from ("--nodes", "RAYLAUNCH_NODES"), before parsing.
struct RawValue {
  std::string text;
  std::string source;
};

// Raw values given on the command line or in the environment. Flags win over the environment;
// an empty variable counts as unset (manifests often template `value: ""`).
class RawSettings {
 public:
  RawSettings() = default;
  // `flags`: setting name → text, given on the command line under the setting's canonical flag.
  RawSettings(const std::map<std::string, std::string>& flags, const EnvMap& env);

  std::optional<RawValue> get(const Setting& setting) const;
  void set(const Setting& setting, RawValue value) { m_values[&setting] = std::move(value); }

 private:
  std::map<const Setting*, RawValue> m_values;
};

}  // namespace launcher
