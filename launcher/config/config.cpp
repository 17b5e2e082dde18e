#include "config/config.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <stdexcept>

#include "config/redis_settings.hpp"
#include "net/dns_name.hpp"
#include "util/fatal.hpp"
#include "util/parse.hpp"
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

// Ray's floor and a sanity ceiling for the object store: OBJECT_STORE_MINIMUM_MEMORY_BYTES =
// 75 MiB (ray_constants.py); 0 would make Ray fall back to its own 95 %-of-shm default.
constexpr std::uint64_t k_min_object_store = 75ULL << 20;
constexpr std::uint64_t k_max_bytes = 1ULL << 50;  // 1 PiB: larger is a typo
constexpr std::int64_t k_max_nodes = 100'000;

// `ray start` options raylaunch owns: giving them in RAYLAUNCH_RAY_ARGS would break the join
// barrier, readiness or the worker liveness probe, so each names the setting to use instead.
struct OwnedOption {
  const char* option;
  const char* instead;
};
constexpr OwnedOption k_owned_ray_options[] = {
    {"--head", "the pod's ordinal (0 is the head)"},
    {"--address", "RAYLAUNCH_HEAD_ADDRESS"},
    {"--port", "RAYLAUNCH_RAY_PORT"},
    {"--node-name", "the pod hostname (the join barrier counts pods by it)"},
    {"--node-manager-port", "RAYLAUNCH_NODE_MANAGER_PORT"},
    {"--metrics-export-port", "RAYLAUNCH_METRICS_EXPORT_PORT"},
    {"--block", "nothing: raylaunch always supervises ray start"},
    {"--redis-password", "REDIS_PASSWORD (never on a command line)"},
    {"--redis-username", "REDIS_USERNAME"},
};

using Apply = std::function<std::string(const std::string&)>;

class Parser {
 public:
  Parser(const RawSettings& raw, const std::vector<std::string_view>& keys) : m_raw(raw), m_keys(keys) {}

  // Applies the given value, or the default; `apply` returns "" or an "expected …" phrase.
  void field(const char* key, const Apply& apply) {
    const SettingSpec& spec = setting_spec(key);
    const bool used = std::find(m_keys.begin(), m_keys.end(), std::string_view(key)) != m_keys.end();
    const auto value = used ? m_raw.get(key) : std::nullopt;
    if (!value) {
      if (!spec.default_value.empty()) {
        const std::string err = apply(std::string(spec.default_value));
        if (!err.empty()) {
          throw std::logic_error("bad default for " + std::string(key) + ": " + err);
        }
      }
      return;
    }
    const std::string expected = apply(value->text);
    if (!expected.empty()) {
      // A secret typed into another setting (registered by its parser) is not echoed back either.
      m_problems.push_back(bad_setting(value->source, spec.secret ? "<redacted>" : util::redact(value->text), expected));
    }
  }

  void problem(std::string line) { m_problems.push_back(std::move(line)); }
  const std::vector<std::string>& problems() const { return m_problems; }

 private:
  const RawSettings& m_raw;
  const std::vector<std::string_view>& m_keys;
  std::vector<std::string> m_problems;
};

// A whole number in [min, max], into an int or an optional<int>.
template <typename Out>
Apply int_in(std::int64_t min, std::int64_t max, Out& out) {
  return [min, max, &out](const std::string& text) {
    const auto v = util::parse_int(text, min, max);
    if (!v) {
      return v.error();
    }
    out = static_cast<int>(*v);
    return std::string();
  };
}

Apply size_in(std::uint64_t min, std::uint64_t max, std::optional<std::uint64_t>& out) {
  return [min, max, &out](const std::string& text) {
    const auto v = util::parse_size(text);
    if (!v || *v < min || *v > max) {
      return (v ? std::string("a size from ") : v.error() + ", from ") + util::format_size(min) + " to " +
             util::format_size(max);
    }
    out = *v;
    return std::string();
  };
}

