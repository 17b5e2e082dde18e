#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launcher {

using EnvMap = std::map<std::string, std::string>;

// One row per setting. Every setting is a flag *and* an environment variable, by construction:
// the CLI is generated from this table, and so is the "Settings" part of --help.
struct SettingSpec {
  std::string_view key;           // internal name, e.g. "nodes"
  std::string_view flags;         // CLI11 names, e.g. "--nodes"
  std::string_view env;           // environment twin, e.g. "RAYLAUNCH_NODES"
  std::string_view default_text;  // what --help prints as the default
  std::string_view help;
  bool secret = false;            // value is never printed
};

const std::vector<SettingSpec>& setting_specs();
const SettingSpec& setting_spec(std::string_view key);

// A setting's raw text and where it came from ("--nodes", "RAYLAUNCH_NODES"), before parsing.
struct RawValue {
  std::string text;
  std::string source;
};

// Raw values given on the command line (`flags`, keyed by setting key) or in `env`.
// Flags win over the environment; absent settings are absent (defaults apply later).
class RawSettings {
 public:
  RawSettings() = default;
  RawSettings(const std::map<std::string, std::string>& flags, const EnvMap& env);

  std::optional<RawValue> get(std::string_view key) const;
  void set(std::string key, RawValue value) { m_values[std::move(key)] = std::move(value); }

 private:
  std::map<std::string, RawValue, std::less<>> m_values;
};

// The process environment as a map (the only place that reads `environ`).
EnvMap process_env();

}  // namespace launcher
