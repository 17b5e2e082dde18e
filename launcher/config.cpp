#include "config.hpp"

#include <functional>

#include "error.hpp"
#include "util/parse.hpp"

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

namespace {

// Collects one-line problems while parsing, so a user fixes them all in one go.
class Parser {
 public:
  explicit Parser(const RawSettings& raw) : m_raw(raw) {}

  // Calls `apply(text, source)` when the setting was given; it returns "" or an "expected …".
  void field(const char* key, const std::function<std::string(const std::string&)>& apply) {
    const auto value = m_raw.get(key);
    if (!value) {
      return;
    }
    const std::string expected = apply(value->text);
    if (!expected.empty()) {
      const bool secret = setting_spec(key).secret;
      m_problems.push_back(bad_setting(value->source, secret ? "<redacted>" : value->text, expected));
    }
  }

  std::optional<RawValue> raw(const char* key) const { return m_raw.get(key); }
  void problem(std::string line) { m_problems.push_back(std::move(line)); }
  const std::vector<std::string>& problems() const { return m_problems; }

 private:
  const RawSettings& m_raw;
  std::vector<std::string> m_problems;
};

std::string set_int(const std::string& text, std::int64_t min, std::int64_t max, int& out) {
  const auto v = util::parse_int(text, min, max);
  if (!v) {
    return v.error();
  }
  out = static_cast<int>(*v);
  return "";
}

std::string set_opt_int(const std::string& text, std::int64_t min, std::int64_t max, std::optional<int>& out) {
  int v = 0;
  std::string err = set_int(text, min, max, v);
  if (err.empty()) {
    out = v;
  }
  return err;
}

std::string set_size(const std::string& text, std::optional<std::uint64_t>& out) {
  const auto v = util::parse_size(text);
  if (!v) {
    return v.error();
  }
  out = *v;
  return "";
}

std::string set_duration(const std::string& text, std::chrono::milliseconds& out) {
  const auto v = util::parse_duration(text);
  if (!v) {
    return v.error();
  }
  out = *v;
  return "";
}

std::string set_word(const std::string& text, std::optional<std::string>& out, const char* what) {
  if (util::trim(text) != text || text.find_first_of(" \t\n/") != std::string::npos || text.empty()) {
    return what;
  }
  out = text;
  return "";
}

template <typename Enum>
std::string set_enum(const std::string& text, std::initializer_list<std::pair<const char*, Enum>> choices,
                     Enum& out) {
  std::string names;
  for (const auto& [name, value] : choices) {
    if (text == name) {
      out = value;
      return "";
    }
    names += names.empty() ? "" : "|";
    names += name;
  }
  return "one of " + names;
}

}  // namespace

std::string Config::source_of(const std::string& key) const {
  if (auto it = sources.find(key); it != sources.end()) {
    return it->second;
  }
  return std::string(setting_spec(key).env);
}

Config parse_config(const RawSettings& raw) {
  Config c;
  for (const SettingSpec& spec : setting_specs()) {
    if (auto value = raw.get(spec.key)) {
      c.sources[std::string(spec.key)] = value->source;
    }
  }
  Parser p(raw);
  constexpr std::int64_t k_max_nodes = 100'000;
  p.field("nodes", [&](const std::string& t) { return set_int(t, 1, k_max_nodes, c.nodes); });
  p.field("ordinal", [&](const std::string& t) { return set_opt_int(t, 0, k_max_nodes - 1, c.ordinal); });
  if (c.ordinal) {
    c.ordinal_source = raw.get("ordinal")->source;
  }
  p.field("hostname", [&](const std::string& t) { return set_word(t, c.hostname, "a host name such as training-3"); });
  p.field("namespace", [&](const std::string& t) { return set_word(t, c.namespace_name, "a Kubernetes namespace"); });
  p.field("service", [&](const std::string& t) { return set_word(t, c.service, "a Service name"); });
  p.field("cluster_domain",
          [&](const std::string& t) { return set_word(t, c.cluster_domain, "a DNS domain such as cluster.local"); });
  p.field("head_address",
          [&](const std::string& t) { return set_word(t, c.head_address, "a host name or IP, without a port"); });
  p.field("ray_port", [&](const std::string& t) { return set_int(t, 1, 65535, c.ray_port); });
  p.field("node_manager_port", [&](const std::string& t) { return set_int(t, 1, 65535, c.node_manager_port); });
  p.field("join_timeout", [&](const std::string& t) { return set_duration(t, c.join_timeout); });
  p.field("ray", [&](const std::string& t) {
    c.ray = t;
    return t.empty() ? std::string("a program name or path") : std::string();
  });
  p.field("ray_args", [&](const std::string& t) {
    c.ray_args = util::split_words(t);
    return std::string();
  });
  p.field("object_store_memory", [&](const std::string& t) { return set_size(t, c.object_store_memory); });
  p.field("checks", [&](const std::string& t) {
    return set_enum<ChecksPolicy>(
        t, {{"strict", ChecksPolicy::strict}, {"warn", ChecksPolicy::warn}, {"off", ChecksPolicy::off}}, c.checks);
  });
  p.field("gpus", [&](const std::string& t) { return set_opt_int(t, 0, 64, c.gpus); });
  p.field("efa", [&](const std::string& t) { return set_opt_int(t, 0, 64, c.efa); });
  p.field("shm_min", [&](const std::string& t) { return set_size(t, c.shm_min); });
  p.field("host_root", [&](const std::string& t) {
    c.host_root = t;
    return t.empty() || t.front() != '/' ? std::string("an absolute directory path") : std::string();
  });
  p.field("address", [&](const std::string& t) {
    const auto colon = t.rfind(':');
    if (colon == std::string::npos || colon == 0 || !util::parse_int(t.substr(colon + 1), 1, 65535)) {
      return std::string("HOST:PORT such as training-0.training-svc.ml.svc.cluster.local:6379");
    }
    c.address = t;
    return std::string();
  });
  p.field("probe_timeout", [&](const std::string& t) { return set_duration(t, c.probe_timeout); });
  p.field("output", [&](const std::string& t) {
    return set_enum<OutputFormat>(t, {{"text", OutputFormat::text}, {"json", OutputFormat::json}}, c.output);
  });
  p.field("log_format", [&](const std::string& t) {
    return set_enum<LogFormat>(t, {{"text", LogFormat::text}, {"json", LogFormat::json}}, c.log_format);
  });
  p.field("log_level", [&](const std::string& t) {
    for (const char* level : {"debug", "info", "warn", "error"}) {
      if (t == level) {
        c.log_level = t;
        return std::string();
      }
    }
    return std::string("one of debug|info|warn|error");
  });

  if (c.ordinal && *c.ordinal >= c.nodes) {
    p.problem(c.ordinal_source + ": ordinal " + std::to_string(*c.ordinal) + " is not below nodes=" +
              std::to_string(c.nodes) + " (expected 0.." + std::to_string(c.nodes - 1) +
              "; set RAYLAUNCH_NODES to the replica count)");
  }
  if (!p.problems().empty()) {
    throw Fatal(exit_code::usage, p.problems());
  }
  return c;
}

}  // namespace launcher
