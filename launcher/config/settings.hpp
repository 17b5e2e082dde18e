#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/env_map.hpp"

namespace launcher {

using util::EnvMap;

// One row per setting. Every setting is a flag *and* an environment variable, by construction:
// the CLI is generated from this table, and so is the "Settings" part of --help. The default
// lives here and only here: parse_config() parses `default_value` like any value a user gives.
// The one exception: a secret has no flag (`flags` empty), because a command line is readable
// by every process of the pod in /proc/<pid>/cmdline; --help names its variable instead.
struct SettingSpec {
  std::string_view key;            // internal name, e.g. "nodes"
  std::string_view flags;          // CLI11 names, e.g. "--join-timeout,--timeout" (first is canonical)
  std::string_view env;            // environment twin, e.g. "RAYLAUNCH_NODES"
  std::string_view default_value;  // parsed when the setting is not given; "" = no fixed default
  std::string_view default_note;   // what --help says when there is no fixed default
  std::string_view help;
  bool secret = false;             // value is never printed; environment only
  bool bare_flag = false;          // a true|false setting whose flag alone means true (--dry-run)
};

const std::vector<SettingSpec>& setting_specs();
const SettingSpec& setting_spec(std::string_view key);
std::string_view canonical_flag(const SettingSpec& spec);  // the first of `flags`

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
  // `flags`: key → text, given on the command line under the setting's canonical flag.
  RawSettings(const std::map<std::string, std::string>& flags, const EnvMap& env);

  std::optional<RawValue> get(std::string_view key) const;
  void set(std::string key, RawValue value) { m_values[std::move(key)] = std::move(value); }

 private:
  std::map<std::string, RawValue, std::less<>> m_values;
};

}  // namespace launcher
