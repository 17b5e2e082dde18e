#include "config/setting_parsers.hpp"

#include <algorithm>
#include <cctype>

#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::setting_parsers {

namespace {

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

}  // namespace

std::string size_in(std::uint64_t min, std::uint64_t max, const std::string& text, std::optional<std::uint64_t>& out) {
  const auto v = util::parse_size(text);
  if (!v || *v < min || *v > max) {
    return (v ? std::string("a size from ") : v.error() + ", from ") + util::format_size(min) + " to " +
           util::format_size(max);
  }
  out = *v;
  return "";
}

std::string duration(const std::string& text, std::chrono::milliseconds& out) {
  const auto v = util::parse_duration(text);
  if (!v) {
    return v.error();
  }
  out = *v;
  return "";
}

std::string duration_or_zero(std::chrono::milliseconds min, const std::string& text, std::chrono::milliseconds& out) {
  if (text == "0" || text == "off") {
    out = std::chrono::milliseconds(0);
    return "";
  }
  const auto v = util::parse_duration(text);
  if (!v || *v < min) {
    return "0 or off, or a duration of at least " + util::format_duration(min) + " such as 2s, 500ms or 1m";
  }
  out = *v;
  return "";
}

std::string check_absolute_path(std::string_view text, const char* what) {
  return text.empty() || text.front() != '/' || !util::is_printable_text(text) ? std::string(what) : std::string();
}

std::string check_program(std::string_view text, const char* example) {
  if (text.find('/') != std::string_view::npos) {
    const std::string what = "a program name, or an absolute path such as " + std::string(example);
    return check_absolute_path(text, what.c_str());
  }
  return text.empty() || !util::is_printable_text(text) || text.find(' ') != std::string_view::npos
             ? "a program name or path"
             : std::string();
}

std::string ray_args(const std::string& text, std::vector<std::string>& out) {
  out = util::split_words(text);
  register_password_in(text, out);  // first: refused below, and never echoed
  if (!util::is_printable_text(text)) {
    return "ray start arguments without control characters";
  }
  return check_ray_args(out);
}

// Ray turns TLS on for "1" or "true" in any case, and reads every other value as off
// (ray_config.h ConvertValue<bool>; tls_utils.py): anything but those and 0/false is refused
// here, as it would silently leave Ray in plaintext.
std::string ray_bool(const std::string& text, bool& out) {
  std::string v = text;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (v != "1" && v != "true" && v != "0" && v != "false") {
    return "1 or true (on), 0 or false (off): Ray reads any other value as off";
  }
  out = v == "1" || v == "true";
  return "";
}

std::string nccl_ras_address(const std::string& text, std::optional<net::HostPort>& out) {
  const auto hp = net::parse_host_port(text);
  const char* expected = "an IP address and port such as 127.0.0.1:28028 (or localhost:28028)";
  if (!hp) {
    return expected;
  }
  if (hp->host == "localhost") {
    out = net::HostPort{"127.0.0.1", hp->port};
    return {};
  }
  if (!net::is_ip_literal(hp->host)) {
    return expected;
  }
  out = *hp;
  return {};
}

}  // namespace launcher::setting_parsers
