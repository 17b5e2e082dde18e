#include "config/config.hpp"

#include <stdexcept>

#include "config/gcs_storage_settings.hpp"
#include "util/fatal.hpp"
#include "util/redact.hpp"

namespace launcher {

const char* to_string(ChecksPolicy p) {
  switch (p) {
    case ChecksPolicy::strict:
      return "strict";
    case ChecksPolicy::warn:
      return "warn";
    case ChecksPolicy::off:
      return "off";
  }
  return "?";
}

const char* to_string(OnSuccess o) { return o == OnSuccess::stay ? "stay" : "exit"; }

namespace {

// Problems of settings that are each valid alone but not together.
using Problems = std::vector<std::string>;

std::string flag_of(const Setting& s) { return std::string(s.canonical_flag()); }

// Ports that share one pod's network namespace must differ: the GCS, the raylet, Ray's
// metrics and raylaunch's health endpoint.
void check_ports(const Config& c, Commands readers, Problems& problems) {
  std::vector<std::pair<const Setting*, int>> ports;
  for (const auto& [setting, port] : {std::pair{&setting_of(&Config::ray_port), c.ray_port},
                                      {&setting_of(&Config::node_manager_port), c.node_manager_port},
                                      {&setting_of(&Config::metrics_export_port), c.metrics_export_port},
                                      {&setting_of(&Config::health_port), c.health_port}}) {
    if (setting->commands.shares(readers) && port > 0) {
      ports.emplace_back(setting, port);
    }
  }
  for (std::size_t i = 0; i < ports.size(); ++i) {
    for (std::size_t j = i + 1; j < ports.size(); ++j) {
      if (ports[i].second == ports[j].second) {
        problems.push_back(flag_of(*ports[i].first) + " and " + flag_of(*ports[j].first) + " are both " +
                           std::to_string(ports[i].second) +
                           " (expected different ports: they share the pod's network)");
      }
    }
  }
}

// --exec ends raylaunch when the command starts: nothing is left to stay up after success or to
// answer the probes (the container would exit 0 and its probes then fail).
void check_exec(const Config& c, Problems& problems) {
  if (!c.exec) {
    return;
  }
  const std::string exec = c.source_of(&Config::exec);
  if (c.on_success == OnSuccess::stay) {
    problems.push_back(exec + " and " + c.source_of(&Config::on_success) +
                       " stay cannot go together (expected one of them: with --exec raylaunch is gone once the "
                       "command runs, so nothing stays up after it)");
  }
  if (c.restarts > 0) {
    problems.push_back(exec + " and " + c.source_of(&Config::restarts) + " " + std::to_string(c.restarts) +
                       " cannot go together (expected one of them: raylaunch is gone once the command replaces it, "
                       "and nothing is left to run it again)");
  }
  if (c.health_port > 0) {
    problems.push_back(exec + " and " + c.source_of(&Config::health_port) + " " + std::to_string(c.health_port) +
                       " cannot go together (expected one of them: the health endpoint ends when the command "
                       "replaces raylaunch, and its probes would then fail; probe with `raylaunch probe` instead)");
  }
}

// TLS settings only mean something with rediss://: given for a plaintext address they would
// leave Redis (and its password) in plaintext while the user believes otherwise.
void check_redis_tls(const Config& c, Problems& problems) {
  const RedisTlsSettings& t = c.redis_tls;
  using R = RedisTlsSettings;
  if (!c.redis_address || t.enabled) {
    if (t.client_cert.empty() != t.client_key.empty()) {
      const auto given = t.client_cert.empty() ? &R::client_key : &R::client_cert;
      problems.push_back(c.source_of(&Config::redis_tls, given) + " is set without " +
                         (t.client_cert.empty() ? "RAY_REDIS_CLIENT_CERT" : "RAY_REDIS_CLIENT_KEY") +
                         " (expected both: a client certificate and its key)");
    }
    return;
  }
  for (auto field : {&R::ca_cert, &R::ca_path, &R::client_cert, &R::client_key, &R::server_name}) {
    if (const std::string source = c.source_of(&Config::redis_tls, field); source != "default") {
      problems.push_back(source + " is set but " + c.source_of(&Config::redis_address) +
                         " is not rediss:// (expected rediss://host:port for Redis over TLS, or no TLS settings)");
      return;
    }
  }
}

void check_together(const Config& c, Commands readers, Problems& problems) {
  // Against a node count that was given. Without one, LWS_GROUP_SIZE or PET_NNODES may settle it:
  // the plan checks the ordinal (plan/pod_identity.cpp) and the quorum (plan/plan.cpp) then.
  const bool nodes_given = c.source_of(&Config::nodes) != "default";
  if (nodes_given && c.min_nodes && *c.min_nodes > c.nodes) {
    problems.push_back(c.source_of(&Config::min_nodes) + ": " + std::to_string(*c.min_nodes) +
                       " is more than nodes=" + std::to_string(c.nodes) + " (expected a quorum from 1 to " +
                       std::to_string(c.nodes) + ")");
  }
  if (nodes_given && c.ordinal && *c.ordinal >= c.nodes) {
    problems.push_back(c.source_of(&Config::ordinal) + ": ordinal " + std::to_string(*c.ordinal) +
                       " is not below nodes=" + std::to_string(c.nodes) + " (expected 0.." +
                       std::to_string(c.nodes - 1) + "; set RAYLAUNCH_NODES to the replica count)");
  }
  check_ports(c, readers, problems);
  check_exec(c, problems);
  check_redis_tls(c, problems);
  check_gcs_storage(c, problems);
  // Ray's GCS aborts on a Redis user without a password (RAY_CHECK in AuthenticateRedis).
  if (c.redis_username && !c.redis_password) {
    problems.push_back(c.source_of(&Config::redis_username) +
                       " is set but REDIS_PASSWORD is not (expected both: Ray authenticates a Redis user only with "
                       "a password)");
  }
}

}  // namespace

// The table's lookups: a setting by the Config field it fills, the settings of some commands,
// and the raw values given.
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

std::string Config::source_of(const Setting& setting) const {
  if (auto it = sources.find(&setting); it != sources.end()) {
    return it->second;
  }
  return "default";
}

Config parse_config(const RawSettings& raw, Commands readers) {
  Config c;
  Problems problems;
  // Secrets first: from here on no error line, whatever setting it is about, can show them.
  for (const Setting& setting : settings()) {
    if (const auto value = setting.secret() && setting.commands.shares(readers) ? raw.get(setting) : std::nullopt) {
      util::add_secret(value->text);
    }
  }
  for (const Setting& setting : settings()) {
    const auto value = setting.commands.shares(readers) ? raw.get(setting) : std::nullopt;
    if (!value) {
      if (!setting.default_value.empty()) {
        if (const std::string err = setting.field.parse(std::string(setting.default_value), c); !err.empty()) {
          throw std::logic_error("bad default for " + std::string(setting.name) + ": " + err);
        }
      }
      continue;
    }
    c.sources[&setting] = value->source;
    if (const std::string expected = setting.field.parse(value->text, c); !expected.empty()) {
      // A secret typed into another setting (registered by its parser) is not echoed back either.
      problems.push_back(
          bad_setting(value->source, setting.secret() ? "<redacted>" : util::redact(value->text), expected));
    }
  }
  check_together(c, readers, problems);
  if (!problems.empty()) {
    throw Fatal(exit_code::usage, problems);
  }
  return c;
}

}  // namespace launcher