// A duration, or 0 ("0", "off"): a feature switched off, or no wait at all. `min`: the shortest
// non-zero value.
Apply duration_or_zero(std::chrono::milliseconds min, std::chrono::milliseconds& out) {
  return [min, &out](const std::string& text) {
    if (text == "0" || text == "off") {
      out = std::chrono::milliseconds(0);
      return std::string();
    }
    const auto v = util::parse_duration(text);
    if (!v || *v < min) {
      return "0 or off, or a duration of at least " + util::format_duration(min) + " such as 2s, 500ms or 1m";
    }
    out = *v;
    return std::string();
  };
}

Apply duration(std::chrono::milliseconds& out) {
  return [&out](const std::string& text) {
    const auto v = util::parse_duration(text);
    if (!v) {
      return v.error();
    }
    out = *v;
    return std::string();
  };
}

// A Kubernetes name: `check` is net::is_dns_label or net::is_dns_subdomain.
Apply dns_name(bool (*check)(std::string_view), const char* what, std::optional<std::string>& out) {
  return [check, what, &out](const std::string& text) {
    if (!check(text)) {
      return std::string(what);
    }
    out = text;
    return std::string();
  };
}

template <typename Enum>
Apply one_of(std::initializer_list<std::pair<const char*, Enum>> choices, Enum& out) {
  return [choices, &out](const std::string& text) {
    std::string names;
    for (const auto& [name, value] : choices) {
      if (text == name) {
        out = value;
        return std::string();
      }
      names += names.empty() ? "" : "|";
      names += name;
    }
    return "one of " + names;
  };
}

// The value of --redis-password, in either form (`--redis-password=V`, `--redis-password V`):
// registered as a secret before anything can echo the setting, whatever else is wrong with it.
// A value with spaces in it splits into words: the rest of the text is registered too.
void register_password_in(const std::string& text, const std::vector<std::string>& args) {
  constexpr std::string_view option = "--redis-password";
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg.starts_with(option) && arg.size() > option.size() && arg[option.size()] == '=') {
      util::add_secret(std::string(arg.substr(option.size() + 1)));
    } else if (arg == option && i + 1 < args.size()) {
      util::add_secret(args[i + 1]);
    }
  }
  for (auto at = text.find(option); at != std::string::npos; at = text.find(option, at + 1)) {
    const std::size_t value = at + option.size() + 1;
    if (value < text.size() && (text[value - 1] == '=' || text[value - 1] == ' ')) {
      util::add_secret(text.substr(value));
    }
  }
}

std::string check_ray_args(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    const std::string name = arg.substr(0, arg.find('='));
    for (const OwnedOption& owned : k_owned_ray_options) {
      if (name == owned.option) {
        return "ray start options other than " + name + ", which raylaunch sets itself (use " + owned.instead + ")";
      }
    }
  }
  return "";
}

