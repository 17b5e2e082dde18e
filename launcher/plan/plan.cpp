#include "plan/plan.hpp"

#include <algorithm>
#include <set>

#include "plan/ray_env.hpp"
#include "plan/fabric_checks.hpp"
#include "plan/fabric_env.hpp"
#include "plan/gcs_ft.hpp"
#include "plan/gcs_store.hpp"
#include "plan/node_checks.hpp"
#include "plan/object_store.hpp"
#include "util/exit_codes.hpp"
#include "util/fatal.hpp"

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
  if (config.min_nodes && *config.min_nodes > plan.identity.nodes) {
    // Checked here, not with the settings, when the count is LWS_GROUP_SIZE's or PET_NNODES'.
    throw Fatal(exit_code::usage, config.source_of(&Config::min_nodes) + ": " + std::to_string(*config.min_nodes) +
                                      " is more than nodes=" + std::to_string(plan.identity.nodes) +
                                      " (expected a quorum from 1 to " + std::to_string(plan.identity.nodes) + ")");
  }
  if (config.min_nodes && *config.min_nodes < plan.identity.nodes) {
    plan.min_nodes = config.min_nodes;
    plan.quorum_grace = config.quorum_grace;
  }
  plan.instance_type = facts.node.instance_type;
  if (config.fabric_check && plan.identity.nodes > 1) {
    FabricCheckPlan f;
    f.provider = config.fabric_provider;
    f.timeout = config.fabric_check_timeout;
    f.pingpong = config.fabric_pingpong;
    f.device = facts.node.efa_devices.empty() ? "" : facts.node.efa_devices.front();
    if (config.fabric_min_bandwidth) {
      f.min_bandwidth = *config.fabric_min_bandwidth;
      f.min_bandwidth_source = config.source_of(&Config::fabric_min_bandwidth);
    } else if (const auto floor = fabric_floor(plan.instance_type)) {
      f.min_bandwidth = *floor;
      f.min_bandwidth_source = "instance table: a quarter of one EFA device of " + plan.instance_type;
    } else {
      f.min_bandwidth_source = plan.instance_type.empty() ? std::string("instance type unknown")
                                                          : plan.instance_type + " has no EFA floor";
    }
    plan.fabric_check = f;
  }

  Expectations expect = settle_expectations(config, facts.node);
  expect.nodes = std::max(1, plan.identity.nodes);  // LWS_GROUP_SIZE or PET_NNODES may have settled it
  plan.expected_gpus = expect.gpus;
  plan.expected_efa = expect.efa;
  plan.object_store = plan_object_store(config, facts.node);
  expect.object_store = plan.object_store.bytes;

  plan.env = venv_env(config, facts);
  plan.tls = plan_gcs_tls(config, facts.env);
  plan.env.insert(plan.env.end(), plan.tls.env.begin(), plan.tls.env.end());
  FabricEnv fabric = fabric_env(plan.identity, facts.node, facts.env, config.checks);
  const std::size_t fabric_at = plan.env.size();
  plan.env.insert(plan.env.end(), fabric.vars.begin(), fabric.vars.end());
  GcsFtPlan gcs_ft = plan_gcs_ft(config, plan.identity, facts.env, facts.ray_install);
  plan.env.insert(plan.env.end(), gcs_ft.env.begin(), gcs_ft.env.end());
  GcsStorePlan store = plan_gcs_store(config, plan.identity, facts.env, facts.ray_install);
  plan.env.insert(plan.env.end(), store.env.begin(), store.env.end());
  plan.local_gcs_timeout = std::max(plan.join_timeout, store.local_gcs_budget);
  const std::vector<EnvVar> drain = drain_env(plan.identity, facts.env);
  plan.env.insert(plan.env.end(), drain.begin(), drain.end());
  if (config.checks != ChecksPolicy::off) {
    plan.checks = node_checks(facts.node, facts.limits, expect);
    plan.checks.push_back(check_object_store(plan.object_store, facts.node, facts.env));
    plan.checks.insert(plan.checks.end(), fabric.warnings.begin(), fabric.warnings.end());
    // The image is read only now, only with EFA, as NCCL would see it under this plan's env.
    EnvMap child = plan.child_env(facts.env);
    const bool probe = facts.node.efa() > 0 && facts.node.probe_fabric;
    FabricFacts image = probe ? facts.node.probe_fabric(child) : FabricFacts{};
    // Only libnccl-net-ofi.so there: name it for NCCL, then judge the image as NCCL will load it.
    if (const auto plugin = ofi_plugin_name(image, facts.env)) {
      plan.env.insert(plan.env.begin() + static_cast<long>(fabric_at + after_nccl(fabric.vars)), *plugin);
      child = plan.child_env(facts.env);
      image = facts.node.probe_fabric(child);
    }
    const std::vector<Check> fabric_checked = fabric_checks(facts.node, image, child, plan.identity.nodes);
    plan.checks.insert(plan.checks.end(), fabric_checked.begin(), fabric_checked.end());
    plan.checks.insert(plan.checks.end(), gcs_ft.checks.begin(), gcs_ft.checks.end());
    plan.checks.insert(plan.checks.end(), store.checks.begin(), store.checks.end());
  }

  const int num_gpus = expect.gpus >= 0 ? expect.gpus : facts.node.gpus();
  plan.labels = plan_node_labels(config, plan.identity, facts);
  plan.ray_start = ray_start_argv(config, plan.identity, num_gpus, plan.object_store, plan.labels.args);
  if (const auto raise = nofile_raise(facts.limits)) {
    plan.actions.emplace_back(*raise);
  }
  if (const auto raise = memlock_raise(facts.node, facts.limits)) {
    plan.actions.emplace_back(*raise);
  }
  if (gcs_ft.preflight) {
    plan.actions.emplace_back(*gcs_ft.preflight);  // last: right before ray start
  }
  if (store.preflight) {
    plan.actions.emplace_back(*store.preflight);  // last: right before ray start
  }
  return plan;
}

