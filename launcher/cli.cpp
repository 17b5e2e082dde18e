#include "cli.hpp"

namespace launcher {

void add_settings(CLI::App& app, CliValues& values, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    const SettingSpec& spec = setting_spec(key);
    const std::string description = std::string(spec.help) + "\n  env: " + std::string(spec.env) +
                                    "   default: " + std::string(spec.default_text);
    std::string name(spec.flags);
    app.add_option_function<std::string>(
           name, [&values, k = std::string(key)](const std::string& v) { values.flags[k] = v; }, description)
        ->type_name("");
  }
}

void add_command(CLI::App& app, CliValues& values, const char* help) {
  app.add_option("command", values.command, help)->type_name("-- COMMAND [ARGS...]");
}

Config resolve_config(const CliValues& values, const EnvMap& env) {
  return parse_config(RawSettings(values.flags, env));
}

}  // namespace launcher