// Ports that share one pod's network namespace must differ: the GCS, the raylet, Ray's
// metrics and raylaunch's health endpoint.
void check_ports(const Config& c, Parser& p, const std::vector<std::string_view>& keys) {
  const auto used = [&](std::string_view k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
  std::vector<std::pair<const char*, int>> ports;
  for (const auto& [key, port] : {std::pair<const char*, int>{"ray_port", c.ray_port},
                                  {"node_manager_port", c.node_manager_port},
                                  {"metrics_export_port", c.metrics_export_port},
                                  {"health_port", c.health_port}}) {
    if (used(key) && port > 0) {
      ports.emplace_back(key, port);
    }
  }
  for (std::size_t i = 0; i < ports.size(); ++i) {
    for (std::size_t j = i + 1; j < ports.size(); ++j) {
      if (ports[i].second == ports[j].second) {
        p.problem(std::string(canonical_flag(setting_spec(ports[i].first))) + " and " +
                  std::string(canonical_flag(setting_spec(ports[j].first))) + " are both " +
                  std::to_string(ports[i].second) + " (expected different ports: they share the pod's network)");
      }
    }
  }
}

// --exec ends raylaunch when the command starts: nothing is left to stay up after success or to
// answer the probes (the container would exit 0 and its probes then fail).
void check_exec(const Config& c, Parser& p) {
  if (!c.exec) {
    return;
  }
  if (c.on_success == OnSuccess::stay) {
    p.problem(c.source_of("exec") + " and " + c.source_of("on_success") +
              " stay cannot go together (expected one of them: with --exec raylaunch is gone once the command runs, "
              "so nothing stays up after it)");
  }
  if (c.restarts > 0) {
    p.problem(c.source_of("exec") + " and " + c.source_of("restarts") + " " + std::to_string(c.restarts) +
              " cannot go together (expected one of them: raylaunch is gone once the command replaces it, and "
              "nothing is left to run it again)");
  }
  if (c.health_port > 0) {
    p.problem(c.source_of("exec") + " and " + c.source_of("health_port") + " " + std::to_string(c.health_port) +
              " cannot go together (expected one of them: the health endpoint ends when the command replaces "
              "raylaunch, and its probes would then fail; probe with `raylaunch probe` instead)");
  }
}

// TLS settings only mean something with rediss://: given for a plaintext address they would
// leave Redis (and its password) in plaintext while the user believes otherwise.
void check_redis_tls(const Config& c, Parser& p) {
  const RedisTlsSettings& t = c.redis_tls;
  if (!c.redis_address || t.enabled) {
    if (t.client_cert.empty() != t.client_key.empty()) {
      const char* given = t.client_cert.empty() ? "redis_client_key" : "redis_client_cert";
      p.problem(c.source_of(given) + " is set without " +
                (t.client_cert.empty() ? "RAY_REDIS_CLIENT_CERT" : "RAY_REDIS_CLIENT_KEY") +
                " (expected both: a client certificate and its key)");
    }
    return;
  }
  for (const char* key : {"redis_ca_cert", "redis_ca_path", "redis_client_cert", "redis_client_key", "redis_server_name"}) {
    if (c.source_of(key) != "default") {
      p.problem(c.source_of(key) + " is set but " + c.source_of("redis_address") +
                " is not rediss:// (expected rediss://host:port for Redis over TLS, or no TLS settings)");
      return;
    }
  }
}

}  // namespace

std::string Config::source_of(const std::string& key) const {
  if (auto it = sources.find(key); it != sources.end()) {
    return it->second;
  }
  return "default";
}

std::vector<std::string_view> all_setting_keys() {
  std::vector<std::string_view> keys;
  for (const SettingSpec& spec : setting_specs()) {
    keys.push_back(spec.key);
  }
  return keys;
}

