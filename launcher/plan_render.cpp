#include "plan_render.hpp"

#include <array>
#include <cstdio>

#include "util/json_writer.hpp"
#include "util/parse.hpp"

namespace launcher {

std::string display_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& arg : argv) {
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
  out += pad.data() + value + "\n";
}

const char* exit_meaning(int code) {
  return code == 0 ? "ok: run would start Ray" : "a node check failed under checks=strict: run would stop here";
}

}  // namespace

std::string render_plan_text(const Plan& plan) {
  const PodIdentity& id = plan.identity;
  std::string out = "raylaunch plan: " + id.hostname + " is the " + to_string(id.role) + " (ordinal " +
                    std::to_string(id.ordinal) + " of " + std::to_string(id.nodes) + " nodes)\n";
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
  if (id.role == Role::head && id.nodes > 1) {
    line(out, "join barrier", "wait up to " + util::format_duration(plan.join_timeout) + " for " +
                                  std::to_string(id.nodes) + " ALIVE nodes");
  }

  out += "\nchecks (policy " + std::string(to_string(plan.checks_policy)) + "):\n";
  if (plan.checks.empty()) {
    out += "  (none: checks=off)\n";
  }
  for (const Check& c : plan.checks) {
    std::array<char, 64> head{};
    std::snprintf(head.data(), head.size(), "  %-5s %-22s ", c.status == CheckStatus::fail ? "FAIL" : to_string(c.status),
                  c.name.c_str());
    out += head.data() + c.detail + "\n";
    if (!c.fix.empty()) {
      out += "        fix: " + c.fix + "\n";
    }
  }

  out += "\nenvironment (inherited by ray start and the command):\n";
  for (const EnvVar& v : plan.env) {
    out += "  " + v.name + "=" + v.value + (v.origin == Origin::user ? "  [user]" : "") + "\n";
    if (!v.reason.empty()) {
      out += "      # " + v.reason + "\n";
    }
  }
  if (!plan.actions.empty()) {
    out += "\nbefore ray start:\n";
    for (const std::string& a : plan.actions) {
      out += "  " + a + "\n";
    }
  }
  out += "\nray start:\n  " + display_argv(plan.ray_start) + "\n";
  out += "\ncommand:\n  " + (plan.command.empty() ? std::string("(none: the pod runs Ray only)")
                                                    : display_argv(plan.command)) + "\n";
  out += "\nexit code: " + std::to_string(plan.exit_code()) + " (" + exit_meaning(plan.exit_code()) + ")\n";
  return out;
}

std::string render_plan_json(const Plan& plan) {
  const PodIdentity& id = plan.identity;
  util::JsonWriter w;
  w.begin_object();
  w.field("schema", "raylaunch.plan/v1");
  w.field("role", to_string(id.role));
  w.field("ordinal", id.ordinal);
  w.field("ordinal_source", id.ordinal_source);
  w.field("nodes", id.nodes);
  w.field("node_name", id.hostname);
  w.field("head_address", id.head_address());
  w.field("head_address_source", id.head_host_source);
  w.field("namespace", id.namespace_name);
  w.field("service", id.service);
  w.field("cluster_domain", id.cluster_domain);
  w.field("instance_type", plan.instance_type);
  w.key("expected_gpus");
  plan.expected_gpus >= 0 ? w.value(plan.expected_gpus) : w.null();
  w.key("expected_efa");
  plan.expected_efa >= 0 ? w.value(plan.expected_efa) : w.null();
  w.field("join_timeout_ms", static_cast<std::int64_t>(plan.join_timeout.count()));
  w.field("checks_policy", to_string(plan.checks_policy));
  w.key("ray_start");
  w.string_array(plan.ray_start);
  w.key("env");
  w.begin_object();
  for (const EnvVar& v : plan.env) {
    w.key(v.name);
    w.begin_object();
    w.field("value", v.value);
    w.field("origin", to_string(v.origin));
    w.field("reason", v.reason);
    w.end_object();
  }
  w.end_object();
  w.key("checks");
  w.begin_array();
  for (const Check& c : plan.checks) {
    w.begin_object();
    w.field("name", c.name);
    w.field("status", to_string(c.status));
    w.field("detail", c.detail);
    w.field("fix", c.fix);
    w.end_object();
  }
  w.end_array();
  w.key("actions");
  w.string_array(plan.actions);
  w.key("command");
  w.string_array(plan.command);
  w.field("exit_code", plan.exit_code());
  w.end_object();
  return w.str() + "\n";
}

}  // namespace launcher
