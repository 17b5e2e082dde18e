// What the settings table can be asked: a setting by the Config field it fills, the settings of
// some commands, and the raw values given.
#include <stdexcept>

#include "config/config.hpp"
#include "config/settings.hpp"

namespace launcher {

const Config& reference_config() {
  static const Config reference;
  return reference;
}

const Setting& setting_at(const void* field_of_reference_config) {
  for (const Setting& setting : settings()) {
    if (setting.field.address(reference_config()) == field_of_reference_config) {
      return setting;
    }
  }
  throw std::logic_error("no setting fills this Config field");
}

std::vector<const Setting*> settings_of(Commands readers) {
  std::vector<const Setting*> out;
  for (const Setting& setting : settings()) {
    if (setting.commands.shares(readers)) {
      out.push_back(&setting);
    }
  }
  return out;
}

RawSettings::RawSettings(const std::map<std::string, std::string>& flags, const EnvMap& env) {
  for (const Setting& setting : settings()) {
    if (auto f = flags.find(std::string(setting.name)); f != flags.end()) {
      m_values[&setting] = RawValue{f->second, std::string(setting.canonical_flag())};
    } else if (auto e = env.find(std::string(setting.env)); e != env.end() && !e->second.empty()) {
      m_values[&setting] = RawValue{e->second, std::string(setting.env)};
    }
  }
}

std::optional<RawValue> RawSettings::get(const Setting& setting) const {
  if (auto it = m_values.find(&setting); it != m_values.end()) {
    return it->second;
  }
  return std::nullopt;
}

}  // namespace launcher