Config parse_config(const RawSettings& raw, const std::vector<std::string_view>& keys) {
  Config c;
  for (std::string_view key : keys) {
    if (auto value = raw.get(key)) {
      c.sources[std::string(key)] = value->source;
    }
  }
  Parser p(raw, keys);
  p.field("nodes", int_in(1, k_max_nodes, c.nodes));
  p.field("ordinal", int_in(0, k_max_nodes - 1, c.ordinal));
  p.field("hostname", dns_name(net::is_dns_label, "a pod host name such as training-3 (a DNS label: a-z, 0-9, '-', "
                                                  "at most 63 characters)",
                               c.hostname));
  p.field("namespace", dns_name(net::is_dns_label, "a Kubernetes namespace (a DNS label)", c.namespace_name));
  p.field("service", dns_name(net::is_dns_label, "a Service name (a DNS label)", c.service));
  p.field("cluster_domain",
          dns_name(net::is_dns_subdomain, "a DNS domain such as cluster.local", c.cluster_domain));
  p.field("head_address", [&](const std::string& t) {
    const auto hp = net::parse_host_port(t, 0);
    if (!hp) {
      return hp.error();
    }
    c.head_host = hp->host;
    if (hp->port != 0) {
      c.head_port = hp->port;
    }
    return std::string();
  });
  p.field("ray_port", int_in(1, 65535, c.ray_port));
  p.field("node_manager_port", int_in(1, 65535, c.node_manager_port));
  p.field("metrics_export_port", int_in(1, 65535, c.metrics_export_port));
  p.field("join_timeout", duration(c.join_timeout));
  p.field("ray", [&](const std::string& t) {
    c.ray = t;
    return !util::is_printable_text(t) || t.find(' ') != std::string::npos ? std::string("a program name or path")
                                                                           : std::string();
  });
  p.field("ray_args", [&](const std::string& t) {
    c.ray_args = util::split_words(t);
    register_password_in(t, c.ray_args);  // first: refused below, and never echoed
    if (!util::is_printable_text(t)) {
      return std::string("ray start arguments without control characters");
    }
    return check_ray_args(c.ray_args);
  });
  p.field("object_store_memory", size_in(k_min_object_store, k_max_bytes, c.object_store_memory));
  p.field("venv", [&](const std::string& t) {
    if (t.empty() || t.front() != '/' || !util::is_printable_text(t)) {
      return std::string("an absolute path to a virtualenv directory such as /opt/venv/openvla");
    }
    c.venv = t;
    return std::string();
  });
  p.field("checks", one_of<ChecksPolicy>(
                        {{"strict", ChecksPolicy::strict}, {"warn", ChecksPolicy::warn}, {"off", ChecksPolicy::off}},
                        c.checks));
  p.field("gpus", int_in(0, 64, c.gpus));
  p.field("efa", int_in(0, 64, c.efa));
  p.field("shm_min", size_in(0, k_max_bytes, c.shm_min));
  p.field("host_root", [&](const std::string& t) {
    c.host_root = t;
    return t.empty() || t.front() != '/' || !util::is_printable_text(t) ? std::string("an absolute directory path")
                                                                        : std::string();
  });
  p.field("address", [&](const std::string& t) {
    const auto hp = net::parse_host_port(t);
    if (!hp) {
      return hp.error();
    }
    c.address = *hp;
    return std::string();
  });
  p.field("probe_timeout", duration(c.probe_timeout));
  p.field("status_count", one_of<bool>({{"true", true}, {"false", false}}, c.status_count));
  // Ray turns TLS on for "1" or "true" in any case, and reads every other value as off
  // (ray_config.h ConvertValue<bool>; tls_utils.py): anything but those and 0/false is refused
  // here, as it would silently leave Ray in plaintext.
  p.field("use_tls", [&](const std::string& t) {
    std::string v = t;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (v != "1" && v != "true" && v != "0" && v != "false") {
      return std::string("1 or true (on), 0 or false (off): Ray reads any other value as off");
    }
    c.use_tls = v == "1" || v == "true";
    return std::string();
  });
  for (auto [key, out] : {std::pair{"tls_server_cert", &c.tls_server_cert}, std::pair{"tls_server_key", &c.tls_server_key},
                          std::pair{"tls_ca_cert", &c.tls_ca_cert}}) {
    p.field(key, [out = out](const std::string& t) {
      *out = t;
      return !util::is_printable_text(t) ? std::string("a file path") : std::string();
    });
  }
  p.field("redis_address", [&](const std::string& t) {
    if (const std::string password = password_in_redis_url(t); !password.empty()) {
      util::add_secret(password);  // refused below; never echoed
    }
    const auto hp = parse_redis_address(t);
    if (!hp) {
      return hp.error();
    }
    c.redis_address = *hp;
    c.redis_address_text = t;
    c.redis_tls.enabled = redis_address_uses_tls(t);
    return std::string();
  });
  for (auto [key, out] : {std::pair{"redis_ca_cert", &c.redis_tls.ca_cert}, std::pair{"redis_ca_path", &c.redis_tls.ca_path},
                          std::pair{"redis_client_cert", &c.redis_tls.client_cert},
                          std::pair{"redis_client_key", &c.redis_tls.client_key}}) {
    p.field(key, [out = out](const std::string& t) {
      *out = t;
      return check_tls_path(t);
    });
  }
  p.field("redis_server_name", [&](const std::string& t) {
    c.redis_tls.server_name = t;
    return check_tls_server_name(t);
  });
  p.field("redis_username", [&](const std::string& t) {
    c.redis_username = t;
    return check_redis_username(t);
  });
  p.field("redis_password", [&](const std::string& t) {
    util::add_secret(t);  // from here on, no log line can show it
    c.redis_password = t;
    return check_redis_password(t);
  });
  p.field("storage_namespace", [&](const std::string& t) {
    c.storage_namespace = t;
    return check_storage_namespace(t);
  });
  p.field("dry_run", one_of<bool>({{"true", true}, {"false", false}}, c.dry_run));
  p.field("on_success", one_of<OnSuccess>({{"exit", OnSuccess::exit}, {"stay", OnSuccess::stay}}, c.on_success));
  p.field("forward_signals", one_of<ForwardSignals>({{"group", ForwardSignals::group}, {"leader", ForwardSignals::leader}},
                                                    c.forward_signals));
  p.field("health_port", int_in(0, 65535, c.health_port));
  p.field("term_grace", duration(c.term_grace));
  p.field("ray_stop_grace", duration(c.ray_stop_grace));
  // More often than every 500 ms would ask the GCS more than the barrier's own polls do.
  p.field("head_watch", duration_or_zero(std::chrono::milliseconds(500), c.head_watch));
  p.field("restarts", int_in(0, 1000, c.restarts));
  p.field("restart_window", duration(c.restart_window));
  p.field("min_nodes", int_in(1, k_max_nodes, c.min_nodes));
  p.field("quorum_grace", duration_or_zero(std::chrono::milliseconds(1), c.quorum_grace));
  p.field("exec", one_of<bool>({{"true", true}, {"false", false}}, c.exec));
  p.field("termination_log", [&](const std::string& t) {
    c.termination_log = t;
    return t.empty() || t.front() != '/' || !util::is_printable_text(t) ? std::string("an absolute file path")
                                                                        : std::string();
  });
  p.field("output", one_of<OutputFormat>({{"text", OutputFormat::text}, {"json", OutputFormat::json}}, c.output));
  p.field("log_format", one_of<LogFormat>({{"text", LogFormat::text}, {"json", LogFormat::json}}, c.log_format));
  p.field("log_level", [&](const std::string& t) {
    for (const char* level : {"debug", "info", "warn", "error"}) {
      if (t == level) {
        c.log_level = t;
        return std::string();
      }
    }
    return std::string("one of debug|info|warn|error");
  });

  if (c.min_nodes && *c.min_nodes > c.nodes) {
    p.problem(c.source_of("min_nodes") + ": " + std::to_string(*c.min_nodes) + " is more than nodes=" +
              std::to_string(c.nodes) + " (expected a quorum from 1 to " + std::to_string(c.nodes) + ")");
  }
  if (c.ordinal && *c.ordinal >= c.nodes) {
    p.problem(c.source_of("ordinal") + ": ordinal " + std::to_string(*c.ordinal) + " is not below nodes=" +
              std::to_string(c.nodes) + " (expected 0.." + std::to_string(c.nodes - 1) +
              "; set RAYLAUNCH_NODES to the replica count)");
  }
  check_ports(c, p, keys);
  check_exec(c, p);
  check_redis_tls(c, p);
  // Ray's GCS aborts on a Redis user without a password (RAY_CHECK in AuthenticateRedis).
  if (c.redis_username && !c.redis_password) {
    p.problem(c.source_of("redis_username") +
              " is set but REDIS_PASSWORD is not (expected both: Ray authenticates a Redis user only with a password)");
  }
  if (!p.problems().empty()) {
    throw Fatal(exit_code::usage, p.problems());
  }
  return c;
}

}  // namespace launcher
