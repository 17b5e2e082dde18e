#include "config/cli.hpp"

#include <algorithm>

#include "util/fatal.hpp"

namespace launcher {

void add_settings(CLI::App& app, CliValues& values, Commands command) {
  for (const Setting* setting : settings_of(command)) {
    const Setting& spec = *setting;
    const std::string description =
        std::string(spec.help) + "\n  env: " + std::string(spec.env) + "   default: " + spec.default_text();
    if (spec.flags.empty()) {  // a secret: environment only, so --help names the variable
      app.footer(app.get_footer() + (app.get_footer().empty() ? "" : "\n") + "Environment only: " +
                 std::string(spec.env) + ": " + std::string(spec.help) + ".\n");
    }
    // One CLI11 option per alias, so errors can name the flag the user actually typed.
    std::string_view names = spec.flags;
    std::string first;
    while (!names.empty()) {
      const std::string name(names.substr(0, names.find(',')));
      names.remove_prefix(std::min(names.size(), name.size() + 1));
      auto store = [&values, setting, name](const std::string& v) {
        if (auto seen = values.flags.find(setting); seen != values.flags.end() && seen->second.source != name) {
          values.conflicts.push_back(seen->second.source + " and " + name +
                                     " are the same setting (expected only one of them)");
        }
        values.flags[setting] = RawValue{v, name};
      };
      if (spec.bare_flag()) {  // `--dry-run` alone means true; `--dry-run=false` is parsed as given
        app.add_flag(name)->description(first.empty() ? description : "alias of " + first)->each(store);
      } else {
        app.add_option_function<std::string>(name, store, first.empty() ? description : "alias of " + first)
            ->type_name("");
      }
      if (first.empty()) {
        first = name;
      }
    }
  }
}

void add_command(CLI::App& app, CliValues& values, const char* help) {
  app.add_option("command", values.command, help)->type_name("-- COMMAND [ARGS...]");
}

Config resolve_config(const CliValues& values, const EnvMap& env, Commands command) {
  if (!values.conflicts.empty()) {
    throw Fatal(exit_code::usage, values.conflicts);
  }
  RawSettings raw({}, env);
  for (const auto& [setting, value] : values.flags) {
    raw.set(*setting, value);
  }
  return parse_config(raw, command);
}

}  // namespace launcher
