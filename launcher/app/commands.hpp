#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "app/process_setup.hpp"
#include "config/config.hpp"

namespace launcher {

// One parsed command line: the command's settings (validated), the environment, the launch
// command after `--`, and the command's positional argument ("head", "liveness", …).
struct Invocation {
  Config config;
  EnvMap env;
  std::vector<std::string> command;
  std::string argument;
};

// One row per subcommand: what it is called, whose settings it reads (and so validates: a bad
// value of any other setting is ignored; each setting in config/settings.cpp names the commands
// that read it), how it treats signals, and the function that runs it and returns the process
// exit code.
struct CommandSpec {
  std::string_view name;
  std::string_view help;
  Commands settings;                         // the settings that this command reads
  SignalMode signals = SignalMode::defaults;
  std::string_view argument;                 // positional argument's name; "" for none
  std::vector<std::string> argument_choices;  // the first is the default when optional
  bool argument_required = false;
  bool takes_command = false;                // `-- COMMAND [ARGS...]`
  int (*run)(const Invocation&) = nullptr;
};

const std::vector<CommandSpec>& command_table();

int cmd_version(const Invocation& inv);
int cmd_plan(const Invocation& inv);
int cmd_run(const Invocation& inv);
int cmd_wait(const Invocation& inv);
int cmd_status(const Invocation& inv);
int cmd_probe(const Invocation& inv);
int cmd_redis_cleanup(const Invocation& inv);

}  // namespace launcher
