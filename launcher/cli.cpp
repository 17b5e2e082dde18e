#include "cli.hpp"

#include <algorithm>

namespace launcher {

void add_settings(CLI::App& app, CliValues& values, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    const SettingSpec& spec = setting_spec(key);
    const std::string description = std::string(spec.help) + "\n  env: " + std::string(spec.env) +
                                    "   default: " + std::string(spec.default_text);
    // One CLI11 option per alias, so errors can name the flag the user actually typed.
    std::string_view names = spec.flags;
    std::string first;
    while (!names.empty()) {
      const std::string name(names.substr(0, names.find(',')));
      names.remove_prefix(std::min(names.size(), name.size() + 1));
      auto store = [&values, k = std::string(key), name](const std::string& v) {
        values.flags[k] = v;
        values.flag_names[k] = name;
      };
      app.add_option_function<std::string>(name, store, first.empty() ? description : "alias of " + first)
          ->type_name("");
      if (first.empty()) {
        first = name;
      }
    }
  }
}

void add_command(CLI::App& app, CliValues& values, const char* help) {
  app.add_option("command", values.command, help)->type_name("-- COMMAND [ARGS...]");
}

Config resolve_config(const CliValues& values, const EnvMap& env) {
  RawSettings raw(values.flags, env);
  for (const auto& [key, name] : values.flag_names) {
    raw.set(key, RawValue{values.flags.at(key), name});
  }
  return parse_config(raw);
}

}  // namespace launcher
