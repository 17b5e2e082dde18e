#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace launcher {

// Flag values captured by CLI11, by setting; merged with the environment later.
struct CliValues {
  std::map<const Setting*, RawValue> flags;  // the text, and the flag name actually typed
  std::vector<std::string> conflicts;        // two aliases of one setting given
  std::vector<std::string> command;          // everything after `--`
};

// Adds the settings `command` reads (none for Commands{}) to `app` as flags, in table order; --help shows each
// one's environment twin and default from the settings table.
void add_settings(CLI::App& app, CliValues& values, Commands command);

// Adds the `-- COMMAND...` positional.
void add_command(CLI::App& app, CliValues& values, const char* help);

// Flags, then environment, then typed parsing of the settings `command` reads (none for Commands{}) (Fatal 64 on any
// bad value, and when two aliases of one setting were both given).
Config resolve_config(const CliValues& values, const EnvMap& env, Commands command);

}  // namespace launcher
