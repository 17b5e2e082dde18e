#include "config/cli.hpp"

#include <algorithm>

#include "util/fatal.hpp"

namespace launcher {

namespace {

std::string default_text(const SettingSpec& spec) {
  return std::string(spec.default_value.empty() ? spec.default_note : spec.default_value);
}

}  // namespace

void add_settings(CLI::App& app, CliValues& values, const std::vector<std::string_view>& keys) {
  for (std::string_view key : keys) {
    const SettingSpec& spec = setting_spec(key);
    const std::string description =
        std::string(spec.help) + "\n  env: " + std::string(spec.env) + "   default: " + default_text(spec);
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
      auto store = [&values, k = std::string(key), name](const std::string& v) {
        if (auto seen = values.flag_names.find(k); seen != values.flag_names.end() && seen->second != name) {
          values.conflicts.push_back(seen->second + " and " + name +
                                     " are the same setting (expected only one of them)");
        }
        values.flags[k] = v;
        values.flag_names[k] = name;
      };
      if (spec.bare_flag) {  // `--dry-run` alone means true; `--dry-run=false` is parsed as given
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

Config resolve_config(const CliValues& values, const EnvMap& env, const std::vector<std::string_view>& keys) {
  if (!values.conflicts.empty()) {
    throw Fatal(exit_code::usage, values.conflicts);
  }
  RawSettings raw(values.flags, env);
  for (const auto& [key, name] : values.flag_names) {
    raw.set(key, RawValue{values.flags.at(key), name});
  }
  return parse_config(raw, keys);
}

}  // namespace launcher
