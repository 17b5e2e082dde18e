#include "plan/plan.hpp"

#include <array>
#include <cstdio>

#include "util/json.hpp"
#include "util/parse.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// `ray start` options whose value is a secret (Ray has no other way to take the Redis password).
constexpr const char* k_secret_options[] = {"--redis-password"};

}  // namespace

std::vector<std::string> redacted_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool value_next = false;
  for (const std::string& arg : argv) {
    if (value_next) {
      out.push_back("***");
      value_next = false;
      continue;
    }
    std::string shown = util::redact(arg);
    for (const char* option : k_secret_options) {
      const std::string name(option);
      if (arg == name) {
        value_next = true;
      } else if (arg.starts_with(name + "=")) {
        shown = name + "=***";
      }
    }
    out.push_back(std::move(shown));
  }
  return out;
}

std::string display_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& raw : redacted_argv(argv)) {
    // Control bytes are shown escaped, never sent to the terminal (a newline would split it).
    const std::string arg = util::printable(raw, 4096);
    const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789-_=.,/:@%+^") == std::string::npos;
    std::string word = arg;
    if (!plain) {
      word = "'";
      for (char c : arg) {
        word += c == '\'' ? std::string("'\\''") : std::string(1, c);
      }
      word += "'";
    }
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

namespace {

void line(std::string& out, const std::string& label, const std::string& value) {
  std::array<char, 32> pad{};
  std::snprintf(pad.data(), pad.size(), "  %-15s", label.c_str());
  out += pad.data() + util::printable(value, 4096) + "\n";
}

const char* exit_meaning(int code) {
  return code == 0 ? "ok: run would start Ray" : "a node check failed under checks=strict: run would stop here";
}

// What runs before `ray start`, one line each: the object-store decision, then the actions.
std::vector<std::string> before_ray_start(const Plan& plan) {
  std::vector<std::string> lines;
  if (plan.object_store.bytes > 0) {
    lines.push_back("object store " + std::to_string(plan.object_store.bytes) + " bytes: " + plan.object_store.reason);
  }
  for (const Action& a : plan.actions) {
    lines.push_back(describe(a));
  }
  return lines;
}

}  // namespace

std::string render_plan_text(const Plan& plan) {
  const PodIdentity& id = plan.identity;
  std::string out = "raylaunch plan: " + util::printable(id.hostname) + " is the " + to_string(id.role) +
                    " (ordinal " + std::to_string(id.ordinal) + " of " + std::to_string(id.nodes) + " nodes)\n";
  if (id.workload) {
    line(out, "workload", std::string(to_string(*id.workload)) + ": " + util::printable(id.workload_detail));
  }
  line(out, "nodes", std::to_string(id.nodes) + "  (" + id.nodes_source + ")");
  line(out, "ordinal", std::to_string(id.ordinal) + "  (" + id.ordinal_source + ")");
  line(out, "head", id.head_address() + "  (" + id.head_host_source + ")");
  if (!id.namespace_name.empty()) {
    line(out, "namespace", id.namespace_name);
  }
  if (!id.service.empty()) {
    line(out, "service", id.service + "  (" + id.service_source + ")");
  }
  line(out, "cluster domain", id.cluster_domain + "  (" + id.cluster_domain_source + ")");
  line(out, "instance", plan.instance_type.empty() ? "unknown" : plan.instance_type);
  line(out, "gcs tls", describe(plan.tls));
  if (id.role == Role::head && id.nodes > 1) {
    line(out, "join barrier", "wait up to " + util::format_duration(plan.join_timeout) + " for " +
                                  std::to_string(id.nodes) + " ALIVE nodes" +
                                  (plan.min_nodes ? ", or start with at least " + std::to_string(*plan.min_nodes) +
                                                        " once they have been ALIVE " +
                                                        util::format_duration(plan.quorum_grace) + " (--min-nodes)"
                                                  : std::string()));
  }
  if (const auto& f = plan.fabric_check) {
    // Decimal, as the setting takes it ("10G") and as fi_pingpong measures (MB/sec is 10^6 B/s).
    const std::string floor =
        (f->min_bandwidth > 0 ? "floor " + std::to_string(f->min_bandwidth / 1'000'000) + " MB/s" : "no floor") +
        " (" + f->min_bandwidth_source + ")";
    line(out, "fabric check",
         std::string(id.role == Role::head ? "after the join barrier" : "once Ray runs, at the head's go") +
             ": fi_pingpong (" + (f->pingpong.empty() ? "/opt/amazon/efa/bin, then PATH" : f->pingpong) +
             ") -p " + f->provider + " -e rdm to the next pod of the ring, up to " +
             util::format_duration(f->timeout) + "; " + floor +
             (id.role == Role::head ? "; judged under checks=" + std::string(to_string(plan.checks_policy)) : ""));
  }

  out += "\nchecks (policy " + std::string(to_string(plan.checks_policy)) + "):\n";
  if (plan.checks.empty()) {
    out += "  (none: checks=off)\n";
  }
  for (const Check& c : plan.checks) {
    std::array<char, 64> head{};
    std::snprintf(head.data(), head.size(), "  %-5s %-22s ", c.status == CheckStatus::fail ? "FAIL" : to_string(c.status),
                  c.name.c_str());
    out += head.data() + util::printable(c.detail, 4096) + "\n";
    if (!c.fix.empty()) {
      out += "        fix: " + util::printable(c.fix, 4096) + "\n";
    }
  }

  out += "\nenvironment (inherited by ray start and the command):\n";
  for (const EnvVar& v : plan.env) {
    out += "  " + v.name + "=" + util::printable(v.value, 4096) + (v.origin == Origin::user ? "  [user]" : "") + "\n";
    if (!v.reason.empty()) {
      out += "      # " + util::printable(v.reason, 4096) + "\n";
    }
  }
  if (const auto lines = before_ray_start(plan); !lines.empty()) {
    out += "\nbefore ray start:\n";
    for (const std::string& a : lines) {
      out += "  " + a + "\n";
    }
  }
  out += "\nray node labels" +
         (plan.labels.ray_version.empty() ? std::string() : " (ray start --labels, Ray " + plan.labels.ray_version + ")") +
         ":\n" + render_labels_text(plan.labels);
  out += "\nray start:\n  " + display_argv(plan.ray_start) + "\n";
  out += "\ncommand:\n  " + (plan.command.empty() ? std::string("(none: the pod runs Ray only)")
                                                    : display_argv(plan.command)) + "\n";
  out += "\nexit code: " + std::to_string(plan.exit_code()) + " (" + exit_meaning(plan.exit_code()) + ")\n";
  return out;
}

std::string render_plan_json(const Plan& plan) {
  const PodIdentity& id = plan.identity;
  util::Json doc;
  doc["schema"] = "raylaunch.plan/v1";
  doc["role"] = to_string(id.role);
  doc["ordinal"] = id.ordinal;
  doc["ordinal_source"] = id.ordinal_source;
  doc["nodes"] = id.nodes;
  doc["nodes_source"] = id.nodes_source;
  doc["workload"] = id.workload ? util::Json{{"kind", json_name(*id.workload)}, {"detail", id.workload_detail}}
                                : util::Json(nullptr);
  doc["node_name"] = id.hostname;
  doc["head_address"] = id.head_address();
  doc["head_address_source"] = id.head_host_source;
  doc["namespace"] = id.namespace_name;
  doc["service"] = id.service;
  doc["cluster_domain"] = id.cluster_domain;
  doc["instance_type"] = plan.instance_type;
  doc["expected_gpus"] = plan.expected_gpus >= 0 ? util::Json(plan.expected_gpus) : util::Json(nullptr);
  doc["expected_efa"] = plan.expected_efa >= 0 ? util::Json(plan.expected_efa) : util::Json(nullptr);
  doc["join_timeout_ms"] = static_cast<std::int64_t>(plan.join_timeout.count());
  if (plan.min_nodes) {  // only with a quorum: plans without one are as they were
    doc["min_nodes"] = *plan.min_nodes;
    doc["quorum_grace_ms"] = static_cast<std::int64_t>(plan.quorum_grace.count());
  }
  if (const auto& f = plan.fabric_check) {  // only with --fabric-check on
    doc["fabric_check"] = {{"provider", f->provider},
                           {"min_bandwidth", f->min_bandwidth},
                           {"min_bandwidth_source", f->min_bandwidth_source},
                           {"timeout_ms", static_cast<std::int64_t>(f->timeout.count())},
                           {"pingpong", f->pingpong.empty() ? util::Json(nullptr) : util::Json(f->pingpong)},
                           {"device", f->device.empty() ? util::Json(nullptr) : util::Json(f->device)}};
  }
  doc["checks_policy"] = to_string(plan.checks_policy);
  // Paths only: the files hold a private key.
  auto path_or_null = [](const std::string& p) { return p.empty() ? util::Json(nullptr) : util::Json(p); };
  doc["gcs_tls"] = {{"enabled", plan.tls.enabled},
                    {"server_cert", path_or_null(plan.tls.server_cert)},
                    {"server_key", path_or_null(plan.tls.server_key)},
                    {"ca_cert", path_or_null(plan.tls.ca_cert)}};
  doc["labels"] = labels_json(plan.labels);
  doc["ray_start"] = redacted_argv(plan.ray_start);
  util::Json& env = doc["env"] = util::Json::object();
  for (const EnvVar& v : plan.env) {
    env[v.name] = {{"value", v.value}, {"origin", to_string(v.origin)}, {"reason", v.reason}};
  }
  util::Json& checks = doc["checks"] = util::Json::array();
  for (const Check& c : plan.checks) {
    checks.push_back({{"name", c.name}, {"status", to_string(c.status)}, {"detail", c.detail}, {"fix", c.fix}});
  }
  doc["actions"] = before_ray_start(plan);
  doc["command"] = redacted_argv(plan.command);
  doc["exit_code"] = plan.exit_code();
  return util::json_text(doc) + "\n";
}

namespace {

struct Describe {
  std::string operator()(const RaiseLimit& a) const {
    return std::string("raise ") + util::to_string(a.resource) + " soft limit to " +
           (a.soft ? std::to_string(*a.soft) : std::string("unlimited"));
  }
  std::string operator()(const WaitForRedis& a) const {
    const std::string auth = !a.password ? "no AUTH (REDIS_PASSWORD not set)"
                             : a.username ? "AUTH as " + util::printable(*a.username, 64) + " with REDIS_PASSWORD"
                                          : "AUTH with REDIS_PASSWORD";
    const std::string tls = a.tls_server_name ? " over TLS (certificate for " + util::printable(*a.tls_server_name, 64) + ")"
                                              : "";
    return "wait up to " + util::format_duration(a.timeout) + " for Redis at " + a.address.text() + tls +
           " to answer PING (" + auth + "); storage namespace \"" + util::printable(a.storage_namespace, 64) + "\"";
  }
  std::string operator()(const PrepareGcsStore& a) const {
    return "check the GCS store at " + util::printable(a.path, 256) +
           " (a directory, writable, fsync, at least " + util::format_size(a.min_free) +
           " free, not in memory, no other cluster's database), claim it for " + util::printable(a.owner, 128) +
           " and lock it while this pod runs";
  }
};

}  // namespace

std::string describe(const Action& action) { return std::visit(Describe{}, action); }

}  // namespace launcher
