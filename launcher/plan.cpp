#include "plan.hpp"

#include "exit_codes.hpp"
#include "fabric_env.hpp"
#include "node_checks.hpp"
#include "ray_start_args.hpp"

namespace launcher {

const char* to_string(Origin o) { return o == Origin::user ? "user" : "raylaunch"; }

const char* to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass:
      return "pass";
    case CheckStatus::warn:
      return "warn";
    case CheckStatus::fail:
      return "fail";
  }
  return "?";
}

int Plan::exit_code() const {
  if (checks_policy != ChecksPolicy::strict) {
    return launcher::exit_code::ok;
  }
  for (const Check& c : checks) {
    if (c.status == CheckStatus::fail) {
      return launcher::exit_code::config;
    }
  }
  return launcher::exit_code::ok;
}

EnvMap Plan::child_env(const EnvMap& base) const {
  EnvMap out = base;
  for (const EnvVar& var : env) {
    out[var.name] = var.value;  // user-origin values equal what `base` holds already
  }
  return out;
}

Plan make_plan(const Config& config, const PodFacts& facts, std::vector<std::string> command) {
  Plan plan;
  plan.identity = resolve_identity(config, facts);
  plan.checks_policy = config.checks;
  plan.command = std::move(command);
  plan.join_timeout = config.join_timeout;
  plan.instance_type = facts.node.instance_type;

  Expectations expect = settle_expectations(config, facts.node);
  plan.expected_gpus = expect.gpus;
  plan.expected_efa = expect.efa;
  const ObjectStoreSize store = plan_object_store(config, facts.node);
  expect.object_store = store.bytes;

  FabricEnv fabric = fabric_env(plan.identity, facts.node, facts.env, config.checks);
  plan.env = std::move(fabric.vars);
  if (config.checks != ChecksPolicy::off) {
    plan.checks = node_checks(facts.node, expect);
    plan.checks.insert(plan.checks.end(), fabric.warnings.begin(), fabric.warnings.end());
  }

  const int num_gpus = expect.gpus >= 0 ? expect.gpus : facts.node.gpus();
  plan.ray_start = ray_start_argv(config, plan.identity, num_gpus, store);
  if (store.bytes > 0) {
    plan.actions.push_back("object store " + std::to_string(store.bytes) + " bytes: " + store.reason);
  }
  if (const auto target = nofile_target(facts.node)) {
    plan.actions.push_back("raise RLIMIT_NOFILE soft limit to " + std::to_string(*target));
  }
  if (facts.node.efa() > 0 && facts.node.memlock && facts.node.memlock->soft && !facts.node.memlock->hard) {
    plan.actions.push_back("raise RLIMIT_MEMLOCK soft limit to unlimited");
  }
  return plan;
}

}  // namespace launcher
