#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace launcher {

// Flag values captured by CLI11, keyed by setting key; merged with the environment later.
struct CliValues {
  std::map<std::string, std::string> flags;
  std::map<std::string, std::string> flag_names;  // key → the flag name actually typed
  std::vector<std::string> conflicts;             // two aliases of one setting given
  std::vector<std::string> command;               // everything after `--`
};

// Adds the settings named by `keys` to `app` as flags; --help shows each one's environment
// twin and default from the settings table.
void add_settings(CLI::App& app, CliValues& values, const std::vector<std::string_view>& keys);

// Adds the `-- COMMAND...` positional.
void add_command(CLI::App& app, CliValues& values, const char* help);

// Flags, then environment, then typed parsing of `keys` (Fatal 64 on any bad value, and when
// two aliases of one setting were both given).
Config resolve_config(const CliValues& values, const EnvMap& env, const std::vector<std::string_view>& keys);

}  // namespace launcher