namespace {

std::string option_name(const std::string& arg) { return arg.substr(0, arg.find('=')); }

}  // namespace

std::vector<std::string> ray_start_argv(const Config& config, const PodIdentity& id, int num_gpus,
                                        const ObjectStoreSize& store, const std::vector<std::string>& labels) {
  std::vector<std::string> ours;
  const std::string port = std::to_string(id.ray_port);
  if (id.role == Role::head) {
    ours = {"--head", "--port=" + port, "--dashboard-host=0.0.0.0", "--disable-usage-stats"};
    // GCS fault tolerance: Ray takes the Redis credentials from these options only.
    const std::vector<std::string> redis = redis_credential_args(config, id);
    ours.insert(ours.end(), redis.begin(), redis.end());
  } else {
    ours = {"--address=" + id.head_address()};
  }
  ours.push_back("--node-name=" + id.hostname);
  ours.push_back("--num-gpus=" + std::to_string(num_gpus));
  if (store.bytes > 0) {
    ours.push_back("--object-store-memory=" + std::to_string(store.bytes));
  }
  ours.push_back("--node-manager-port=" + std::to_string(config.node_manager_port));
  ours.push_back("--metrics-export-port=" + std::to_string(config.metrics_export_port));
  ours.insert(ours.end(), labels.begin(), labels.end());
  // With --exec the head's raylaunch becomes the command, which will not supervise `ray start`:
  // without --block it returns once Ray runs, and Ray's processes live on by themselves.
  if (!(config.exec && id.role == Role::head)) {
    ours.push_back("--block");
  }

  std::set<std::string> user_options;
  for (const std::string& arg : config.ray_args) {
    if (arg.starts_with("--")) {
      user_options.insert(option_name(arg));
    }
  }
  std::vector<std::string> argv = {config.ray, "start"};
  for (const std::string& arg : ours) {
    if (user_options.count(option_name(arg)) == 0) {
      argv.push_back(arg);
    }
  }
  argv.insert(argv.end(), config.ray_args.begin(), config.ray_args.end());
  return argv;
}

}  // namespace launcher
